// The API process: config from the environment, migrations, listen, graceful shutdown.
//   node apps/api/src/main.ts
import { logUnhandledRejections } from '@osmosis/core';
import { createDb, migrateDeploy } from '@osmosis/db';
import { createRedis } from '@osmosis/queues';
import { buildApp } from './app.ts';
import { ConfigError, loadConfig } from './config.ts';
import { createLogger } from './logger.ts';

async function main(): Promise<void> {
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig(process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`osmosis api: ${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  const logger = createLogger(config.logLevel);
  logUnhandledRejections(logger);
  if (!config.skipMigrations) {
    logger.info('applying database migrations');
    await migrateDeploy(config.databaseUrl);
  }
  const db = createDb(config.databaseUrl);
  const redis = createRedis(config.redisUrl);
  let redisErrorLogged = 0;
  redis.on('error', (error: Error) => {
    // ioredis reconnects by itself; log at most every 10 s
    if (Date.now() - redisErrorLogged > 10_000) {
      redisErrorLogged = Date.now();
      logger.warn({ err: error }, 'redis connection error');
    }
  });
  // warm the database client up (first query compiles the engine); not fatal: /readyz reports it
  await db
    .$queryRawUnsafe('SELECT 1')
    .catch((error: unknown) => logger.warn({ err: error }, 'database not reachable yet'));
  const app = await buildApp({ db, redis, config, logger });

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    logger.info({ signal }, 'shutting down: no new connections, finishing in-flight requests');
    const force = setTimeout(() => {
      logger.error('shutdown took longer than 25 s; exiting');
      process.exit(1);
    }, 25_000);
    force.unref();
    try {
      await app.close();
      await db.$disconnect();
      await redis.quit().catch(() => redis.disconnect());
      logger.info('shut down cleanly');
      process.exit(0);
    } catch (error) {
      logger.error({ err: error }, 'error during shutdown');
      process.exit(1);
    }
  };
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  process.once('SIGINT', () => void shutdown('SIGINT'));

  await app.listen({ host: config.host, port: config.port });
}

main().catch((error: unknown) => {
  process.stderr.write(
    `osmosis api: failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
