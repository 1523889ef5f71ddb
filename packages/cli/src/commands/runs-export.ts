// `osmosis benchmark runs export RUN --format harbor|tb-leaderboard -o DIR [--agent-url URL
// --agent-name NAME --org ORG] [--force]`: GET /v1/runs/:name/export's tar.gz, extracted into DIR
// by the one safe extractor (@osmosis/archive: no entry may leave DIR, links are left out). DIR
// must be empty or new unless --force (then what the export writes replaces what is there). The
// archive is extracted into a fresh folder next to DIR first and moved in only when whole, so a
// broken transfer leaves DIR as it was. What is written: docs/reproducibility.md "Export".
import { mkdir, mkdtemp, readdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import type { Command } from 'commander';
import { authenticatedClient } from '../api.ts';
import { type Context, contextOf } from '../context.ts';
import { CliError, usageError } from '../errors.ts';
import { printAction } from '../output.ts';

export interface RunsExportOptions {
  format?: string;
  output?: string;
  agentUrl?: string;
  agentName?: string;
  org?: string;
  force?: boolean;
}

const FORMATS = ['harbor', 'tb-leaderboard'] as const;
/** An export may be large (every artifact of the run); its transfer gets the downloads' time. */
const EXPORT_TIMEOUT_MS = 30 * 60 * 1000;
/** The archive is the platform's own, yet read as hostile: these bound what it may write. */
const EXPORT_LIMITS = {
  maxBytes: 64 * 1024 ** 3,
  maxEntryBytes: 16 * 1024 ** 3,
  maxEntries: 2_000_000,
  maxRatio: 10_000,
};

function checkOptions(options: RunsExportOptions): { format: (typeof FORMATS)[number]; output: string } {
  const format = options.format ?? '';
  if (!(FORMATS as readonly string[]).includes(format))
    throw usageError(
      `--format ${JSON.stringify(format)} is not an export format`,
      'use --format harbor (a Harbor job directory) or --format tb-leaderboard (a leaderboard submission)',
    );
  if (!options.output) throw usageError('-o DIR is required: the folder the export is written into');
  if (format === 'tb-leaderboard') {
    const missing = (['agentUrl', 'agentName', 'org'] as const).filter((k) => !options[k]);
    if (missing.length)
      throw usageError(
        `--format tb-leaderboard needs ${missing.map((k) => `--${k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`).join(', ')} (metadata.yaml's agent_url, agent_display_name and agent_org_display_name)`,
        'e.g. --agent-url https://github.com/acme/agent --agent-name "Acme Agent" --org "Acme"',
      );
  }
  return { format: format as (typeof FORMATS)[number], output: options.output };
}

/** DIR must be a folder that is empty or does not exist yet, unless `force`. */
async function checkDestination(dir: string, force: boolean): Promise<void> {
  const st = await stat(dir).catch(() => null);
  if (!st) return;
  if (!st.isDirectory())
    throw usageError(`${dir} exists and is not a folder`, 'give -o a folder to write into');
  const names = await readdir(dir);
  if (names.length && !force)
    throw usageError(
      `${dir} is not empty (${names.length} entries); the export would mix with what is there`,
      'choose an empty or new folder with -o, or pass --force to replace what the export writes',
    );
}

/** A leaderboard refusal's hint: each broken rule, and the run config lines that complete the run. */
function leaderboardHint(error: CliError): string | undefined {
  const details = error.details as {
    rules?: { rule: string; message: string }[];
    reuse_from?: string;
  } | null;
  if (!details?.rules) return undefined;
  const lines = details.rules.map((r) => `${r.rule}: ${r.message}`);
  if (details.reuse_from)
    lines.push(`to complete the tasks short of trials, submit a run with:\n${details.reuse_from}`);
  return lines.join('\n');
}

async function fetchExport(ctx: Context, run: string, format: string, options: RunsExportOptions) {
  const client = authenticatedClient(ctx);
  try {
    return await client.raw('GET', `/v1/runs/${encodeURIComponent(run)}/export`, {
      query: { format, agent_url: options.agentUrl, agent_name: options.agentName, org: options.org },
      headers: { accept: 'application/gzip, application/json' },
      timeoutMs: EXPORT_TIMEOUT_MS,
    });
  } catch (error) {
    const hint = error instanceof CliError ? leaderboardHint(error) : undefined;
    if (error instanceof CliError && hint)
      throw new CliError(error.code, error.message, { details: error.details, status: error.status, hint });
    throw error;
  }
}

/** Moves every entry of `from` into `to` (replacing an entry of the same name) and removes `from`. */
async function moveInto(from: string, to: string): Promise<void> {
  await mkdir(to, { recursive: true });
  for (const name of await readdir(from)) {
    await rm(path.join(to, name), { recursive: true, force: true });
    await rename(path.join(from, name), path.join(to, name));
  }
  await rm(from, { recursive: true, force: true });
}

export async function runsExportAction(ctx: Context, run: string, options: RunsExportOptions) {
  const { format, output } = checkOptions(options);
  const dir = path.resolve(ctx.cwd, output);
  await checkDestination(dir, options.force === true);
  const response = await fetchExport(ctx, run, format, options);
  await mkdir(path.dirname(dir), { recursive: true });
  const staging = await mkdtemp(path.join(path.dirname(dir), `.${path.basename(dir)}.export-`));
  let files: number;
  try {
    const { extractArchive } = await import('@osmosis/archive');
    const body = response.body
      ? Readable.fromWeb(response.body as import('node:stream/web').ReadableStream)
      : Readable.from([]);
    const result = await extractArchive(body, staging, {
      ...EXPORT_LIMITS,
      links: 'skip',
      executable: false,
    });
    files = result.files.length;
    await moveInto(staging, dir);
  } catch (error) {
    await rm(staging, { recursive: true, force: true });
    if (error instanceof CliError) throw error;
    throw new CliError('INTERNAL', `the export of ${run} could not be written: ${(error as Error).message}`, {
      hint: `run the command again; ${dir} was left as it was`,
    });
  }
  const trials = Number(response.headers.get('x-osmosis-trials') ?? 'NaN');
  const missing = Number(response.headers.get('x-osmosis-missing-artifacts') ?? '0') || 0;
  printAction(ctx, {
    status: 'success',
    operation: 'benchmark.export',
    resource: {
      benchmark_run: { name: run },
      format,
      output_path: dir,
      files,
      trials: Number.isFinite(trials) ? trials : null,
      missing_artifacts: missing,
    },
    message:
      `Exported run ${run} as ${format} to ${dir} (${files} files${Number.isFinite(trials) ? `, ${trials} trials` : ''})` +
      (missing > 0
        ? `; ${missing} artifacts are no longer in the platform's storage and were left out`
        : '') +
      (format === 'tb-leaderboard'
        ? '. To submit, open a pull request adding its folder under submissions/terminal-bench/2.0/ of huggingface.co/datasets/harborframework/terminal-bench-2-leaderboard'
        : ''),
  });
}

/** Adds `export RUN` to the `benchmark runs` command. */
export function registerRunsExport(runs: Command): void {
  runs
    .command('export <run>')
    .description(
      'Write a run as a Harbor job directory (--format harbor) or a Terminal-Bench 2 leaderboard\n' +
        'submission (--format tb-leaderboard: metadata.yaml and the job folder) into the folder -o names',
    )
    .option('--format <format>', 'harbor or tb-leaderboard (required)')
    .option('-o, --output <dir>', 'the folder to write into, new or empty unless --force (required)')
    .option('--agent-url <url>', "tb-leaderboard: metadata.yaml's agent_url (the agent's repository or docs)")
    .option('--agent-name <name>', "tb-leaderboard: metadata.yaml's agent_display_name")
    .option('--org <org>', "tb-leaderboard: metadata.yaml's agent_org_display_name")
    .option('--force', 'write into a folder that is not empty, replacing what the export writes')
    .action(async (run: string, options: RunsExportOptions, cmd: Command) => {
      await runsExportAction(contextOf(cmd), run, options);
    });
}
