// How `benchmark list` and `benchmark info` show a benchmark: table columns, the human info page
// and the `--plain` rows.
import type { Benchmark, BenchmarkDetail } from '@osmosis/contracts';
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
import { EMPTY_CELL, renderKeyValue, renderTable } from '../table.ts';
import { comparableColumn } from './quality.ts';

/** "Syncing · 12 / 89 tasks" and friends: what Last Run shows while a benchmark is not ready. */
export function syncText(
  b: Pick<Benchmark, 'sync_status' | 'synced_task_count' | 'expected_task_count' | 'sync_error'>,
): string | null {
  switch (b.sync_status) {
    case 'pending':
      return 'Waiting to sync';
    case 'syncing':
      return b.expected_task_count === null
        ? `Syncing · ${b.synced_task_count} tasks`
        : `Syncing · ${b.synced_task_count} / ${b.expected_task_count} tasks`;
    case 'failed':
      return `Sync failed: ${b.sync_error ?? 'unknown error'}`;
    default:
      return null;
  }
}

function lastRunText(b: Benchmark): string {
  const sync = syncText(b);
  if (sync) return sync;
  if (!b.last_run) return EMPTY_CELL;
  return `${b.last_run.name} · ${b.last_run.status} · ${formatDate(b.last_run.created_at)}`;
}

function tasksText(b: Benchmark): string | number {
  if (b.sync_status === 'failed') return 'unavailable';
  if (b.sync_status !== 'ready') return EMPTY_CELL;
  return b.task_count;
}

export function benchmarkColumns() {
  return [
    { header: 'Name', value: (b: Benchmark) => b.name, noShrink: true },
    { header: 'Key', value: (b: Benchmark) => b.key, noShrink: true },
    { header: 'Last Run', value: (b: Benchmark) => lastRunText(b) },
    { header: 'Tasks', value: (b: Benchmark) => tasksText(b), align: 'right' as const },
  ];
}

function sourceText(b: Benchmark): string {
  const s = b.source as Record<string, string | null | undefined>;
  switch (b.source_kind) {
    case 'git':
      return `git ${s.url}${s.ref ? ` @ ${s.ref}` : ''}${s.path ? ` (${s.path})` : ''}${b.source_commit ? `, synced at commit ${b.source_commit}` : ''}`;
    case 'archive':
      return `uploaded archive${s.path ? ` (${s.path})` : ''}`;
    default: {
      const version = s.resolved_version ? ` → ${s.resolved_version}` : '';
      const where = s.registry_url ? ` from ${s.registry_url}` : ' from an uploaded registry';
      const catalog = b.source_kind === 'catalog' ? `catalog ${s.catalog_key}: ` : '';
      return `${catalog}registry dataset ${s.dataset}${version}${where}`;
    }
  }
}

/** Every field of the benchmark, as `Label: value` lines. */
function benchmarkFields(b: BenchmarkDetail, color: boolean): string {
  const diff = b.difficulty_counts;
  const sync = syncText(b);
  const judge = b.requires_judge_model
    ? `required${b.judge_kind ? ` (${b.judge_kind})` : ''}; default model ${b.judge_model_default ?? 'none'}`
    : 'not required';
  const requirements = Object.entries(b.harness_requirements);
  const pairs: Array<[string, string | number | null]> = [
    ['Key', b.key],
    ['Name', b.name],
    ['Description', b.description],
    ['Source URL', b.source_url],
    ['Source', sourceText(b)],
    ['Sync', sync ?? `ready · ${b.synced_task_count} tasks`],
    [
      'Tasks',
      b.sync_status === 'failed' && b.task_count === 0
        ? 'unavailable'
        : `${b.task_count} (easy ${diff.easy}, medium ${diff.medium}, hard ${diff.hard}, unrated ${diff.none})` +
          (b.unsupported_task_count ? `; ${b.unsupported_task_count} not runnable` : ''),
    ],
    ['Categories', b.category_count ? `${b.category_count}: ${b.categories.join(', ')}` : null],
    [
      'Task sets',
      b.task_sets.length
        ? b.task_sets
            .map(
              (t) =>
                `${t.name} (${t.task_count} task${t.task_count === 1 ? '' : 's'}${t.recommended ? ', recommended' : ''})${t.description ? `: ${t.description.replace(/\.$/, '')}` : ''}`,
            )
            .join('; ')
        : null,
    ],
    ['Default harness', b.default_harness],
    [
      'Harness requirements',
      requirements.length ? requirements.map(([k, v]) => `${k}: ${String(v)}`).join('; ') : 'none',
    ],
    ['Judge model', judge],
    ['Pass threshold', String(b.pass_threshold)],
    ['Required secrets', b.required_secret_names.length ? b.required_secret_names.join(', ') : 'none'],
    ['Platform URL', b.platform_url],
  ];
  return renderKeyValue(pairs, { color });
}

/** Leaderboard entries as a table. */
function boardTable(board: BenchmarkDetail['leaderboard'], color: boolean): string {
  return renderTable(
    [
      { header: 'Rank', value: (e) => e.rank_label },
      { header: 'Agent', value: (e) => e.label },
      {
        header: 'Pass@1',
        value: (e) => formatPassAt1(e.pass_at_1, e.interval),
      },
      {
        header: 'Pass@k',
        value: (e) => (e.pass_at_k ? `${formatPercent(e.pass_at_k.value)} (k=${e.pass_at_k.k})` : null),
      },
      {
        header: 'Cost/task',
        value: (e) => (e.per_task.cost_usd === null ? null : formatUsd(e.per_task.cost_usd)),
        align: 'right',
      },
      {
        header: 'Time/task',
        value: (e) => (e.per_task.time_ms === null ? null : formatDuration(e.per_task.time_ms)),
        align: 'right',
      },
      {
        header: 'Tokens/task',
        value: (e) => (e.per_task.tokens === null ? null : formatTokens(e.per_task.tokens)),
        align: 'right',
      },
      ...comparableColumn(board),
      { header: 'Run', value: (e) => e.run_name },
    ],
    board,
    { color },
  );
}

/** The leaderboard (the first `limit` entries), and the newer runs kept off it and why. */
function leaderboardSection(b: BenchmarkDetail, s: Style, limit: number | null, color: boolean): string[] {
  const out: string[] = [];
  const board = limit === null ? b.leaderboard : b.leaderboard.slice(0, limit);
  const boardMore =
    board.length < b.leaderboard.length
      ? s.dim(`showing ${board.length} of ${b.leaderboard.length}; --all for every entry`)
      : null;
  if (board.length === 0)
    out.push('No leaderboard entries yet: runs on the full task set (or a recommended set) appear here.');
  else {
    out.push(boardTable(board, color));
    if (board.some((e) => e.tied)) out.push(s.dim(TIED_RANK_NOTE));
    if (boardMore) out.push(boardMore);
  }
  // newer runs kept off the board for their errors: say why an expected entry is missing
  for (const u of b.leaderboard_unranked ?? []) {
    out.push(s.yellow(`Not ranked: ${u.label}, run ${u.run_name}: ${u.reason}`));
  }

  return out;
}

/** The benchmark's newest runs (the first `limit`). */
function runsSection(b: BenchmarkDetail, s: Style, limit: number | null, color: boolean): string[] {
  const out: string[] = [];
  const runs = limit === null ? b.runs : b.runs.slice(0, limit);
  // run_count: every run of the workspace on it; b.runs may hold only the newest of them
  const runCount = Math.max(b.run_count, b.runs.length);
  if (runs.length === 0) out.push(`No runs yet. Submit one with \`osmosis benchmark submit CONFIG\`.`);
  else {
    out.push(
      renderTable(
        [
          { header: 'Name', value: (r) => r.name, noShrink: true },
          { header: 'Status', value: (r) => r.status },
          { header: 'Tasks', value: (r) => r.task_count, align: 'right' },
          { header: 'Created', value: (r) => formatDate(r.created_at) },
        ],
        runs,
        { color },
      ),
    );
    if (runs.length < runCount) out.push(s.dim(`showing ${runs.length} of ${runCount}; --all for every run`));
  }
  return out;
}

/** The human `benchmark info` page: every field of the benchmark, then the leaderboard and the runs. */
export function renderBenchmarkInfo(
  b: BenchmarkDetail,
  s: Style,
  limit: number | null,
  color = false,
): string {
  return [
    benchmarkFields(b, color),
    '',
    s.bold('Leaderboard'),
    ...leaderboardSection(b, s, limit, color),
    ...(b.leaderboard_imported.length
      ? [
          '',
          s.bold('Imported runs (from Harbor job directories, ranked apart)'),
          boardTable(b.leaderboard_imported, color),
        ]
      : []),
    '',
    s.bold('Runs'),
    ...runsSection(b, s, limit, color),
  ].join('\n');
}

/** `benchmark info --plain`: upstream's `Label: value` rows, then the leaderboard and runs lines. */
export function benchmarkInfoPlain(b: BenchmarkDetail): Array<[string, string | number | null] | string> {
  const judge = b.requires_judge_model
    ? `Required${b.judge_model_default ? ` (default: ${b.judge_model_default})` : ''}`
    : '–';
  const lines: Array<[string, string | number | null] | string> = [
    ['Name', b.name],
    ['Key', b.key],
    ['Description', b.description ?? '–'],
    ['Source', b.source_url ?? sourceText(b)],
    ['Runner', 'harbor'],
    ['Tasks', b.sync_status === 'failed' ? 'unavailable' : b.task_count],
    ['Categories', b.categories.length ? b.categories.join(', ') : '–'],
    [
      'Named Task Sets',
      b.task_sets.length
        ? b.task_sets
            .map((t) => `${t.name} (${t.task_count}${t.recommended ? ', recommended' : ''})`)
            .join(', ')
        : '–',
    ],
    ['Harness', `Optional (default: ${b.default_harness})`],
    ['LLM Judge', judge],
    ['Pass Threshold', b.pass_threshold],
    ['Runs', b.run_count],
    '',
    'Leaderboard:',
  ];
  if (b.leaderboard.length === 0) lines.push('No eligible benchmark runs yet.');
  for (const e of b.leaderboard) {
    lines.push([e.rank_label, e.label, `pass@1 ${formatPassAt1(e.pass_at_1, e.interval)}`].join(' · '));
  }
  if (b.leaderboard.some((e) => e.tied)) lines.push(TIED_RANK_NOTE);
  if (b.runs.length > 0) {
    lines.push('', `Runs (${b.runs.length} of ${b.run_count}):`);
    for (const r of b.runs) lines.push([r.name, `[${r.status}]`, r.created_at].join(' · '));
  }
  return lines;
}
