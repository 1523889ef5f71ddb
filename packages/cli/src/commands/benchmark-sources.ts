// `osmosis benchmark add | list | info | sync | delete`: benchmarks of the workspace and where
// their tasks come from. The `benchmark` group (benchmark-group.ts) adds them with
// `registerBenchmarkSources(benchmark)`.
//
// `benchmark add SOURCE` reads SOURCE as, in this order:
//   - a local directory of Harbor tasks → packed (deterministic tar.gz, no `.git`, links stored
//     as links and never followed) and uploaded;
//   - a local `.tar.gz` / `.tgz` / `.tar` file → uploaded as is;
//   - with `--registry URL|FILE`: a dataset `name@version` (no version: the highest) of that
//     Harbor registry (a local file is uploaded);
//   - a git URL (`https://…`, `git://…`, `ssh://…`, `git@host:…`, `file://…`, or ending in `.git`),
//     with `--ref` and `--path`;
//   - otherwise a key of the platform's catalog (`terminal-bench-2-1`, `hle`, `gdpval`).
import { createReadStream, existsSync, readFileSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import type { Benchmark, BenchmarkDetail } from '@osmosis/contracts';
import type { Command } from 'commander';
import { authenticatedClient } from '../api.ts';
import { type Context, contextOf } from '../context.ts';
import { CliError, usageError } from '../errors.ts';
import { addListOptions } from '../options.ts';
import { note, printAction, printList, printObject, step } from '../output.ts';
import { confirm } from '../prompt.ts';
import type { Style } from '../style.ts';
import { EMPTY_CELL, renderKeyValue, renderTable } from '../table.ts';
import { benchmarkInfoData, benchmarkItem } from './benchmark-shapes.ts';
import { comparableColumn } from './quality.ts';

const GIT_URL = /^(https?:\/\/|git:\/\/|ssh:\/\/|file:\/\/|git@[^:]+:)|\.git\/?$/;

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
  return `${b.last_run.name} · ${b.last_run.status} · ${b.last_run.created_at.slice(0, 10)}`;
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
      return `git ${s.url}${s.ref ? ` @ ${s.ref}` : ''}${s.path ? ` (${s.path})` : ''}`;
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

function pct(value: number | null | undefined): string {
  return value === null || value === undefined ? EMPTY_CELL : `${(value * 100).toFixed(1)}%`;
}

/** The human `benchmark info` page: every SPEC field, then the leaderboard and the runs. */
export function renderBenchmarkInfo(
  b: BenchmarkDetail,
  s: Style,
  limit: number | null,
  color = false,
): string {
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
  const out = [renderKeyValue(pairs, { color })];

  out.push('', s.bold('Leaderboard'));
  const board = limit === null ? b.leaderboard : b.leaderboard.slice(0, limit);
  const boardMore =
    board.length < b.leaderboard.length
      ? s.dim(`showing ${board.length} of ${b.leaderboard.length}; --all for every entry`)
      : null;
  if (board.length === 0)
    out.push('No leaderboard entries yet: runs on the full task set (or a recommended set) appear here.');
  else {
    out.push(
      renderTable(
        [
          { header: 'Rank', value: (e) => e.rank_label },
          { header: 'Agent', value: (e) => e.label },
          {
            header: 'Pass@1',
            value: (e) =>
              e.interval
                ? `${pct(e.pass_at_1)} (${(e.interval.lower * 100).toFixed(1)}–${(e.interval.upper * 100).toFixed(1)})`
                : pct(e.pass_at_1),
          },
          {
            header: 'Pass@k',
            value: (e) => (e.pass_at_k ? `${pct(e.pass_at_k.value)} (k=${e.pass_at_k.k})` : null),
          },
          {
            header: 'Cost/task',
            value: (e) => (e.per_task.cost_usd === null ? null : `$${e.per_task.cost_usd.toFixed(4)}`),
            align: 'right',
          },
          {
            header: 'Time/task',
            value: (e) => (e.per_task.time_ms === null ? null : `${(e.per_task.time_ms / 1000).toFixed(1)}s`),
            align: 'right',
          },
          {
            header: 'Tokens/task',
            value: (e) => (e.per_task.tokens === null ? null : Math.round(e.per_task.tokens)),
            align: 'right',
          },
          ...comparableColumn(board),
          { header: 'Run', value: (e) => e.run_name },
        ],
        board,
        { color },
      ),
    );
    if (boardMore) out.push(boardMore);
  }

  out.push('', s.bold('Runs'));
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
          { header: 'Created', value: (r) => r.created_at },
        ],
        runs,
        { color },
      ),
    );
    if (runs.length < runCount) out.push(s.dim(`showing ${runs.length} of ${runCount}; --all for every run`));
  }
  return out.join('\n');
}

/**
 * A directory packed as a gzip tar stream by the platform's packer (@osmosis/archive, loaded
 * only here so the CLI starts fast): deterministic, no `.git`, links stored as links and never
 * followed. `failure` holds the packer's error, if any, once the upload has ended.
 */
async function packDirectory(dir: string): Promise<{ stream: Readable; failure: () => Error | null }> {
  const { packDirectory: pack } = await import('@osmosis/archive');
  // the folder the user named may itself be a link: pack the folder it points to
  const stream = pack(realpathSync(dir), { gzip: true, exclude: ['.git'] });
  let error: Error | null = null;
  stream.on('error', (e: Error) => {
    error = e;
  });
  return { stream, failure: () => error };
}

interface AddOptions {
  ref?: string;
  path?: string;
  registry?: string;
  key?: string;
  name?: string;
  description?: string;
  sourceUrl?: string;
  defaultHarness?: string;
  passThreshold?: number;
  judgeModel?: string;
  judgeKind?: string;
  requiredSecret?: string[];
  wait?: boolean;
}

function metadataOf(options: AddOptions): Record<string, unknown> {
  const m: Record<string, unknown> = {
    key: options.key,
    name: options.name,
    description: options.description,
    source_url: options.sourceUrl,
    default_harness: options.defaultHarness,
    pass_threshold: options.passThreshold,
    requires_judge_model: options.judgeModel || options.judgeKind ? true : undefined,
    judge_model_default: options.judgeModel,
    judge_kind: options.judgeKind,
    required_secret_names: options.requiredSecret,
  };
  return Object.fromEntries(Object.entries(m).filter(([, v]) => v !== undefined));
}

async function waitUntilSynced(
  ctx: Context,
  client: ReturnType<typeof authenticatedClient>,
  key: string,
): Promise<Benchmark> {
  const { BenchmarkResponse } = await import('@osmosis/contracts');
  let last = '';
  for (;;) {
    const b = (await client.get(`/v1/benchmarks/${encodeURIComponent(key)}`, BenchmarkResponse)).data;
    const text = syncText(b) ?? 'ready';
    if (text !== last) note(ctx, `${b.key}: ${text}`);
    last = text;
    if (b.sync_status === 'ready' || b.sync_status === 'failed') return b;
    await new Promise((r) => setTimeout(r, 500));
  }
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
    const interval = e.interval
      ? ` (${(e.interval.lower * 100).toFixed(1)}–${(e.interval.upper * 100).toFixed(1)})`
      : '';
    lines.push([e.rank_label, e.label, `pass@1 ${pct(e.pass_at_1)}${interval}`].join(' · '));
  }
  if (b.runs.length > 0) {
    lines.push('', `Runs (${b.runs.length} of ${b.run_count}):`);
    for (const r of b.runs) lines.push([r.name, `[${r.status}]`, r.created_at].join(' · '));
  }
  return lines;
}

export function registerBenchmarkSources(benchmark: Command): void {
  benchmark
    .command('add <source>')
    .summary(
      'Add a benchmark from a task folder or archive, a git repository, a registry dataset or the catalog',
    )
    .description(
      'Add a benchmark to the workspace. SOURCE is a local folder of Harbor tasks (packed and uploaded),\n' +
        'a .tar.gz of task folders, a git URL (with --ref/--path), a registry dataset name@version\n' +
        '(with --registry URL or FILE), or a catalog key (terminal-bench-2-1, hle, gdpval).\n' +
        'Registry and git benchmarks sync in the background: see `osmosis benchmark list`.',
    )
    .option('--ref <ref>', 'git: branch, tag or commit (default: the remote HEAD)')
    .option('--path <path>', 'git or archive: the sub-folder holding the tasks')
    .option(
      '--registry <url|file>',
      'SOURCE is a dataset of this Harbor registry (URL, or a local JSON file to upload)',
    )
    .option('--key <key>', 'benchmark key (shell-safe slug)')
    .option('--name <name>', 'exact benchmark name')
    .option('--description <text>', 'description')
    .option('--source-url <url>', 'upstream project or adapter repository')
    .option('--default-harness <harness>', 'harness the published scores were measured with')
    .option('--pass-threshold <x>', 'reward needed to pass (0–1)', (v) => {
      const n = Number(v);
      if (!Number.isFinite(n) || n < 0 || n > 1)
        throw usageError(`--pass-threshold must be between 0 and 1 (got "${v}")`);
      return n;
    })
    .option('--judge-model <model>', 'the benchmark is graded by an LLM judge; its default model')
    .option('--judge-kind <kind>', 'which judge grades it (hle, gdpval)')
    .option(
      '--required-secret <NAME>',
      'a secret record the benchmark itself needs (repeatable)',
      (v: string, prev: string[] = []) => [...prev, v],
    )
    .option('--wait', 'wait until the sync is ready or failed')
    .action(async (source: string, options: AddOptions, cmd: Command) => {
      const ctx = contextOf(cmd);
      const client = authenticatedClient(ctx);
      const { BenchmarkResponse } = await import('@osmosis/contracts');
      const metadata = metadataOf(options);
      let created: Benchmark;
      const local = !options.registry && existsSync(source) ? statSync(source) : null;
      if (local) {
        const isDir = local.isDirectory();
        if (!isDir && !/\.(tar\.gz|tgz|tar)$/.test(source)) {
          throw usageError(`${source} is neither a folder of tasks nor a .tar.gz/.tgz/.tar archive`);
        }
        const query: Record<string, string | number | undefined> = {
          key: options.key,
          name: options.name,
          description: options.description,
          source_url: options.sourceUrl,
          default_harness: options.defaultHarness,
          pass_threshold: options.passThreshold,
          judge_model_default: options.judgeModel,
          judge_kind: options.judgeKind,
          required_secret_names: options.requiredSecret?.join(','),
          path: options.path,
        };
        let body: Readable;
        let packFailure: () => Error | null = () => null;
        if (isDir) {
          if (
            !existsSync(path.join(source, 'task.toml')) &&
            !options.key &&
            !existsSync(path.join(source, 'benchmark.toml'))
          ) {
            note(ctx, `note: ${source} has no benchmark.toml; the key defaults to the folder name`);
          }
          query.key ??= existsSync(path.join(source, 'benchmark.toml'))
            ? undefined
            : path
                .basename(path.resolve(source))
                .toLowerCase()
                .replace(/[^a-z0-9]+/g, '-')
                .replace(/^-+|-+$/g, '');
          ({ stream: body, failure: packFailure } = await packDirectory(source));
        } else {
          body = createReadStream(source);
        }
        const contentType = source.endsWith('.tar') ? 'application/x-tar' : 'application/gzip';
        const response = await client
          .raw('POST', '/v1/benchmarks/archive', {
            query,
            rawBody: Readable.toWeb(body) as unknown as ReadableStream,
            headers: { 'content-type': contentType },
            timeoutMs: 600_000,
          })
          .catch((error: unknown) => {
            const failed = packFailure();
            if (failed) throw new CliError('LOCAL_IO_ERROR', `cannot pack ${source}: ${failed.message}`);
            throw error;
          });
        created = BenchmarkResponse.parse(await response.json()).data;
      } else if (options.registry) {
        const isUrl = /^https?:\/\//.test(options.registry);
        let registry: unknown;
        if (!isUrl) {
          try {
            registry = JSON.parse(readFileSync(options.registry, 'utf8'));
          } catch (error) {
            throw new CliError(
              'LOCAL_IO_ERROR',
              `cannot read the registry file ${options.registry}: ${(error as Error).message}`,
            );
          }
        }
        created = (
          await client.post('/v1/benchmarks', BenchmarkResponse, {
            body: {
              kind: 'registry',
              dataset: source,
              ...(isUrl ? { registry_url: options.registry } : { registry }),
              metadata,
            },
          })
        ).data;
      } else if (GIT_URL.test(source)) {
        created = (
          await client.post('/v1/benchmarks', BenchmarkResponse, {
            body: { kind: 'git', url: source, ref: options.ref, path: options.path, metadata },
          })
        ).data;
      } else if (/^[a-z0-9][a-z0-9-]*$/.test(source)) {
        created = (
          await client.post('/v1/benchmarks', BenchmarkResponse, {
            body: { kind: 'catalog', catalog_key: source, metadata },
          })
        ).data;
      } else {
        throw usageError(
          `cannot tell what ${source} is`,
          'give a folder or .tar.gz of tasks, a git URL, name@version with --registry, or a catalog key',
        );
      }
      const final = options.wait ? await waitUntilSynced(ctx, client, created.key) : created;
      const failed = final.sync_status === 'failed';
      printAction(ctx, {
        status: failed ? 'failed' : 'success',
        operation: 'benchmark.add',
        resource: { type: 'benchmark', ...benchmarkItem(final) },
        message: failed
          ? `Added ${final.name} (${final.key}), but its sync failed: ${final.sync_error}`
          : final.sync_status === 'ready'
            ? `Added ${final.name} (${final.key}) with ${final.task_count} tasks.`
            : `Added ${final.name} (${final.key}); its tasks are syncing${final.expected_task_count ? ` (${final.expected_task_count} expected)` : ''}.`,
        next_steps_structured: failed
          ? [step('Retry the sync', `osmosis benchmark sync ${final.key}`)]
          : [
              step('Follow the sync', 'osmosis benchmark list'),
              step('See the benchmark', `osmosis benchmark info ${final.key}`),
            ],
      });
    });

  addListOptions(
    benchmark
      .command('list')
      .description('The benchmarks of the workspace: Name, Key, Last Run (or sync progress), Tasks'),
    { allHelp: 'every benchmark' },
  ).action(async (options: { limit: number; all?: boolean }, cmd: Command) => {
    const ctx = contextOf(cmd);
    const client = authenticatedClient(ctx);
    const { ListBenchmarksResponse } = await import('@osmosis/contracts');
    const page = await client.list('/v1/benchmarks', ListBenchmarksResponse, {
      limit: options.limit,
      all: options.all,
    });
    printList(ctx, page, {
      columns: benchmarkColumns(),
      toJson: benchmarkItem,
      empty:
        'No benchmarks yet. Add one with `osmosis benchmark add SOURCE` (try `osmosis benchmark add benchmarks/sample`).',
    });
  });

  addListOptions(
    benchmark
      .command('info <key>')
      .description(
        'One benchmark (key, exact name or id): metadata, tasks, task sets, requirements, leaderboard and runs',
      ),
    {
      limitHelp: 'maximum number of runs to show in the runs section (1 to 50)',
      allHelp: "show all of the benchmark's runs",
    },
  ).action(async (key: string, options: { limit: number; all?: boolean }, cmd: Command) => {
    const ctx = contextOf(cmd);
    const client = authenticatedClient(ctx);
    const { BenchmarkDetailResponse, RunListResponse } = await import('@osmosis/contracts');
    const detail = (await client.get(`/v1/benchmarks/${encodeURIComponent(key)}`, BenchmarkDetailResponse))
      .data;
    // the runs section: the newest --limit runs (or --all) of the workspace on it, as upstream
    const runs = await client.list('/v1/runs', RunListResponse, {
      limit: options.limit,
      all: options.all,
      query: { benchmark: detail.id },
    });
    detail.runs = runs.items.map((r) => ({
      id: r.id,
      name: r.name,
      status: r.status,
      created_at: r.created_at,
      finished_at: r.finished_at,
      task_count: r.task_count,
    }));
    detail.run_count = runs.total_count;
    printObject(
      ctx,
      benchmarkInfoData(detail, runs),
      (_data, s) => renderBenchmarkInfo(detail, s, null, ctx.color),
      () => benchmarkInfoPlain(detail),
    );
  });

  benchmark
    .command('sync <key>')
    .description('Retry the sync of a benchmark whose sync failed; it resumes where it stopped')
    .option('--wait', 'wait until the sync is ready or failed')
    .action(async (key: string, options: { wait?: boolean }, cmd: Command) => {
      const ctx = contextOf(cmd);
      const client = authenticatedClient(ctx);
      const { BenchmarkResponse } = await import('@osmosis/contracts');
      const response = await client.raw('POST', `/v1/benchmarks/${encodeURIComponent(key)}/sync`);
      const b = BenchmarkResponse.parse(await response.json()).data;
      if (response.status === 200) {
        printAction(ctx, {
          status: 'noop',
          operation: 'benchmark.sync',
          resource: { type: 'benchmark', ...benchmarkItem(b) },
          message: `${b.name} (${b.key}) is synced already (${b.task_count} tasks).`,
        });
        return;
      }
      const final = options.wait ? await waitUntilSynced(ctx, client, b.key) : b;
      const failed = final.sync_status === 'failed';
      printAction(ctx, {
        status: failed ? 'failed' : 'success',
        operation: 'benchmark.sync',
        resource: { type: 'benchmark', ...benchmarkItem(final) },
        message: failed
          ? `The sync of ${final.key} failed again: ${final.sync_error}`
          : final.sync_status === 'ready'
            ? `${final.name} (${final.key}) is synced: ${final.task_count} tasks.`
            : `Sync of ${final.name} (${final.key}) queued; it resumes after the ${final.synced_task_count} tasks already imported.`,
        next_steps_structured: [step('Follow the sync', 'osmosis benchmark list')],
      });
    });

  benchmark
    .command('delete <key>')
    .description('Delete a benchmark with its tasks and finished runs (refused while runs are active)')
    .option('-y, --yes', 'do not ask for confirmation')
    .option('--force', 'also when it has runs, which are deleted with it (admins and owners)')
    .action(async (key: string, options: { yes?: boolean; force?: boolean }, cmd: Command) => {
      const ctx = contextOf(cmd);
      const client = authenticatedClient(ctx);
      const { BenchmarkResponse, DeleteBenchmarkResponse } = await import('@osmosis/contracts');
      // look it up first: a benchmark that does not exist is NOT_FOUND before anything is asked
      const found = (await client.get(`/v1/benchmarks/${encodeURIComponent(key)}`, BenchmarkResponse)).data;
      const ok = await confirm(ctx, {
        message: `Delete benchmark ${found.key} with its tasks and finished runs?`,
        yes: options.yes === true,
        summary: [
          ['Key', found.key],
          ['Name', found.name],
          ['Runs', String(found.run_count)],
        ],
      });
      if (!ok) {
        printAction(ctx, {
          status: 'cancelled',
          operation: 'benchmark.delete',
          resource: { type: 'benchmark', id: found.id, key: found.key, name: found.name },
          message: 'Cancelled. Nothing was deleted.',
        });
        return;
      }
      const res = (
        await client.delete(`/v1/benchmarks/${encodeURIComponent(key)}`, DeleteBenchmarkResponse, {
          ...(options.force ? { query: { force: 'true' } } : {}),
        })
      ).data;
      printAction(ctx, {
        status: 'success',
        operation: 'benchmark.delete',
        resource: { type: 'benchmark', id: res.id, key: res.key, name: found.name },
        message: `Deleted benchmark ${res.key}.`,
      });
    });
}
