// Workers as the platform sees them (GET /v1/workers, /readyz, the operators page), and what a
// run is waiting for when its work does not move (runs info, runs list, the run page).
// Self-contained (no import of common.ts, which imports WorkersSummary from here).
import { z } from 'zod';

const Time = z.iso.datetime({ offset: true });

export const EngineStateName = z.enum(['up', 'down', 'unknown']);
export type EngineStateName = z.infer<typeof EngineStateName>;

/** live: heartbeat within its liveness bound; dead: missed its heartbeats; stopped: shut down. */
export const WorkerStateName = z.enum(['live', 'dead', 'stopped']);
export type WorkerStateName = z.infer<typeof WorkerStateName>;

/** cpus, memory (MB) and GPU device ids: what a worker advertises, or what its running attempts hold. */
export const WorkerResourceAmounts = z.object({
  cpus: z.number().nonnegative().describe('CPUs'),
  memory_mb: z.number().int().nonnegative().describe('Memory, MB'),
  gpus: z.array(z.string()).describe('GPU device ids'),
});
export type WorkerResourceAmounts = z.infer<typeof WorkerResourceAmounts>;

/** What an attempt may reserve on the worker (OSMOSIS_WORKER_CPUS, _MEMORY_MB, _GPUS) and what is reserved now. */
export const WorkerResources = WorkerResourceAmounts.extend({
  reserved: WorkerResourceAmounts.describe('What its running attempts hold now'),
});
export type WorkerResources = z.infer<typeof WorkerResources>;

export const WorkerInfo = z.object({
  id: z.string().describe("The worker's id"),
  state: WorkerStateName.describe(
    'live (heartbeat within its liveness bound), dead (missed its heartbeats) or stopped (shut down)',
  ),
  host: z.string().describe('Host name it runs on'),
  pid: z.number().int().describe('Its process id on that host'),
  version: z.string().nullable().describe('Its software version; null when it did not say'),
  capacity: z.number().int().nullable().describe('attempts it runs at once'),
  slots_in_use: z
    .number()
    .int()
    .nonnegative()
    .describe('attempts it holds right now (as of its last heartbeat)'),
  engine: z
    .object({
      state: EngineStateName.describe('up, down or unknown'),
      error: z.string().nullable().describe('why the engine is down, as the worker saw it'),
      checked_at: Time.nullable().describe('When it last checked; null before the first check'),
    })
    .describe('Its Docker engine as it last saw it'),
  running_attempts: z
    .number()
    .int()
    .nonnegative()
    .describe('attempts leased to it in the database (running)'),
  resources: WorkerResources.nullable().describe(
    'its advertised resources and their reservations; null for a worker that advertises none (older version)',
  ),
  started_at: Time.describe('When it started'),
  last_heartbeat_at: Time.describe('Its last heartbeat'),
  liveness_ms: z
    .number()
    .int()
    .positive()
    .describe('a worker whose last heartbeat is older than this is dead'),
  stopped_at: Time.nullable().describe('When it shut down; null while it runs'),
  scope: z.string().nullable().describe('the sandbox scope of its containers (named from the deployment id)'),
});
export type WorkerInfo = z.infer<typeof WorkerInfo>;

export const WorkerList = z.object({
  deployment_id: z.string().nullable().describe("this deployment's id (table `deployment`)"),
  items: z.array(WorkerInfo).describe('The workers: running ones first, then by latest heartbeat'),
  total_count: z.number().int().nonnegative().describe('How many workers are listed'),
  has_more: z.boolean().describe('Always false: every worker is listed'),
  next_offset: z.null().describe('Always null: one page'),
});
export type WorkerList = z.infer<typeof WorkerList>;

/** The workers as /readyz reports them, apart from the API's own dependencies. */
export const WorkersSummary = z.object({
  ok: z.boolean().describe('at least one live worker whose engine is not down'),
  live: z.number().int().nonnegative().describe('Workers with a recent heartbeat'),
  dead: z.number().int().nonnegative().describe('Workers that missed their heartbeats'),
  engine_down: z.number().int().nonnegative().describe('live workers whose Docker engine is down'),
  capacity: z.number().int().nonnegative().describe('Attempts the live workers run at once, summed'),
  slots_in_use: z.number().int().nonnegative().describe('Attempts the live workers hold now, summed'),
  error: z.string().optional().describe('set when the workers could not be read'),
});
export type WorkersSummary = z.infer<typeof WorkersSummary>;

/**
 * Why some of a run's work is not moving: `engine_unavailable` — attempts handed back because a
 * Docker engine was unavailable, or no live worker's engine answers; `no_live_worker` — queued
 * work and no live worker to take it; `workspace_limit` — queued work while the workspace's
 * runs already hold as many attempts in flight as its limit allows. (A task that fits no live
 * worker is the run's `waiting_reason`, which the dispatcher writes.)
 */
export const RunWaiting = z.object({
  reason: z
    .enum(['engine_unavailable', 'no_live_worker', 'workspace_limit'])
    .describe('engine_unavailable, no_live_worker or workspace_limit'),
  attempts: z.number().int().nonnegative().describe('attempts affected'),
  message: z.string().describe('What it waits for and what to do, for people'),
});
export type RunWaiting = z.infer<typeof RunWaiting>;

/** Fault fields of a run (runs list, runs info, the pages). */
export const RunFaults = z.object({
  errored_share: z.number().nullable().describe('errored / scored attempts (null when nothing is scored)'),
  unranked_reason: z
    .string()
    .nullable()
    .describe(
      'set when (agents of) a finished run are listed but not ranked on the leaderboard: their errored share is over the limit (OSMOSIS_RANKED_MAX_ERRORED_SHARE)',
    ),
  waiting: z.array(RunWaiting).describe("what the run's queued work is waiting for (empty when it moves)"),
});
export type RunFaults = z.infer<typeof RunFaults>;
