// Scores of a run, the benchmark leaderboard and live progress over server-sent events (the
// download manifest is in downloads.ts). Every number here comes from stored attempts through the
// pure scorers of @osmosis/core (packages/core/src/scoring); see docs/scores.md for the definitions.
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
  passed: z
    .number()
    .int()
    .nonnegative()
    .describe('Attempts that passed (reward at or above the pass threshold)'),
  failed: z.number().int().nonnegative().describe('Attempts that ran and did not pass'),
  errored: z
    .number()
    .int()
    .nonnegative()
    .describe(
      'Attempts that ended in an error (environment, provider, harness or verifier); scored as not passed',
    ),
  cancelled: z
    .number()
    .int()
    .nonnegative()
    .describe('Attempts cancelled before an outcome (stopped runs); not scored'),
  pending: z.number().int().nonnegative().describe('Attempts without an outcome yet (queued or running)'),
  total: z.number().int().nonnegative().describe('All attempts: the sum of the counts above'),
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
  lower: z.number().describe("Lower bound of pass@1's interval (0–1 fraction)"),
  upper: z.number().describe("Upper bound of pass@1's interval (0–1 fraction)"),
  level: z.number().describe('Confidence level as a fraction (0.95 for a 95% interval)'),
  method: IntervalMethod.describe('wilson, or wilson-clustered when tasks have several scored attempts'),
  effective_n: z.number().describe('the sample size the Wilson formula was given (attempts / design effect)'),
  icc: z.number().nullable().describe('the estimated intra-task correlation (null for plain Wilson)'),
  design_effect: z
    .number()
    .describe('Variance inflation from attempts of one task being correlated (1 for plain Wilson)'),
});
export type ConfidenceInterval = z.infer<typeof ConfidenceInterval>;

export const PassAtK = z.object({
  k: z.number().int().positive().describe('The k of pass@k: attempts per task considered'),
  value: z.number().nullable().describe('null when no task has at least k scored attempts'),
  tasks: z
    .number()
    .int()
    .nonnegative()
    .describe('tasks that entered the average (those with ≥ k scored attempts)'),
});
export type PassAtK = z.infer<typeof PassAtK>;

export const AgentScore = z.object({
  pass_at_1: z
    .number()
    .nullable()
    .describe("mean over scored tasks of each task's pass rate; null when no attempt is scored"),
  interval: ConfidenceInterval.nullable().describe(
    "pass@1's confidence interval; null when no attempt is scored",
  ),
  pass_at_k: z.array(PassAtK).describe('pass@k for each k from 1 to attempts_per_task'),
  deepest: PassAtK.nullable().describe('pass@k at k = attempts_per_task'),
  tasks_scored: z.number().int().nonnegative().describe('Tasks with at least one scored attempt'),
  attempts_scored: z
    .number()
    .int()
    .nonnegative()
    .describe('Attempts scored: passed, failed or errored (cancelled and pending left out)'),
});
export type AgentScore = z.infer<typeof AgentScore>;

export const Ranking = z.object({
  rank: z
    .number()
    .int()
    .positive()
    .nullable()
    .describe('1-based competition rank by pass@1 (equal pass@1, equal rank); null when unscored'),
  tied: z
    .boolean()
    .describe("the agent's interval overlaps the leader's (the leader too, when anyone overlaps it)"),
  rank_label: z
    .string()
    .describe(
      "`#<rank>`, with a star when tied with the leader (`#1*`, `#2*`: its interval overlaps the leader's); `–` when unscored",
    ),
});
export type Ranking = z.infer<typeof Ranking>;

/** Means per attempt ("per task": one try at one task). null = no attempt reported it. */
export const PerTaskUsage = z.object({
  cost_usd: z
    .number()
    .nullable()
    .describe(
      'Mean model cost per attempt, USD (0 for a harness without a model); null when no attempt reported one',
    ),
  time_ms: z
    .number()
    .nullable()
    .describe(
      'Mean time per attempt of its phases (environment, agent setup, agent, verifier), milliseconds; null when none reported one',
    ),
  tokens: z
    .number()
    .nullable()
    .describe('Mean tokens (input + output) per attempt; null when none reported them'),
});
export type PerTaskUsage = z.infer<typeof PerTaskUsage>;

export const UsageTotals = z.object({
  cost_usd: z.number().nullable().describe('null when no attempt reported a cost'),
  judge_cost_usd: z
    .number()
    .nullable()
    .describe('Cost of the judge model over all attempts, USD; null when no judge ran'),
  input_tokens: z.number().describe('Input tokens summed over the attempts that reported them'),
  output_tokens: z.number().describe('Output tokens summed over the attempts that reported them'),
  cache_tokens: z.number().describe('Cached input tokens summed over the attempts that reported them'),
  tokens: z.number().describe('input_tokens + output_tokens'),
});
export type UsageTotals = z.infer<typeof UsageTotals>;

export const RunAgentResult = z.object({
  agent_id: z.string().describe("The agent's id in this run"),
  index: z.number().int().nonnegative().describe("The agent's position in the run config (0-based)"),
  harness: z.string().describe('The harness (agent program), e.g. terminus-2'),
  model: z.string().describe('The model it used, e.g. anthropic/claude-sonnet-4-5'),
  label: z.string().describe('`model (harness)`'),
  ...Ranking.shape,
  ...AgentScore.shape,
  counts: AttemptOutcomeCounts.describe('Its attempts by outcome'),
  per_task: PerTaskUsage.describe('Its mean usage per attempt'),
  totals: UsageTotals.describe('Its usage summed over its attempts'),
  ...AgentQuality.shape,
});
export type RunAgentResult = z.infer<typeof RunAgentResult>;

export const ProgressSnapshot = z.object({
  total: z.number().int().nonnegative().describe('attempts planned (all agents × tasks × attempts_per_task)'),
  done: z.number().int().nonnegative().describe('attempts with an outcome'),
  running: z.number().int().nonnegative().describe('Attempts running now'),
  queued: z.number().int().nonnegative().describe('Attempts waiting for a worker'),
  passed: z.number().int().nonnegative().describe('Attempts that passed'),
  failed: z.number().int().nonnegative().describe('Attempts that ran and did not pass'),
  errored: z.number().int().nonnegative().describe('Attempts that errored'),
  cancelled: z.number().int().nonnegative().describe('Attempts cancelled'),
  fraction: z.number().describe('done / total, 0..1'),
});
export type ProgressSnapshot = z.infer<typeof ProgressSnapshot>;

export const RunResults = z.object({
  run_id: z.string().describe("The run's id"),
  run_name: z.string().describe("The run's name, unique in the workspace"),
  status: RunStatusName.describe("The run's status"),
  benchmark_id: z.string().describe('Id of the benchmark it ran'),
  benchmark_key: z.string().describe('Key of the benchmark it ran'),
  task_count: z.number().int().nonnegative().describe('Tasks in the run'),
  attempts_per_task: z.number().int().positive().describe('Attempts of each task by each agent'),
  created_at: z.string().describe('When it was submitted (ISO 8601, UTC)'),
  started_at: z.string().nullable().describe('When its first attempt started; null before'),
  finished_at: z.string().nullable().describe('When it reached a terminal status; null before'),
  duration_ms: z
    .number()
    .nullable()
    .describe('finished_at (or now, while running) − started_at, in ms; null before it starts'),
  progress: ProgressSnapshot.describe('Attempts done, running and queued'),
  totals: z
    .object({ ...AttemptOutcomeCounts.shape, ...UsageTotals.shape })
    .describe('Attempt counts and usage over all agents'),
  agents: z.array(RunAgentResult).describe('sorted by rank (unscored agents last, by index)'),
  interval_method: RunIntervalMethod.describe(
    `the interval method of the agents' intervals: "wilson", "wilson-clustered", or "mixed" when agents differ (see each agent's interval.method); with no interval yet, the method the settings call for (attempts_per_task > 1: "wilson-clustered")`,
  ),
  interval_level: z.number().describe('Confidence level of the intervals, as a fraction (0.95)'),
});
export type RunResults = z.infer<typeof RunResults>;

export const RunResultsResponse = z.object({ data: RunResults.describe("The run's scores") });
export type RunResultsResponse = z.infer<typeof RunResultsResponse>;

// ---------------------------------------------------------------------------------------------
// Leaderboard

export const LeaderboardEntry = z.object({
  ...Ranking.shape,
  harness: z.string().describe('The harness (agent program)'),
  model: z.string().describe('The model'),
  label: z.string().describe('`model (harness)`'),
  pass_at_1: z
    .number()
    .nullable()
    .describe("Mean over tasks of each task's pass rate (0–1 fraction); null when unscored"),
  interval: ConfidenceInterval.nullable().describe("pass@1's confidence interval; null when unscored"),
  pass_at_k: PassAtK.nullable().describe("the deepest pass@k of the entry's run (k = its attempts_per_task)"),
  per_task: PerTaskUsage.describe('Mean usage per attempt'),
  run_id: z.string().describe("The run the entry's scores come from"),
  run_name: z.string().describe("That run's name"),
  run_finished_at: z.string().nullable().describe('When that run finished; null if it has not'),
  attempts_per_task: z.number().int().positive().describe('Attempts per task in that run'),
  task_set: z.string().describe(`"full" or the recommended task set's name`),
  tasks_scored: z.number().int().nonnegative().describe('Tasks with at least one scored attempt'),
  comparability: Comparability.nullable()
    .optional()
    .describe(
      'Whether the score is comparable with published terminus-2 scores; null when the benchmark has none',
    ),
  imported: z
    .boolean()
    .default(false)
    .describe("the entry's run was imported from a Harbor job directory (ranked apart, when asked for)"),
});
export type LeaderboardEntry = z.infer<typeof LeaderboardEntry>;

/** a newer finished run of a (harness, model) left off the leaderboard, and why */
export const UnrankedEntry = z.object({
  harness: z.string().describe('The harness'),
  model: z.string().describe('The model'),
  label: z.string().describe('`model (harness)`'),
  run_id: z.string().describe('The run left off'),
  run_name: z.string().describe("That run's name"),
  run_finished_at: z.string().nullable().describe('When that run finished'),
  errored_share: z.number().describe('Errored / scored attempts of that run (0–1 fraction)'),
  reason: z.string().describe('Why it is not ranked, for people'),
});
export type UnrankedEntry = z.infer<typeof UnrankedEntry>;

export const Leaderboard = z.object({
  benchmark_id: z.string().describe("The benchmark's id"),
  benchmark_key: z.string().describe("The benchmark's key"),
  selection_rule: z.string().describe('how the run of an entry was chosen (see docs/scores.md)'),
  columns: z
    .array(
      z.enum([
        'rank',
        'agent',
        'pass_at_1',
        'pass_at_k',
        'cost_per_task',
        'time_per_task',
        'tokens_per_task',
      ]),
    )
    .describe('the columns at least one entry has a value for'),
  entries: z.array(LeaderboardEntry).describe('One entry per (harness, model), best rank first'),
  imported_entries: z
    .array(LeaderboardEntry)
    .default([])
    .describe(
      'with `include_imported`: entries of imported runs, ranked among themselves, never among the runs made here; empty otherwise',
    ),
  max_errored_share: z
    .number()
    .describe('a run whose errored share (errored / scored attempts) is over this is listed, not ranked'),
  unranked: z
    .array(UnrankedEntry)
    .describe(
      'newer finished runs of a (harness, model) left off the leaderboard for their errors (an engine outage, a broken environment): listed here with why, never ranked',
    ),
});
export type Leaderboard = z.infer<typeof Leaderboard>;

export const LeaderboardResponse = z.object({ data: Leaderboard.describe('The leaderboard') });
export type LeaderboardResponse = z.infer<typeof LeaderboardResponse>;

// ---------------------------------------------------------------------------------------------
// Live progress (server-sent events on GET /v1/runs/:name/stream)

/** One lifecycle event as streamed (same fields as `runs logs`). */
export const StreamRunEvent = z.object({
  id: z.string().describe("The event's id (increasing within the run); a cursor for paging and streams"),
  timestamp: z.string().describe('When it happened (ISO 8601, UTC)'),
  level: z.string().describe('debug, info, warn or error'),
  step: z.string().describe('What happened, e.g. run.queued, attempt.finished'),
  message: z.string().describe('The event for people, secrets scrubbed'),
  details: z
    .unknown()
    .nullable()
    .describe('Particulars of the event, by step (counts, error class, …); null when none'),
  attempt_id: z.string().nullable().describe('The attempt it is about; null for a run event'),
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
