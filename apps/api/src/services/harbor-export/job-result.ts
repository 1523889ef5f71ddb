// A run as Harbor 0.9's JobResult (harbor/models/job/result.py), written, as Harbor writes it,
// without `trial_results` (the trials' results live in their folders). The stats follow
// JobStats: an errored trial is one with exception_info, a cancelled one has CancelledError,
// `evals` per `<agent>__<model>__<dataset>` with the mean reward, pass@k (only when every reward is
// a single 0/1 value) and the trial names per reward value and per exception type.
import type { ExportRun } from './model.ts';
import type { HarborTrialResult } from './trial-result.ts';

type Trial = Pick<
  HarborTrialResult,
  'trial_name' | 'task_name' | 'agent_info' | 'agent_result' | 'verifier_result' | 'exception_info' | 'source'
>;

/** Harbor's unbiased pass@k over tasks: 1 - C(n-c, k)/C(n, k), averaged. */
function passAtK(byTask: Map<string, number[]>): Record<string, number> {
  const counts = [...byTask.values()];
  if (counts.length === 0) return {};
  const minN = Math.min(...counts.map((r) => r.length));
  const ks = new Set<number>();
  for (let k = 2; k <= minN; k *= 2) ks.add(k);
  for (let k = 5; k <= minN; k += 5) ks.add(k);
  const out: Record<string, number> = {};
  for (const k of [...ks].sort((a, b) => a - b)) {
    let sum = 0;
    for (const rewards of counts) {
      const n = rewards.length;
      const c = rewards.filter((r) => r === 1).length;
      let fail = 1;
      for (let i = 0; i < k; i++) fail *= n - c - i <= 0 ? 0 : (n - c - i) / (n - i);
      sum += 1 - fail;
    }
    out[String(k)] = sum / counts.length;
  }
  return out;
}

function evalStats(trials: Trial[]) {
  const rewardStats: Record<string, Record<string, string[]>> = {};
  const exceptionStats: Record<string, string[]> = {};
  const byTask = new Map<string, number[]>();
  let binary = true;
  let total = 0;
  let nTrials = 0;
  for (const t of trials) {
    if (t.exception_info) {
      const type = t.exception_info.exception_type;
      exceptionStats[type] = [...(exceptionStats[type] ?? []), t.trial_name];
    }
    const rewards = t.verifier_result?.rewards ?? null;
    if (rewards) nTrials += 1;
    const values = rewards ? Object.entries(rewards) : [];
    if (values.length !== 1 || (values[0]![1] !== 0 && values[0]![1] !== 1)) binary = false;
    const first = values[0]?.[1] ?? 0;
    total += first;
    for (const [key, value] of values) {
      const byValue = rewardStats[key] ?? {};
      byValue[String(value)] = [...(byValue[String(value)] ?? []), t.trial_name];
      rewardStats[key] = byValue;
    }
    const list = byTask.get(t.task_name) ?? [];
    list.push(first);
    byTask.set(t.task_name, list);
  }
  return {
    n_trials: nTrials,
    n_errors: trials.filter((t) => t.exception_info).length,
    metrics: [{ mean: trials.length ? total / trials.length : 0 }],
    pass_at_k: binary ? passAtK(byTask) : {},
    reward_stats: rewardStats,
    exception_stats: exceptionStats,
  };
}

function sumOf(trials: Trial[], key: 'n_input_tokens' | 'n_cache_tokens' | 'n_output_tokens' | 'cost_usd') {
  const values = trials.map((t) => t.agent_result?.[key]).filter((v): v is number => typeof v === 'number');
  return values.length ? values.reduce((a, b) => a + b, 0) : null;
}

export function harborJobResult(
  run: ExportRun,
  trials: Trial[],
  counts: { planned: number; running: number; pending: number; retries: number },
) {
  const groups = new Map<string, Trial[]>();
  for (const t of trials) {
    const model = t.agent_info.model_info
      ? [t.agent_info.model_info.provider, t.agent_info.model_info.name].filter(Boolean).join('/')
      : null;
    const key = [t.agent_info.name, model, t.source ?? 'adhoc'].filter(Boolean).join('__');
    groups.set(key, [...(groups.get(key) ?? []), t]);
  }
  const evals = Object.fromEntries([...groups].map(([key, group]) => [key, evalStats(group)]));
  return {
    id: run.id,
    started_at: (run.startedAt ?? run.createdAt).toISOString(),
    updated_at: (run.finishedAt ?? run.startedAt ?? run.createdAt).toISOString(),
    finished_at: run.finishedAt?.toISOString() ?? null,
    n_total_trials: counts.planned,
    stats: {
      n_completed_trials: trials.length,
      n_errored_trials: trials.filter((t) => t.exception_info).length,
      n_running_trials: counts.running,
      n_pending_trials: counts.pending,
      n_cancelled_trials: trials.filter((t) => t.exception_info?.exception_type === 'CancelledError').length,
      n_retries: counts.retries,
      evals,
      n_input_tokens: sumOf(trials, 'n_input_tokens'),
      n_cache_tokens: sumOf(trials, 'n_cache_tokens'),
      n_output_tokens: sumOf(trials, 'n_output_tokens'),
      cost_usd: sumOf(trials, 'cost_usd'),
    },
  };
}
