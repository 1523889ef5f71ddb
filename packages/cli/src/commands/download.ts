// `osmosis benchmark runs download NAME [--type summary,results|artifacts|logs|trajectories|all] [-o DIR]
// [--overwrite] [-y] [--layout ids|attempts]`, with the upstream Osmosis CLI 0.3's contract
// (osmosis_ai/platform/cli/benchmark.py `download`, run_download.py): the run is looked up first
// (NOT_FOUND; CONFLICT while pending or queued), the files go into
// WORKSPACE/.osmosis/benchmarks/<run-name>/ or the folder `-o` names, and the action envelope
// (`benchmark.download`) carries upstream's counts. The transfer is src/download/.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { AttemptListItem, AttemptListResponse, DownloadType } from '@osmosis/contracts';
import type { Command } from 'commander';
import { authenticatedClient } from '../api.ts';
import { type Context, contextOf } from '../context.ts';
import {
  type AttemptFolder,
  attemptFolders,
  attemptLayoutPath,
  indexCsv,
} from '../download/attempt-layout.ts';
import type { DownloadReport } from '../download/download.ts';
import { CliError, usageError } from '../errors.ts';
import type { ApiClient } from '../http.ts';
import { note, printAction, step } from '../output.ts';
import { confirm } from '../prompt.ts';

export interface RunsDownloadOptions {
  type?: string;
  output?: string;
  overwrite?: boolean;
  yes?: boolean;
  /** `ids` (upstream's artifacts/<result-id>/…) or `attempts` (artifacts/<task>/<agent>/<try>/…) */
  layout?: string;
}

const DOWNLOAD_TYPES = ['summary', 'results', 'artifacts', 'logs', 'trajectories', 'lock'] as const;

/** Every attempt of the run with its folder (all pages of GET /v1/runs/:name/attempts). */
async function attemptFoldersOf(client: ApiClient, run: string) {
  const { AttemptListResponse } = await import('@osmosis/contracts');
  const items: AttemptListItem[] = [];
  let cursor: string | undefined;
  do {
    const page: AttemptListResponse = await client.get(
      `/v1/runs/${encodeURIComponent(run)}/attempts`,
      AttemptListResponse,
      {
        query: { limit: 200, cursor },
      },
    );
    items.push(...page.items);
    cursor = page.next_cursor ?? undefined;
  } while (cursor);
  return attemptFolders(items);
}

/** artifacts/index.csv and index.json: attempt id ↔ task, agent, try and folder. */
async function writeAttemptIndex(dir: string, folders: Map<string, AttemptFolder>): Promise<void> {
  await mkdir(path.join(dir, 'artifacts'), { recursive: true });
  await writeFile(path.join(dir, 'artifacts', 'index.csv'), indexCsv(folders.values()));
  await writeFile(
    path.join(dir, 'artifacts', 'index.json'),
    `${JSON.stringify([...folders.values()], null, 2)}\n`,
  );
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let v = n / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v.toFixed(v >= 100 ? 0 : 1)} ${units[i]}`;
}

/** `--type`: a comma-separated selection, or `all` alone (upstream's `parse_download_types`). */
export function parseTypes(value: string): DownloadType[] {
  const requested = value.split(',').map((part) => part.trim().toLowerCase());
  if (requested.length === 0 || requested.some((part) => part === ''))
    throw usageError(
      '--type must be a comma-separated list of output types.',
      'e.g. --type summary,results or --type all',
    );
  if (requested.includes('all')) {
    if (requested.length !== 1) throw usageError('--type all cannot be combined with other output types.');
    return [...DOWNLOAD_TYPES];
  }
  const unknown = [
    ...new Set(requested.filter((t) => !(DOWNLOAD_TYPES as readonly string[]).includes(t))),
  ].sort();
  if (unknown.length)
    throw usageError(
      `Unknown --type value(s): ${unknown.join(', ')}. Choose from: ${DOWNLOAD_TYPES.join(', ')}, all.`,
    );
  return [...new Set(requested)] as DownloadType[];
}

/** The run folder: `-o DIR` itself (a leading `~` is the home folder), else WORKSPACE/.osmosis/benchmarks/<run-name>. */
function outputDir(
  ctx: Context,
  output: string | undefined,
  runName: string,
  runId: string,
): Promise<string> {
  return import('../download/paths.ts').then(({ runFolder }) => {
    if (output !== undefined) {
      const home = ctx.io.env.HOME;
      const expanded =
        home && (output === '~' || output.startsWith('~/')) ? path.join(home, output.slice(1)) : output;
      return path.resolve(ctx.cwd, expanded);
    }
    return runFolder(ctx.workspaceDirectory()?.root ?? ctx.cwd, runName, runId);
  });
}

/** Files and bytes per type of the files the download took on (upstream's `breakdown`). */
function breakdown(files: { path: string; type: string; size: number }[], refused: Set<string>) {
  const out: Record<string, { files: number; bytes: number }> = {};
  for (const file of files) {
    if (refused.has(file.path)) continue;
    const bucket = out[file.type] ?? { files: 0, bytes: 0 };
    bucket.files += 1;
    bucket.bytes += file.size;
    out[file.type] = bucket;
  }
  return out;
}

export async function runsDownloadAction(
  ctx: Context,
  name: string,
  options: RunsDownloadOptions,
): Promise<DownloadReport> {
  const types = parseTypes(options.type ?? 'summary,results');
  const client = authenticatedClient(ctx);
  const { RunInfoResponse } = await import('@osmosis/contracts');
  const run = (await client.get(`/v1/runs/${encodeURIComponent(name)}`, RunInfoResponse)).data;
  if (run.status === 'pending' || run.status === 'queued') {
    throw new CliError('CONFLICT', 'Outputs are not yet available for pending or queued benchmark runs.', {
      details: { name: run.name, status: run.status },
      hint: `wait until it runs: osmosis benchmark runs info ${run.name}`,
    });
  }
  const dir = await outputDir(ctx, options.output, run.name, run.id);
  const { downloadRun, fetchManifest } = await import('../download/download.ts');
  const manifest = await fetchManifest(client, run.name, types);
  if (manifest.files.length === 0)
    throw new CliError('USAGE_ERROR', 'No downloadable files matched the requested selection.', {
      details: { name: run.name, selected_types: types },
      hint: 'choose other types with --type (summary, results, artifacts, logs, trajectories, lock, all)',
    });
  const layout = options.layout ?? 'ids';
  if (layout !== 'ids' && layout !== 'attempts')
    throw new CliError('USAGE_ERROR', `--layout ${JSON.stringify(layout)} is not a layout`, {
      hint: 'use ids (artifacts/<result-id>/…, as upstream) or attempts (artifacts/<task>/<agent>/<try>/…)',
    });
  const folders =
    layout === 'attempts' && (types.includes('artifacts') || types.includes('trajectories'))
      ? await attemptFoldersOf(client, run.name)
      : null;
  note(ctx, `Destination: ${dir}`);
  const report = await downloadRun(client, run.name, {
    types,
    dir,
    ...(folders ? { localPath: (p: string) => attemptLayoutPath(p, folders) } : {}),
    overwrite: options.overwrite === true,
    manifest,
    confirmLarge: (bytes, files) =>
      confirm(ctx, {
        message: 'Download these run outputs?',
        yes: options.yes,
        summary: [
          ['Files', String(files)],
          ['Download size', formatBytes(bytes)],
          ['Destination', dir],
        ],
        notes: [`Selected types: ${types.join(', ')}`],
      }),
    onFile: (e) => {
      if (e.result === 'failed' || e.result === 'refused')
        note(ctx, `${e.result}: ${e.path} — ${e.error ?? ''}`);
    },
  });
  if (folders && report.status !== 'cancelled') await writeAttemptIndex(dir, folders);
  if (report.status === 'cancelled') {
    printAction(ctx, {
      status: 'cancelled',
      operation: 'benchmark.download',
      resource: { benchmark_run: { id: run.id, name: run.name }, status: run.status, output_path: dir },
      message: 'Cancelled.',
    });
    return report;
  }
  if (report.downloaded.length + report.skipped.length === 0 && report.failed.length === 0)
    throw new CliError('USAGE_ERROR', 'The download manifest contained no usable run-scoped paths.', {
      details: { refused: report.refused },
    });
  const failures = [
    ...report.failed,
    ...report.refused.map((r) => ({ path: r.path, error: `Manifest path refused: ${r.reason}.` })),
  ];
  const partial = failures.length > 0;
  const rerun = `osmosis benchmark runs download ${run.name}${options.type ? ` --type ${options.type}` : ''}${options.output ? ` -o ${options.output}` : ''}`;
  let message = `Downloaded ${report.downloaded.length} files (${formatBytes(report.bytes)}) to ${dir}`;
  if (report.skipped.length) message += ` (${report.skipped.length} already up to date)`;
  if (partial) message += ` (${failures.length} failed; re-run to retry)`;
  if (report.snapshot) message += ` — a snapshot: run ${run.name} is still ${report.run_status}`;
  printAction(ctx, {
    status: partial ? 'partial' : 'success',
    operation: 'benchmark.download',
    resource: {
      benchmark_run: { id: run.id, name: run.name },
      status: run.status,
      selected_types: types,
      files_downloaded: report.downloaded.length,
      files_skipped: report.skipped.length,
      files_failed: failures,
      bytes_downloaded: report.bytes,
      total_files: report.files - report.refused.length,
      total_bytes: report.total_size,
      breakdown: breakdown(manifest.files, new Set(report.refused.map((r) => r.path))),
      manifest_totals: { files: manifest.files.length, bytes: manifest.total_size },
      output_path: dir,
      snapshot: report.snapshot,
      downloaded: report.downloaded,
      skipped: report.skipped,
    },
    message,
    ...(partial
      ? { next_steps_structured: [step('Retry the failed files (finished files are skipped)', rerun)] }
      : {}),
  });
  return report;
}

/** Adds `download NAME` to the `benchmark runs` command. */
export function registerRunsDownload(runs: Command): Command {
  return runs
    .command('download <name>')
    .description(
      "Download a run's outputs into .osmosis/benchmarks/<run-name>/ of the workspace directory (the git\n" +
        'repository, else the current folder), or into the folder -o names',
    )
    .option(
      '--type <types>',
      'comma-separated selector: summary, results, artifacts, logs, trajectories, all (replaces the default)',
      'summary,results',
    )
    .option('-o, --output <dir>', 'the run folder itself (default: .osmosis/benchmarks/<run-name>/)')
    .option('--overwrite', 're-download files that already exist locally')
    .option(
      '--layout <layout>',
      "artifacts' folders: ids (artifacts/<result-id>/…, as upstream) or attempts (artifacts/<task>/<agent>/<try>/… with artifacts/index.csv and index.json)",
      'ids',
    )
    .option('-y, --yes', 'skip the confirmation asked before transfers over 100 MiB')
    .action(async (name: string, options: RunsDownloadOptions, cmd: Command) => {
      await runsDownloadAction(contextOf(cmd), name, options);
    });
}
