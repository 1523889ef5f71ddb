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
  agent_index: z.number().int().nonnegative().describe("The agent's position in the run config (0-based)"),
  harness: z.string().describe("The agent's harness"),
  model: z.string().describe("The agent's model"),
  errored: z.number().int().nonnegative().describe('Its errored attempts re-queued'),
  cancelled: z.number().int().nonnegative().describe('Its cancelled attempts re-queued'),
  attempts: z.number().int().nonnegative().describe('errored + cancelled'),
  mean_cost_usd: z
    .number()
    .nullable()
    .describe('mean model cost per attempt, over the attempts that reported one; null when unknown'),
  /** where the mean comes from: this run, earlier runs of the workspace, or nowhere */
  cost_basis: z
    .enum(['this_run', 'earlier_runs', 'no_model', 'unknown'])
    .describe('where the mean cost comes from; `no_model`: a harness that calls no model (oracle, nop), $0'),
  estimated_cost_usd: z.number().nullable().describe('attempts × mean_cost_usd, USD; null when unknown'),
});
export type RetryAgentPlan = z.infer<typeof RetryAgentPlan>;

export const RetryRunResult = z.object({
  id: z.string().describe("The run's id"),
  name: z.string().describe("The run's name"),
  dry_run: z.boolean().describe('True when nothing was changed (a preview)'),
  previous_status: RunStatusName.describe(
    "the run's status before (dry run: now) and after the retry (dry run: unchanged)",
  ),
  status: RunStatusName.describe("The run's status after the retry (queued), or unchanged in a dry run"),
  requeued_attempts: z.number().int().nonnegative().describe('attempts re-queued (dry run: that would be)'),
  agents: z.array(RetryAgentPlan).describe("Each agent's share of the retry"),
  estimated_cost_usd: z
    .number()
    .nullable()
    .describe("sum over agents; null when any agent's cost is unknown"),
  cost_note: z.string().nullable().describe('a sentence for humans when the estimate is missing or partial'),
});
export type RetryRunResult = z.infer<typeof RetryRunResult>;
export const RetryRunResponse = z.object({
  data: RetryRunResult.describe('The retry (or its preview with dry_run)'),
});
export type RetryRunResponse = z.infer<typeof RetryRunResponse>;
