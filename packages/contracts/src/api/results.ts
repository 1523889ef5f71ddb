// Scores of a run, the benchmark leaderboard, live progress over server-sent events, and the
// download manifest. Every number here comes from stored attempts through the pure scorers of
// @osmosis/core (packages/core/src/scoring); see docs/scores.md for the definitions.
import { z } from 'zod';
import { RunStatusName } from '../run-statuses.ts';
import { AgentQuality, Comparability } from './quality.ts';
import { RunEventAttemptFields } from './run-event-attempts.ts';

// ---------------------------------------------------------------------------------------------
// Scoring inputs (what the SQL aggregations hand to the pure scorers)

/**
 * A histogram bucket of one agent's tasks: `tasks` tasks each had `scored` scored attempts
 * (passed + failed + errored; cancelled ones excluded) of which `passed` passed. pass@1, pass@k
 * and the clustered interval depend on a task only through (scored, passed), so a run of any
 * size reduces to a few dozen buckets per agent.
 */
export const TaskBucket = z.object({
  scored: z.number().int().nonnegative(),
  passed: z.number().int().nonnegative(),
  tasks: z.number().int().positive(),
});
export type TaskBucket = z.infer<typeof TaskBucket>;

/** Attempt counts by outcome. `pending` = not finished yet (queued or running, no outcome). */
export const AttemptOutcomeCounts = z.object({
  passed: z.number().int().nonnegative(),
  failed: z.number().int().nonnegative(),
  errored: z.number().int().nonnegative(),
  cancelled: z.number().int().nonnegative(),
  pending: z.number().int().nonnegative(),
  total: z.number().int().nonnegative(),
});
export type AttemptOutcomeCounts = z.infer<typeof AttemptOutcomeCounts>;

/**
 * Sums over attempts of cost, time and tokens, each with the number of attempts that reported
 * the value (a value unknown for an attempt is left out of both, never counted as 0).
 */
export const UsageSums = z.object({
  cost_usd: z.number().nonnegative(),
  cost_n: z.number().int().nonnegative(),
  judge_cost_usd: z.number().nonnegative(),
  judge_cost_n: z.number().int().nonnegative(),
  time_ms: z.number().nonnegative(),
  time_n: z.number().int().nonnegative(),
  tokens: z.number().nonnegative(),
  tokens_n: z.number().int().nonnegative(),
  input_tokens: z.number().nonnegative(),
  output_tokens: z.number().nonnegative(),
  cache_tokens: z.number().nonnegative(),
});
export type UsageSums = z.infer<typeof UsageSums>;

// ---------------------------------------------------------------------------------------------
// Scores

export const IntervalMethod = z.enum(['wilson', 'wilson-clustered']);
export type IntervalMethod = z.infer<typeof IntervalMethod>;

/**
 * The interval method of a run's agents: the method every agent's interval used, or `mixed`
 * when they differ (each agent's own is `interval.method`). An agent falls back to plain
 * `wilson` while none of its tasks has two scored attempts, so a run with
 * attempts_per_task > 1 can still be `wilson` (e.g. stopped after the first tries).
 */
export const RunIntervalMethod = z.enum(['wilson', 'wilson-clustered', 'mixed']);
export type RunIntervalMethod = z.infer<typeof RunIntervalMethod>;

export const ConfidenceInterval = z.object({
  lower: z.number(),
  upper: z.number(),
  level: z.number(),
  method: IntervalMethod,
  /** the sample size the Wilson formula was given (attempts / design effect) */
  effective_n: z.number(),
  /** the estimated intra-task correlation (null for plain Wilson) */
  icc: z.number().nullable(),
  design_effect: z.number(),
});
export type ConfidenceInterval = z.infer<typeof ConfidenceInterval>;

export const PassAtK = z.object({
  k: z.number().int().positive(),
  /** null when no task has at least k scored attempts */
  value: z.number().nullable(),
  /** tasks that entered the average (those with ≥ k scored attempts) */
  tasks: z.number().int().nonnegative(),
});
export type PassAtK = z.infer<typeof PassAtK>;

export const AgentScore = z.object({
  /** mean over scored tasks of each task's pass rate; null when no attempt is scored */
  pass_at_1: z.number().nullable(),
  interval: ConfidenceInterval.nullable(),
  pass_at_k: z.array(PassAtK),
  /** pass@k at k = attempts_per_task */
  deepest: PassAtK.nullable(),
  tasks_scored: z.number().int().nonnegative(),
  attempts_scored: z.number().int().nonnegative(),
});
export type AgentScore = z.infer<typeof AgentScore>;

export const Ranking = z.object({
  /** 1-based competition rank by pass@1 (equal pass@1, equal rank); null when unscored */
  rank: z.number().int().positive().nullable(),
  /** the agent's interval overlaps the leader's (the leader too, when anyone overlaps it) */
  tied: z.boolean(),
  /** `#<rank>`, with a star when tied with the leader (`#1*`, `#2*`: its interval overlaps the leader's); `–` when unscored */
  rank_label: z.string(),
});
export type Ranking = z.infer<typeof Ranking>;

/** Means per attempt ("per task": one try at one task). null = no attempt reported it. */
export const PerTaskUsage = z.object({
  cost_usd: z.number().nullable(),
  time_ms: z.number().nullable(),
  tokens: z.number().nullable(),
});
export type PerTaskUsage = z.infer<typeof PerTaskUsage>;

export const UsageTotals = z.object({
  /** null when no attempt reported a cost */
  cost_usd: z.number().nullable(),
  judge_cost_usd: z.number().nullable(),
  input_tokens: z.number(),
  output_tokens: z.number(),
  cache_tokens: z.number(),
  tokens: z.number(),
});
export type UsageTotals = z.infer<typeof UsageTotals>;

export const RunAgentResult = z.object({
  agent_id: z.string(),
  index: z.number().int().nonnegative(),
  harness: z.string(),
  model: z.string(),
  /** `model (harness)` */
  label: z.string(),
  ...Ranking.shape,
  ...AgentScore.shape,
  counts: AttemptOutcomeCounts,
  per_task: PerTaskUsage,
  totals: UsageTotals,
  ...AgentQuality.shape,
});
export type RunAgentResult = z.infer<typeof RunAgentResult>;

export const ProgressSnapshot = z.object({
  /** attempts planned (all agents × tasks × attempts_per_task) */
  total: z.number().int().nonnegative(),
  /** attempts with an outcome */
  done: z.number().int().nonnegative(),
  running: z.number().int().nonnegative(),
  queued: z.number().int().nonnegative(),
  passed: z.number().int().nonnegative(),
  failed: z.number().int().nonnegative(),
  errored: z.number().int().nonnegative(),
  cancelled: z.number().int().nonnegative(),
  /** done / total, 0..1 */
  fraction: z.number(),
});
export type ProgressSnapshot = z.infer<typeof ProgressSnapshot>;

export const RunResults = z.object({
  run_id: z.string(),
  run_name: z.string(),
  status: RunStatusName,
  benchmark_id: z.string(),
  benchmark_key: z.string(),
  task_count: z.number().int().nonnegative(),
  attempts_per_task: z.number().int().positive(),
  created_at: z.string(),
  started_at: z.string().nullable(),
  finished_at: z.string().nullable(),
  /** finished_at (or now, while running) − started_at, in ms; null before it starts */
  duration_ms: z.number().nullable(),
  progress: ProgressSnapshot,
  totals: z.object({ ...AttemptOutcomeCounts.shape, ...UsageTotals.shape }),
  /** sorted by rank (unscored agents last, by index) */
  agents: z.array(RunAgentResult),
  /**
   * the interval method of the agents' intervals: "wilson", "wilson-clustered", or "mixed" when
   * agents differ (see each agent's interval.method); with no interval yet, the method the
   * settings call for (attempts_per_task > 1: "wilson-clustered")
   */
  interval_method: RunIntervalMethod,
  interval_level: z.number(),
});
export type RunResults = z.infer<typeof RunResults>;

export const RunResultsResponse = z.object({ data: RunResults });
export type RunResultsResponse = z.infer<typeof RunResultsResponse>;

// ---------------------------------------------------------------------------------------------
// Leaderboard

export const LeaderboardEntry = z.object({
  ...Ranking.shape,
  harness: z.string(),
  model: z.string(),
  label: z.string(),
  pass_at_1: z.number().nullable(),
  interval: ConfidenceInterval.nullable(),
  /** the deepest pass@k of the entry's run (k = its attempts_per_task) */
  pass_at_k: PassAtK.nullable(),
  per_task: PerTaskUsage,
  run_id: z.string(),
  run_name: z.string(),
  run_finished_at: z.string().nullable(),
  attempts_per_task: z.number().int().positive(),
  /** "full" or the recommended task set's name */
  task_set: z.string(),
  tasks_scored: z.number().int().nonnegative(),
  comparability: Comparability.nullable().optional(),
});
export type LeaderboardEntry = z.infer<typeof LeaderboardEntry>;

/** a newer finished run of a (harness, model) left off the leaderboard, and why */
export const UnrankedEntry = z.object({
  harness: z.string(),
  model: z.string(),
  label: z.string(),
  run_id: z.string(),
  run_name: z.string(),
  run_finished_at: z.string().nullable(),
  errored_share: z.number(),
  reason: z.string(),
});
export type UnrankedEntry = z.infer<typeof UnrankedEntry>;

export const Leaderboard = z.object({
  benchmark_id: z.string(),
  benchmark_key: z.string(),
  /** how the run of an entry was chosen (see docs/scores.md) */
  selection_rule: z.string(),
  /** the columns at least one entry has a value for */
  columns: z.array(
    z.enum(['rank', 'agent', 'pass_at_1', 'pass_at_k', 'cost_per_task', 'time_per_task', 'tokens_per_task']),
  ),
  entries: z.array(LeaderboardEntry),
  /** a run whose errored share (errored / scored attempts) is over this is listed, not ranked */
  max_errored_share: z.number(),
  /**
   * newer finished runs of a (harness, model) left off the leaderboard for their errors (an
   * engine outage, a broken environment): listed here with why, never ranked
   */
  unranked: z.array(UnrankedEntry),
});
export type Leaderboard = z.infer<typeof Leaderboard>;

export const LeaderboardResponse = z.object({ data: Leaderboard });
export type LeaderboardResponse = z.infer<typeof LeaderboardResponse>;

// ---------------------------------------------------------------------------------------------
// Live progress (server-sent events on GET /v1/runs/:name/stream)

/** One lifecycle event as streamed (same fields as `runs logs`). */
export const StreamRunEvent = z.object({
  id: z.string(),
  timestamp: z.string(),
  level: z.string(),
  step: z.string(),
  message: z.string(),
  details: z.unknown().nullable(),
  attempt_id: z.string().nullable(),
  // the task, agent and try of an attempt event, as GET /v1/runs/:name/events gives them
  ...RunEventAttemptFields.shape,
});
export type StreamRunEvent = z.infer<typeof StreamRunEvent>;

/** `event: progress` data */
export const StreamProgress = z.object({
  run_name: z.string(),
  status: RunStatusName,
  progress: ProgressSnapshot,
});
export type StreamProgress = z.infer<typeof StreamProgress>;

/** `event: end` data: the run reached a terminal status; the final scores */
export const StreamEnd = z.object({
  run_name: z.string(),
  status: RunStatusName,
  results: RunResults,
});
export type StreamEnd = z.infer<typeof StreamEnd>;

/** The `event:` of each frame of a run's stream. */
export const SSE_EVENT_TYPES = ['run-event', 'progress', 'end'] as const;
export type SseEventType = (typeof SSE_EVENT_TYPES)[number];

// ---------------------------------------------------------------------------------------------
// Downloads

/** `trajectories`: each attempt's ATIF trajectory (agent/trajectory.json, a step's too), the artifacts alone */
export const DownloadType = z.enum(['summary', 'results', 'artifacts', 'logs', 'trajectories', 'lock']);
export type DownloadType = z.infer<typeof DownloadType>;
export const DEFAULT_DOWNLOAD_TYPES: readonly DownloadType[] = ['summary', 'results'];

export const ManifestFile = z.object({
  type: DownloadType,
  /** relative to the run folder, `/`-separated: summary.csv, artifacts/<result-id>/<path> */
  path: z.string(),
  size: z.number().int().nonnegative(),
});
export type ManifestFile = z.infer<typeof ManifestFile>;

export const DownloadManifest = z.object({
  run_id: z.string(),
  run_name: z.string(),
  status: RunStatusName,
  /** true when the run is still running: the files are a current snapshot */
  snapshot: z.boolean(),
  /** the time the generated files (CSVs, logs) were computed; pass it back as `at` */
  generated_at: z.string(),
  types: z.array(DownloadType),
  files: z.array(ManifestFile),
  total_size: z.number().int().nonnegative(),
});
export type DownloadManifest = z.infer<typeof DownloadManifest>;

export const DownloadManifestResponse = z.object({ data: DownloadManifest });
export type DownloadManifestResponse = z.infer<typeof DownloadManifestResponse>;

export const DownloadManifestQuery = z.object({
  types: z
    .string()
    .optional()
    .describe('comma-separated: summary, results, artifacts, logs, trajectories, or all'),
});

export const DownloadFileQuery = z.object({
  path: z.string().min(1),
  /** the manifest's generated_at: generated files are reproduced as of this time */
  at: z
    .string()
    .datetime({ offset: true })
    // ISO allows year 0000, which Postgres refuses (a 500 from the first query)
    .refine((at) => Date.parse(at) >= 0, {
      error:
        "must be the generated_at of the run's manifest (GET /v1/runs/:name/downloads/manifest), a time from 1970 on; leave it out for the file as it is now",
    })
    .optional()
    .describe("the manifest's generated_at"),
});

/**
 * Parses a `--type` / `?types=` list: comma-separated names from DownloadType, or `all`.
 * Returns null on an unknown name.
 */
export function parseDownloadTypes(value: string | undefined): DownloadType[] | null {
  if (value === undefined || value.trim() === '') return [...DEFAULT_DOWNLOAD_TYPES];
  const out = new Set<DownloadType>();
  for (const raw of value.split(',')) {
    const name = raw.trim();
    if (name === '') continue;
    if (name === 'all') {
      for (const t of DownloadType.options) out.add(t);
      continue;
    }
    const parsed = DownloadType.safeParse(name);
    if (!parsed.success) return null;
    out.add(parsed.data);
  }
  return DownloadType.options.filter((t) => out.has(t));
}
