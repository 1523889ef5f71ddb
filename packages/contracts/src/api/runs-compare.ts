// Paired comparison of two agents on the same tasks: GET /v1/runs/:name/compare. The statistics
// are computed by @osmosis/core (scoring/paired.ts), whose result type is `PairedComparison`
// below; see docs/scores.md for the method.
import { z } from 'zod';

export const PairedPValueMethod = z.enum(['mcnemar_exact', 'sign_flip_exact', 'sign_flip_monte_carlo']);
export type PairedPValueMethod = z.infer<typeof PairedPValueMethod>;

/**
 * How the interval of the difference was made (docs/scores.md): `sign_flip_inversion` (exact: the
 * differences the sign-flip test does not reject), `no_variation_bound` (every task differs by the
 * same amount), `paired_bootstrap_percentile` (many tasks with many distinct differences).
 */
export const PairedIntervalMethod = z.enum([
  'sign_flip_inversion',
  'no_variation_bound',
  'paired_bootstrap_percentile',
]);
export type PairedIntervalMethod = z.infer<typeof PairedIntervalMethod>;

/** What core's comparePaired returns: agent a against agent b on the tasks both have scored. */
export const PairedComparison = z.object({
  tasks: z
    .number()
    .int()
    .nonnegative()
    .describe('tasks scored by both agents (the others are left out and counted in `excluded`)'),
  excluded: z.number().int().nonnegative().describe('Tasks scored by only one of the two agents, left out'),
  pass_at_1_a: z.number().describe('pass@1 of a on the paired tasks (0–1 fraction)'),
  pass_at_1_b: z.number().describe('pass@1 of b on the paired tasks (0–1 fraction)'),
  difference: z.number().describe('pass@1 of a minus pass@1 of b, on the paired tasks'),
  interval: z
    .object({
      low: z.number().describe('Lower bound of the difference'),
      high: z.number().describe('Upper bound of the difference'),
      level: z.literal(0.95).describe('Confidence level as a fraction: 0.95'),
      method: PairedIntervalMethod.describe('How the interval was made (docs/scores.md)'),
    })
    .describe('95% interval of the difference'),
  p_value: z.number().describe('Two-sided p-value of no difference (0–1)'),
  p_value_method: PairedPValueMethod.describe('The paired test that gave the p-value'),
  wins: z.number().int().nonnegative().describe("per task: a's rate above b's, below, equal"),
  losses: z.number().int().nonnegative().describe("Tasks where a's pass rate is below b's"),
  ties: z.number().int().nonnegative().describe('Tasks where the two pass rates are equal'),
  resamples: z
    .number()
    .int()
    .positive()
    .describe('Resamples of the bootstrap or Monte Carlo test (when one was used)'),
  seed: z.number().int().describe('Seed of those resamples: the same data gives the same result'),
});
export type PairedComparison = z.infer<typeof PairedComparison>;

/** `?other=RUN&agents=A,B`: A and B are agent indexes (as in runs info), models or labels. */
export const RunCompareQuery = z.object({
  other: z
    .string()
    .min(1)
    .max(200)
    .optional()
    .describe('Another run (its name) to take agent b from; absent: both agents of this run'),
  agents: z
    .string()
    .min(1)
    .max(1000)
    .optional()
    .describe(
      '`A,B`: the two agents, each an index (as in runs info), a model or `model (harness)`; absent when each run has one agent',
    ),
});
export type RunCompareQuery = z.infer<typeof RunCompareQuery>;

export const CompareSide = z.object({
  run_id: z.string().describe('The run of this agent'),
  run_name: z.string().describe("That run's name"),
  agent_id: z.string().describe("The agent's id"),
  agent_index: z.number().int().nonnegative().describe("The agent's position in its run config (0-based)"),
  harness: z.string().describe("The agent's harness"),
  model: z.string().describe("The agent's model"),
  label: z.string().describe('`model (harness)`'),
  imported: z
    .boolean()
    .default(false)
    .describe("the side's run was imported from a Harbor job directory, not run here"),
});
export type CompareSide = z.infer<typeof CompareSide>;

const TaskRate = z.object({
  passed: z.number().int().nonnegative().describe('Passed attempts of the task'),
  scored: z.number().int().nonnegative().describe('Scored attempts of the task'),
});

/** A task where the two agents' pass rates differ (rate of a − rate of b ≠ 0). */
export const CompareTaskDifference = z.object({
  task: z.string().describe("The task's name"),
  a: TaskRate.describe("Agent a's attempts on it"),
  b: TaskRate.describe("Agent b's attempts on it"),
  difference: z.number().describe("a's pass rate minus b's on this task (−1 to 1)"),
});
export type CompareTaskDifference = z.infer<typeof CompareTaskDifference>;

/** At most this many differing tasks are listed (largest differences first); the rest are counted. */
export const COMPARE_MAX_LISTED_TASKS = 500;

export const RunComparison = z.object({
  benchmark_key: z.string().describe('The benchmark both agents ran'),
  pass_threshold: z.number().describe('Reward at or above which an attempt passes (0–1)'),
  a: CompareSide.describe('The first agent'),
  b: CompareSide.describe('The second agent'),
  ...PairedComparison.shape,
  differing_tasks: z
    .array(CompareTaskDifference)
    .describe('Tasks whose pass rates differ, largest difference first (at most 500)'),
  differing_tasks_truncated: z.boolean().describe('True when more tasks differ than are listed'),
});
export type RunComparison = z.infer<typeof RunComparison>;

export const RunCompareResponse = z.object({ data: RunComparison.describe('The comparison') });
export type RunCompareResponse = z.infer<typeof RunCompareResponse>;
