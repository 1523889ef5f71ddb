// Entry point of a worker process: `node apps/worker/src/main.ts`. Configuration from the
// environment (see config.ts / apps/worker/README.md); SIGTERM or SIGINT shut it down gracefully.
import { logUnhandledRejections } from '@osmosis/core';
import { ConfigError, loadWorkerConfig } from './config.ts';
import { startWorker } from './worker.ts';

async function main(): Promise<void> {
  let config: ReturnType<typeof loadWorkerConfig>;
  try {
    config = loadWorkerConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  const worker = await startWorker(config);
  logUnhandledRejections(worker.context.logger);
  let signals = 0;
  const stop = (signal: string) => {
    signals++;
    if (signals > 1) {
      process.stderr.write(`second ${signal}: exiting now\n`);
      process.exit(1);
    }
    worker.close().then(
      () => process.exit(0),
      (error) => {
        process.stderr.write(`shutdown failed: ${error instanceof Error ? error.stack : error}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

main().catch((error) => {
  process.stderr.write(`worker failed to start: ${error instanceof Error ? error.stack : error}\n`);
  process.exit(1);
});
