// A run's cost budget (`[execution] max_cost_usd`, docs/run-config.md): what the submit preview
// estimates against it, and how a run the budget ended says so.
import { z } from 'zod';
import type { RunLifecycleStep } from '../run-events.ts';

/** `stop_reason` (and the run's error_message) of a run the budget ended. */
export const BUDGET_STOP_REASON = 'budget reached';
/** The run event written once, when the spend first reaches the budget. */
export const BUDGET_REACHED_EVENT = 'run.budget_reached' satisfies RunLifecycleStep;

/** One agent's share of the estimate: its model's mean cost per attempt on this benchmark. */
export const CostEstimateAgent = z.object({
  index: z.number().int().describe("The agent's position in the config (0-based)"),
  model: z.string().describe('Its model'),
  attempts: z.number().int().describe('Its attempts in this run'),
  basis_attempts: z
    .number()
    .int()
    .nonnegative()
    .describe('finished attempts of earlier runs of this model on this benchmark that reported a cost'),
  mean_cost_per_attempt_usd: z
    .number()
    .nullable()
    .describe('models and judge, per attempt; null when there is no earlier run to learn from'),
  usd: z.number().nullable().describe('Estimated cost of its attempts, USD; null without a basis'),
  note: z.string().nullable().describe('why there is no estimate: "no earlier run of MODEL on BENCH"'),
});
export type CostEstimateAgent = z.infer<typeof CostEstimateAgent>;

/** The preview's estimate of a run's cost: the sum of its agents' shares, null when one is unknown. */
export const CostEstimate = z.object({
  usd: z.number().nullable().describe("Estimated cost of the run, USD; null when an agent's is unknown"),
  agents: z.array(CostEstimateAgent).describe("Each agent's share"),
  note: z
    .string()
    .nullable()
    .describe('the notes of the agents without an estimate, joined; null when every agent has one'),
});
export type CostEstimate = z.infer<typeof CostEstimate>;
