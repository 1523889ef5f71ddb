// buildApp(deps): the API as a Fastify instance, not yet listening. main.ts listens on the
// configured port; tests call `app.listen({host: '127.0.0.1', port: 0})` or `app.inject`.
import { randomUUID } from 'node:crypto';
import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import type { Db } from '@osmosis/db';
import { createQueues, type Queues } from '@osmosis/queues';
import { type ArtifactStorage, storageFromProcessEnv } from '@osmosis/storage';
import Fastify, { type FastifyInstance, LogController } from 'fastify';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { createAuthenticate } from './auth.ts';
import { type ApiConfig, defaultConfig } from './config.ts';
import { errorHandler, frameworkErrorHandler, notFoundHandler } from './errors.ts';
import { healthRoutes } from './health.ts';
import { rejectMalformedInput } from './input-rules.ts';
import { type LogLevel, loggerOptions } from './logger.ts';
import { registerMetrics } from './metrics.ts';
import { registerOpenApiComponents } from './openapi-components.ts';
import { swaggerOptions } from './openapi-document.ts';
import { AuthFailureLimiter } from './rate-limit.ts';
import { cliDeviceRoutes } from './routes/cli-device.ts';
import { routes } from './routes/index.ts';

export interface AppDeps {
  db: Db;
  /** ioredis connection (BullMQ-ready: maxRetriesPerRequest null), e.g. createRedis(url) */
  redis: Redis;
  /** queues to enqueue on; created on first use from `redis` when omitted (and closed with the app) */
  queues?: Queues;
  config?: Partial<ApiConfig>;
  /** a pino logger instance (tests pass one writing to a buffer) */
  logger?: Logger;
  /** level of the logger the app makes when `logger` is omitted; default config.logLevel */
  logLevel?: LogLevel;
  /** artifact storage; default the storage the process environment configures (OSMOSIS_STORAGE, OSMOSIS_DATA_DIR) */
  storage?: ArtifactStorage;
}

declare module 'fastify' {
  interface FastifyInstance {
    db: Db;
    redis: Redis;
    /** BullMQ producers (lazily created) */
    queues: Queues;
    config: ApiConfig;
    /** artifact storage (uploads, artifacts): AppDeps.storage or the environment's */
    readonly storage: ArtifactStorage;
  }
}

export type App = FastifyInstance;

const REQUEST_ID = /^[\w.:-]{1,64}$/;

export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const config = defaultConfig(deps.config ?? {});
  const base = {
    bodyLimit: config.bodyLimit,
    // Fastify's default is none: a body sent a byte at a time would hold its connection for ever
    requestTimeout: config.requestTimeoutMs,
    // Node enforces it only with headersTimeout at most as long, checked every
    // connectionsCheckingInterval (30 s by default)
    http: {
      headersTimeout: Math.min(60_000, config.requestTimeoutMs),
      connectionsCheckingInterval: Math.min(30_000, Math.max(100, Math.floor(config.requestTimeoutMs / 4))),
    },
    trustProxy: config.trustProxy,
    requestIdHeader: false as const,
    logController: new LogController({ requestIdLogLabel: 'request_id' }),
    genReqId: (req: { headers: Record<string, string | string[] | undefined> }) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
    // a URL with broken percent-encoding fails before routing, where Fastify answers in its
    // own shape unless told otherwise
    frameworkErrors: frameworkErrorHandler,
    return503OnClosing: true,
    forceCloseConnections: 'idle' as const,
    routerOptions: { ignoreTrailingSlash: true },
  };
  const app = (deps.logger
    ? Fastify({ ...base, loggerInstance: deps.logger })
    : Fastify({ ...base, logger: loggerOptions(deps.logLevel ?? config.logLevel) })
  ).withTypeProvider<ZodTypeProvider>() as unknown as FastifyInstance;

  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  app.setErrorHandler(errorHandler);
  app.setNotFoundHandler(notFoundHandler);
  app.addHook('preValidation', rejectMalformedInput); // NUL, lone surrogates, deep JSON → 400 (input-rules.ts)
  registerMetrics(app); // GET /metrics and the request histogram (metrics.ts)

  app.decorate('db', deps.db);
  app.decorate('redis', deps.redis);
  app.decorate('config', config);
  // read on each use: the environment's storage is made once per distinct setting (storageFromProcessEnv)
  app.decorate('storage', { getter: () => deps.storage ?? storageFromProcessEnv() });
  let queues = deps.queues;
  let ownQueues = false;
  app.decorate('queues', {
    getter() {
      if (!queues) {
        queues = createQueues(deps.redis, config.queuePrefix);
        ownQueues = true;
        for (const queue of [queues.health, queues.benchmarkSync, queues.runDispatch]) {
          queue.on('error', (error) => app.log.warn({ err: error }, 'queue error'));
        }
      }
      return queues;
    },
  });
  app.decorateRequest('auth', null as never);
  // On close, requests already in flight still finish; their connections are then closed
  // instead of kept alive (Fastify's keep-alive timeout would hold close() for 72 s).
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onSend', async (request, reply) => {
    reply.header('x-request-id', request.id);
    if (closing) reply.header('connection', 'close');
  });
  app.addHook('onClose', async () => {
    if (queues && ownQueues) await queues.close();
  });

  registerOpenApiComponents();
  await app.register(fastifySwagger, swaggerOptions(config.publicUrl));
  await app.register(fastifySwaggerUi, { routePrefix: '/docs' });
  app.get('/openapi.json', { schema: { hide: true }, config: { public: true } }, async () => app.swagger());

  await app.register(healthRoutes);

  const limiter = new AuthFailureLimiter(config.authFailureLimit, config.authFailureWindowMs);
  const authenticate = createAuthenticate(app, limiter);
  await app.register(
    async (v1) => {
      v1.addHook('onRequest', authenticate);
      for (const route of routes) await v1.register(route);
    },
    { prefix: '/v1' },
  );
  await app.register(cliDeviceRoutes); // the CLI's device login (/api/cli/device/*): docs/accounts.md
  await app.register((await import('./pages/index.ts')).pageRoutes); // web pages: docs/pages.md
  return app;
}
