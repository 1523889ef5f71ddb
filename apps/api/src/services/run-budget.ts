// A run's cost budget in the API (`[execution] max_cost_usd`, docs/run-config.md): why a stopped run stopped, and the submit
// preview's estimate of a run's cost from earlier runs of the same benchmark and models.
import {
  BUDGET_STOP_REASON,
  type ConfigIssue,
  type CostEstimate,
  type CostEstimateAgent,
  isModelFreeHarness,
  type RunPreview,
  type RunStatusName,
} from '@osmosis/contracts';
import type { Db } from '@osmosis/db';

/** What an agent without a cost history costs per attempt: $0 when its harness calls no model. */
export function costWithoutHistory(harness: string): { mean: number | null; basis: 'no_model' | 'unknown' } {
  return isModelFreeHarness(harness) ? { mean: 0, basis: 'no_model' } : { mean: null, basis: 'unknown' };
}

/** `stop_reason` of `runs info`: "budget reached", "stopped by EMAIL"; null unless the run is stopped. */
export async function stopReasonOf(
  db: Db,
  run: { id: string; status: RunStatusName; errorMessage: string | null },
): Promise<string | null> {
  if (run.status !== 'stopped') return null;
  if (run.errorMessage === BUDGET_STOP_REASON) return BUDGET_STOP_REASON;
  const event = await db.runEvent.findFirst({
    where: { runId: run.id, step: 'run.stopped' },
    orderBy: { id: 'desc' },
    select: { details: true },
  });
  const by = (event?.details as { by?: unknown } | null)?.by;
  return typeof by === 'string' && by.length > 0 ? `stopped by ${by}` : 'stopped';
}

/**
 * Mean cost per attempt (models and judge, every earlier execution of an attempt included) of
 * each model over the finished attempts of earlier runs of the benchmark in the workspace that
 * ended `finished`; × the attempts each agent will make. Unknown when a model has no such run.
 */
export async function estimateRunCost(
  db: Db,
  input: {
    workspaceId: string;
    benchmarkId: string;
    benchmarkKey: string;
    agents: Pick<RunPreview['agents'][number], 'index' | 'model' | 'harness'>[];
    attemptsPerAgent: number;
  },
): Promise<CostEstimate> {
  const models = [...new Set(input.agents.map((a) => a.model))];
  const rows = await db.$queryRaw<{ model: string; attempts: number; cost: number }[]>`
    SELECT ag.model, count(*)::int AS attempts,
      sum(coalesce(a.cost_usd, 0) + coalesce(a.judge_cost_usd, 0))::float8 AS cost
    FROM attempts a
    JOIN run_agents ag ON ag.id = a.agent_id
    JOIN runs r ON r.id = a.run_id
    WHERE r.workspace_id = ${input.workspaceId}::uuid AND r.benchmark_id = ${input.benchmarkId}::uuid
      AND r.status = 'finished' AND ag.model = ANY(${models})
      AND a.status = 'finished' AND (a.cost_usd IS NOT NULL OR a.judge_cost_usd IS NOT NULL)
    GROUP BY ag.model`;
  const byModel = new Map(rows.map((r) => [r.model, r]));
  const agents: CostEstimateAgent[] = input.agents.map((agent) => {
    const known = byModel.get(agent.model);
    // a harness that calls no model costs $0 when no earlier run says otherwise (a judge would)
    const mean =
      known && known.attempts > 0
        ? known.cost / known.attempts
        : isModelFreeHarness(agent.harness)
          ? 0
          : null;
    return {
      index: agent.index,
      model: agent.model,
      attempts: input.attemptsPerAgent,
      basis_attempts: known?.attempts ?? 0,
      mean_cost_per_attempt_usd: mean,
      usd: mean === null ? null : mean * input.attemptsPerAgent,
      note: mean === null ? `no earlier run of ${agent.model} on ${input.benchmarkKey}` : null,
    };
  });
  const notes = [...new Set(agents.flatMap((a) => (a.note ? [a.note] : [])))];
  return {
    usd: totalUsd(agents),
    agents,
    note: notes.length > 0 ? notes.join('; ') : null,
  };
}

/** The run's estimate: the agents' shares summed, unknown when any agent's is. */
export function totalUsd(agents: readonly Pick<CostEstimateAgent, 'usd'>[]): number | null {
  return agents.every((a) => a.usd !== null) ? agents.reduce((sum, a) => sum + (a.usd ?? 0), 0) : null;
}

/** The preview's warning when the estimate exceeds the budget (the run would stop before its end). */
export function budgetWarning(estimate: CostEstimate, maxCostUsd: number | undefined): ConfigIssue[] {
  if (maxCostUsd === undefined || estimate.usd === null || estimate.usd <= maxCostUsd) return [];
  return [
    {
      code: 'ESTIMATE_OVER_BUDGET',
      path: 'execution.max_cost_usd',
      message: `the run is estimated to cost $${estimate.usd.toFixed(2)} (from earlier runs of its models on this benchmark), more than max_cost_usd = ${maxCostUsd} in [execution]: it will likely stop with "budget reached" before every attempt ran; raise the budget or select fewer tasks`,
    },
  ];
}
