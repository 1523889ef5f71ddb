// Producers of the platform's BullMQ queues, shared by the API (enqueue on submit/add) and the
// worker (dispatcher, reconciler). Jobs carry ids only.
import { type BenchmarkSyncJob, type HealthJob, QUEUE_NAMES, type RunDispatchJob } from '@osmosis/contracts';
import { Queue, type QueueOptions } from 'bullmq';
import { Redis } from 'ioredis';

export const DEFAULT_REDIS_URL = 'redis://127.0.0.1:63799';
export const DEFAULT_QUEUE_PREFIX = 'osmosis';

/** An ioredis connection configured as BullMQ requires (no per-request retry limit). */
export function createRedis(redisUrl: string = process.env.REDIS_URL ?? DEFAULT_REDIS_URL): Redis {
  return new Redis(redisUrl, { maxRetriesPerRequest: null, enableReadyCheck: true });
}

export interface Queues {
  health: Queue<HealthJob>;
  benchmarkSync: Queue<BenchmarkSyncJob>;
  runDispatch: Queue<RunDispatchJob>;
  connection: Redis;
  prefix: string;
  close(): Promise<void>;
}

export function createQueues(connection: Redis, prefix: string = DEFAULT_QUEUE_PREFIX): Queues {
  const opts: QueueOptions = {
    connection,
    prefix,
    defaultJobOptions: { removeOnComplete: 1000, removeOnFail: 5000 },
  };
  const queues = {
    health: new Queue<HealthJob>(QUEUE_NAMES.health, opts),
    benchmarkSync: new Queue<BenchmarkSyncJob>(QUEUE_NAMES.benchmarkSync, opts),
    runDispatch: new Queue<RunDispatchJob>(QUEUE_NAMES.runDispatch, opts),
  };
  return {
    ...queues,
    connection,
    prefix,
    async close() {
      await Promise.all(Object.values(queues).map((q) => q.close()));
    },
  };
}

/** Sync (or resume syncing) a benchmark. A sync already waiting for the same benchmark is reused. */
export async function enqueueBenchmarkSync(queues: Queues, benchmarkId: string): Promise<void> {
  await queues.benchmarkSync.add('sync', { benchmarkId }, { jobId: `sync-${benchmarkId}-${Date.now()}` });
}

/** Wake the dispatcher for a run; cheap and idempotent, call it whenever a run's slots may be free. */
export async function enqueueRunDispatch(queues: Queues, runId: string): Promise<void> {
  await queues.runDispatch.add('dispatch', { runId }, { removeOnComplete: true, removeOnFail: 100 });
}
