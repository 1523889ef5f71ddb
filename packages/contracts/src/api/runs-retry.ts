// Retrying the unscored attempts of an ended run: POST /v1/runs/:name/retry (`?dry_run=true`
// previews and writes nothing). Only errored and cancelled attempts go back to the queue; scored
// ones (passed or failed) are never touched. See docs/scores.md "Retry".
import { z } from 'zod';
import { RunStatusName } from '../run-statuses.ts';

export const RetryRunQuery = z.object({
  dry_run: z
    .enum(['true', 'false'])
    .optional()
    .transform((v) => v === 'true')
    .describe('`true`: say what would be re-queued and what it may cost; nothing is changed'),
});
export type RetryRunQuery = z.infer<typeof RetryRunQuery>;

/** One agent of the run: how many of its attempts would go back to the queue, and their cost. */
export const RetryAgentPlan = z.object({
  agent_index: z.number().int().nonnegative(),
  harness: z.string(),
  model: z.string(),
  errored: z.number().int().nonnegative(),
  cancelled: z.number().int().nonnegative(),
  attempts: z.number().int().nonnegative().describe('errored + cancelled'),
  mean_cost_usd: z
    .number()
    .nullable()
    .describe('mean model cost per attempt, over the attempts that reported one; null when unknown'),
  /** where the mean comes from: this run, earlier runs of the workspace, or nowhere */
  cost_basis: z
    .enum(['this_run', 'earlier_runs', 'no_model', 'unknown'])
    .describe('where the mean cost comes from; `no_model`: a harness that calls no model (oracle, nop), $0'),
  estimated_cost_usd: z.number().nullable(),
});
export type RetryAgentPlan = z.infer<typeof RetryAgentPlan>;

export const RetryRunResult = z.object({
  id: z.string(),
  name: z.string(),
  dry_run: z.boolean(),
  previous_status: RunStatusName.describe(
    "the run's status before (dry run: now) and after the retry (dry run: unchanged)",
  ),
  status: RunStatusName,
  requeued_attempts: z.number().int().nonnegative().describe('attempts re-queued (dry run: that would be)'),
  agents: z.array(RetryAgentPlan),
  estimated_cost_usd: z
    .number()
    .nullable()
    .describe("sum over agents; null when any agent's cost is unknown"),
  cost_note: z.string().nullable().describe('a sentence for humans when the estimate is missing or partial'),
});
export type RetryRunResult = z.infer<typeof RetryRunResult>;
export const RetryRunResponse = z.object({ data: RetryRunResult });
export type RetryRunResponse = z.infer<typeof RetryRunResponse>;
