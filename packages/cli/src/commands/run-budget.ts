// How the CLI shows a run's cost budget (`[execution] max_cost_usd`): in the submit preview, with
// the cost estimated from earlier runs, and in `runs info`.
import type { RunInfo, RunPreview } from '@osmosis/contracts';

const usd = (n: number) => `$${n.toFixed(2)}`;

/** The preview's "Cost" line: the estimate beside the budget, or why there is no estimate. */
export function previewCostText(p: RunPreview): string | null {
  const budget = p.max_cost_usd == null ? 'no budget' : `budget ${usd(p.max_cost_usd)}`;
  const e = p.cost_estimate;
  if (!e) return p.max_cost_usd == null ? null : budget;
  const estimate = e.usd === null ? `no estimate (${e.note ?? 'no earlier run'})` : `estimated ${usd(e.usd)}`;
  const over = e.usd !== null && p.max_cost_usd != null && e.usd > p.max_cost_usd ? ' — over the budget' : '';
  return `${estimate}, ${budget}${over}`;
}

/** `runs info`'s "Budget" line: the budget, and why the run stopped when the budget stopped it. */
export function runBudgetText(run: RunInfo): string | null {
  if (run.max_cost_usd == null) return null;
  const spent = (run.results.totals.cost_usd ?? 0) + (run.results.totals.judge_cost_usd ?? 0);
  return `${usd(run.max_cost_usd)} (spent ${usd(spent)})${run.stop_reason === 'budget reached' ? ' — budget reached' : ''}`;
}
