// What `reuse_from` would take over, shown before anything is created (POST /v1/runs/preview):
// the same plan the submit makes (services/submit-reuse.ts), so a refusal shows in the preview
// too, and the cost estimate and its budget warning count only the attempts still to run.
import { type CostEstimate, locateConfigIssues, type SubmitRunBody } from '@osmosis/contracts';
import type { Db } from '@osmosis/db';
import { budgetWarning, totalUsd } from './run-budget.ts';
import { buildRunLockRecord } from './run-lock-record.ts';
import type { Prepared } from './submit-prepare.ts';
import { planReuse } from './submit-reuse.ts';

/** Each agent's share with its taken-over attempts left out (they cost nothing again). */
export function estimateWithoutReused(
  estimate: CostEstimate,
  reusedByAgent: ReadonlyMap<number, number>,
): CostEstimate {
  const agents = estimate.agents.map((a) => {
    const attempts = Math.max(0, a.attempts - (reusedByAgent.get(a.index) ?? 0));
    const mean = a.mean_cost_per_attempt_usd;
    return { ...a, attempts, usd: mean === null ? null : mean * attempts };
  });
  return {
    ...estimate,
    agents,
    usd: totalUsd(agents),
  };
}

/** Sets `preview.reuse` and recounts the cost when the config or the request names reuse_from. */
export async function previewReuse(
  db: Db,
  workspaceId: string,
  body: SubmitRunBody,
  prepared: Prepared,
): Promise<void> {
  const { config, preview } = prepared;
  const from = body.reuse_from ?? config.execution.reuse_from ?? null;
  if (!from) {
    preview.reuse = null;
    return;
  }
  const record = await buildRunLockRecord(db, prepared, from);
  const plan = await planReuse(db, workspaceId, from, prepared, record, body.file_name);
  const taken = plan.attempts.size;
  preview.reuse = { from: plan.sourceName, attempts: taken, to_run: preview.total_attempts - taken };
  if (!preview.cost_estimate) return;
  preview.cost_estimate = estimateWithoutReused(preview.cost_estimate, plan.perAgent);
  // the budget warning was made from the whole run's estimate: made again from what still runs
  const kept = preview.warnings.filter((w) => w.code !== 'ESTIMATE_OVER_BUDGET');
  const again = locateConfigIssues(
    body.config_toml,
    budgetWarning(preview.cost_estimate, config.execution.max_cost_usd),
  );
  preview.warnings.splice(0, preview.warnings.length, ...kept, ...again);
}
