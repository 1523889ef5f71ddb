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

/** How long the results of one run gather before the one top-up pass they ask for together. */
export const REFILL_BATCH_MS = 100;

/**
 * Asks for a top-up pass of the run at the end of the current REFILL_BATCH_MS window: every ask
 * in one window is the same job (its id names the window), so a run whose results each free one
 * slot (at its max_concurrent_attempts, or its workspace's limit) gets one pass per window from
 * all its workers instead of one per result. A pass runs after the window's results committed,
 * so none of them is left without one.
 */
export async function enqueueRunRefill(queues: Queues, runId: string, now = Date.now()): Promise<void> {
  const window = Math.floor(now / REFILL_BATCH_MS) + 1;
  await queues.runDispatch.add(
    'dispatch',
    { runId },
    {
      jobId: `refill-${runId}-${window}`,
      delay: Math.max(0, window * REFILL_BATCH_MS - now),
      removeOnComplete: true,
      removeOnFail: 100,
    },
  );
}
