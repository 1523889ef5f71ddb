// /healthz: the process answers. /readyz: Postgres and Redis answer within a short timeout —
// the API's own dependencies decide its readiness. The workers are reported beside them
// (`workers`: live, dead, engine down, capacity): no live worker is a reason to look, not a
// reason to take the API out of a load balancer (it still serves reads, submits and stops).
import { errorMessage, HealthResponse, ReadyResponse, type WorkersSummary } from '@osmosis/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { listWorkers, summarizeWorkers } from './services/workers.ts';

async function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not answer within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

function reason(error: unknown): string {
  const message = errorMessage(error);
  // first line only, never a connection string
  return (message.split('\n').find((line) => line.trim()) ?? 'unreachable')
    .replace(/\w+:\/\/\S+/g, '<url>')
    .slice(0, 200);
}

export const healthRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/healthz',
    {
      config: { public: true },
      schema: {
        tags: ['health'],
        summary: 'Liveness',
        description: "Answers `{status: 'ok'}` while the process runs; checks nothing else. No token needed.",
        response: { 200: HealthResponse },
      },
    },
    async () => ({ status: 'ok' as const }),
  );

  app.get(
    '/readyz',
    {
      config: { public: true },
      schema: {
        tags: ['health'],
        summary: 'Readiness',
        description:
          "Postgres and Redis answer within the readiness timeout: 200 `ready`, else 503 `unavailable` with the failing check's reason. The workers are reported beside them and never make the API unready. No token needed.",
        response: { 200: ReadyResponse, 503: ReadyResponse },
      },
    },
    async (_request, reply) => {
      const ms = app.config.readyTimeoutMs;
      const [postgres, redis] = await Promise.all([
        withTimeout(app.db.$queryRawUnsafe('SELECT 1'), ms, 'postgres').then(
          () => ({ ok: true }),
          (error: unknown) => ({ ok: false, error: reason(error) }),
        ),
        (async () => {
          const redis = app.redis;
          if (redis.status === 'connecting' || redis.status === 'connect') {
            // first connection still in progress: give it the same timeout
            await withTimeout(
              new Promise<void>((resolve, reject) => {
                redis.once('ready', () => resolve());
                redis.once('error', reject);
              }),
              ms,
              'redis',
            );
          }
          if (redis.status !== 'ready') throw new Error(`redis connection is ${redis.status}`);
          await withTimeout(redis.ping(), ms, 'redis');
        })().then(
          () => ({ ok: true }),
          (error: unknown) => ({ ok: false, error: reason(error) }),
        ),
      ]);
      const ready = postgres.ok && redis.ok;
      const workers: WorkersSummary = postgres.ok
        ? await withTimeout(listWorkers(app.db), ms, 'postgres').then(summarizeWorkers, (error: unknown) => ({
            ...summarizeWorkers([]),
            error: reason(error),
          }))
        : { ...summarizeWorkers([]), error: 'postgres is unavailable' };
      reply.code(ready ? 200 : 503);
      return {
        status: ready ? ('ready' as const) : ('unavailable' as const),
        checks: { postgres, redis },
        workers,
      };
    },
  );
};
