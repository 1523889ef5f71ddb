// `osmosis benchmark runs info`'s rich view of a run: its head (status, progress, totals,
// settings), the agents' scores and every attempt's outcome.
import type { RunInfo, RunResults } from '@osmosis/contracts';
import {
  formatDate,
  formatDuration,
  formatPassAt1,
  formatPercent,
  formatTokens,
  formatUsd,
  TIED_RANK_NOTE,
} from '../format.ts';
import type { Style } from '../style.ts';
import { renderKeyValue, renderTable } from '../table.ts';
import { qualityLines } from './quality.ts';
import { runBudgetText } from './run-budget.ts';

type AgentRow = RunResults['agents'][number];

export function statusText(status: string, s: Style): string {
  switch (status) {
    case 'finished':
    case 'passed':
      return s.green(status);
    case 'failed':
    case 'errored':
      return s.red(status);
    case 'stopped':
    case 'cancelled':
      return s.yellow(status);
    case 'running':
      return s.cyan(status);
    default:
      return status;
  }
}

interface ProgressLike {
  total: number;
  done: number;
  running: number;
  passed: number;
  failed: number;
  errored: number;
  cancelled: number;
}

export function progressText(p: ProgressLike): string {
  const parts = [`${p.done}/${p.total} done`];
  if (p.running) parts.push(`${p.running} running`);
  return parts.join(', ');
}

function sumMs(a: {
  env_ms: number | null;
  agent_setup_ms: number | null;
  agent_ms: number | null;
  verifier_ms: number | null;
}) {
  const parts = [a.env_ms, a.agent_setup_ms, a.agent_ms, a.verifier_ms].filter(
    (x): x is number => x !== null,
  );
  return parts.length ? parts.reduce((x, y) => x + y, 0) : null;
}

/** Status, progress, totals and settings of the run. */
function runHead(run: RunInfo, s: Style, color: boolean): string {
  const t = run.results.totals;
  return renderKeyValue(
    [
      ['Run', `${run.name} (${run.id})`],
      ['Benchmark', `${run.benchmark_name} (${run.benchmark_key})`],
      ['Status', statusText(run.status, s) + (run.error_message ? ` — ${run.error_message}` : '')],
      ...(run.import_info
        ? [
            [
              'Imported',
              `from Harbor job ${run.import_info.job_name ?? run.import_info.job_id ?? '(unnamed)'}: ${run.import_info.imported_attempts} of ${run.import_info.trials} trials (tasks matched by name)`,
            ] as [string, string],
          ]
        : []),
      // why queued work does not move (no live worker, no engine), and a run kept off the leaderboard
      ...run.waiting.map((w): [string, string] => ['Waiting', s.yellow(w.message)]),
      ...(run.waiting_reason ? [['Waiting', s.yellow(run.waiting_reason)] as [string, string]] : []),
      ...(run.unranked_reason ? [['Leaderboard', s.yellow(run.unranked_reason)] as [string, string]] : []),
      ['Progress', `${progressText(run.progress)} (${formatPercent(run.progress.fraction, 0)})`],
      ['Duration', formatDuration(run.duration_ms)],
      ['Results', `${t.passed} passed, ${t.failed} failed, ${t.errored} errored, ${t.cancelled} cancelled`],
      ['Tokens', `${t.tokens} (in ${t.input_tokens}, out ${t.output_tokens}, cache ${t.cache_tokens})`],
      ['Cost', t.cost_usd === null ? null : formatUsd(t.cost_usd)],
      ['Budget', runBudgetText(run)],
      [
        'Settings',
        `${run.task_count} tasks × ${run.attempts_per_task} attempt(s), concurrency ${run.max_concurrent_attempts}, retries ${run.max_retries}, timeout ×${run.timeout_multiplier}, pass ≥ ${run.pass_threshold}`,
      ],
      [
        'Reused',
        run.reused_from
          ? `${run.reused_from.attempts} finished attempt(s) taken over from run ${run.reused_from.run ?? '(deleted)'}`
          : null,
      ],
      ['Created', `${formatDate(run.created_at)}${run.created_by ? ` by ${run.created_by}` : ''}`],
      ['URL', run.platform_url],
    ],
    { color },
  );
}

/** Each agent's scores: pass@1 with its interval, pass@k, outcomes, cost, time and tokens per task. */
function agentsTable(run: RunInfo, color: boolean): string {
  const k = run.attempts_per_task;
  // one method for every agent: named in the heading; else after each agent's interval
  const mixed = run.results.interval_method === 'mixed';
  return renderTable(
    [
      { header: 'Rank', value: (a) => a.rank_label },
      { header: 'Agent', value: (a) => a.label },
      {
        header: 'Pass@1',
        value: (a) =>
          a.pass_at_1 === null
            ? null
            : `${formatPassAt1(a.pass_at_1, a.interval)}${a.interval && mixed ? ` ${a.interval.method}` : ''}`,
      },
      // pass@k at k = attempts_per_task; with one attempt per task it is pass@1 again
      ...(k > 1
        ? [{ header: `Pass@${k}`, value: (a: AgentRow) => formatPercent(a.deepest?.value ?? null) }]
        : []),
      { header: 'Passed', value: (a) => a.counts.passed, align: 'right' },
      { header: 'Failed', value: (a) => a.counts.failed, align: 'right' },
      { header: 'Errored', value: (a) => a.counts.errored, align: 'right' },
      {
        header: 'Cost/task',
        value: (a) => (a.per_task.cost_usd === null ? null : formatUsd(a.per_task.cost_usd)),
      },
      { header: 'Time/task', value: (a) => formatDuration(a.per_task.time_ms) },
      {
        header: 'Tokens/task',
        value: (a) => (a.per_task.tokens === null ? null : formatTokens(a.per_task.tokens)),
      },
    ],
    run.results.agents,
    { color },
  );
}

/** Every attempt: task, agent, outcome, reward, tries, time and error. */
function attemptsTable(run: RunInfo, s: Style, color: boolean): string {
  const byIndex = new Map(run.agents.map((a) => [a.index, `${a.model} (${a.harness})`]));
  return renderTable(
    [
      { header: 'Task', value: (a) => a.task_name },
      { header: 'Agent', value: (a) => byIndex.get(a.agent_index) ?? String(a.agent_index) },
      { header: '#', value: (a) => a.index, align: 'right' },
      {
        header: 'Outcome',
        value: (a) => `${statusText(a.outcome ?? a.status, s)}${a.reused_from ? s.dim(' (reused)') : ''}`,
      },
      { header: 'Reward', value: (a) => a.reward, align: 'right' },
      { header: 'Tries', value: (a) => a.try_count, align: 'right' },
      { header: 'Time', value: (a) => formatDuration(sumMs(a)), align: 'right' },
      {
        header: 'Error',
        value: (a) => (a.error_class ? `${a.error_class}: ${a.error_message ?? ''}` : null),
        maxWidth: 60,
      },
    ],
    run.attempts,
    { color },
  );
}

export function renderRunInfo(run: RunInfo, s: Style, color: boolean): string {
  const mixed = run.results.interval_method === 'mixed';
  const out = [
    runHead(run, s, color),
    '',
    s.bold(mixed ? 'Agents (interval method per agent)' : `Agents (${run.results.interval_method} interval)`),
    agentsTable(run, color),
    ...(run.results.agents.some((a) => a.tied) ? [s.dim(TIED_RANK_NOTE)] : []),
    ...qualityLines(run.results.agents, s),
    '',
    s.bold('Attempts'),
    attemptsTable(run, s, color),
  ];
  if (run.attempts_truncated) out.push(s.dim('(more attempts: see `osmosis benchmark runs download`)'));
  return out.join('\n');
}
