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
  /** tasks scored by both agents (the others are left out and counted in `excluded`) */
  tasks: z.number().int().nonnegative(),
  excluded: z.number().int().nonnegative(),
  pass_at_1_a: z.number(),
  pass_at_1_b: z.number(),
  /** pass@1 of a minus pass@1 of b, on the paired tasks */
  difference: z.number(),
  interval: z.object({
    low: z.number(),
    high: z.number(),
    level: z.literal(0.95),
    method: PairedIntervalMethod,
  }),
  p_value: z.number(),
  p_value_method: PairedPValueMethod,
  /** per task: a's rate above b's, below, equal */
  wins: z.number().int().nonnegative(),
  losses: z.number().int().nonnegative(),
  ties: z.number().int().nonnegative(),
  resamples: z.number().int().positive(),
  seed: z.number().int(),
});
export type PairedComparison = z.infer<typeof PairedComparison>;

/** `?other=RUN&agents=A,B`: A and B are agent indexes (as in runs info), models or labels. */
export const RunCompareQuery = z.object({
  other: z.string().min(1).max(200).optional(),
  agents: z.string().min(1).max(1000).optional(),
});
export type RunCompareQuery = z.infer<typeof RunCompareQuery>;

export const CompareSide = z.object({
  run_id: z.string(),
  run_name: z.string(),
  agent_id: z.string(),
  agent_index: z.number().int().nonnegative(),
  harness: z.string(),
  model: z.string(),
  /** `model (harness)` */
  label: z.string(),
  /** the side's run was imported from a Harbor job directory, not run here */
  imported: z.boolean().default(false),
});
export type CompareSide = z.infer<typeof CompareSide>;

const TaskRate = z.object({ passed: z.number().int().nonnegative(), scored: z.number().int().nonnegative() });

/** A task where the two agents' pass rates differ (rate of a − rate of b ≠ 0). */
export const CompareTaskDifference = z.object({
  task: z.string(),
  a: TaskRate,
  b: TaskRate,
  difference: z.number(),
});
export type CompareTaskDifference = z.infer<typeof CompareTaskDifference>;

/** At most this many differing tasks are listed (largest differences first); the rest are counted. */
export const COMPARE_MAX_LISTED_TASKS = 500;

export const RunComparison = z.object({
  benchmark_key: z.string(),
  pass_threshold: z.number(),
  a: CompareSide,
  b: CompareSide,
  ...PairedComparison.shape,
  differing_tasks: z.array(CompareTaskDifference),
  differing_tasks_truncated: z.boolean(),
});
export type RunComparison = z.infer<typeof RunComparison>;

export const RunCompareResponse = z.object({ data: RunComparison });
export type RunCompareResponse = z.infer<typeof RunCompareResponse>;
