// `osmosis benchmark runs list|info|logs|stop` (docs/cli-compat.md "Commands"). The `benchmark` command group adds
// them with `registerRuns(benchmark)`, which returns the `runs` command so other run
// subcommands (download) can be added to it.
import type { Command } from 'commander';
import { authenticatedClient } from '../api.ts';
import { contextOf } from '../context.ts';
import { formatDate, formatDuration, formatPercent } from '../format.ts';
import { addListOptions } from '../options.ts';
import { printAction, printList, printObjectAs, step } from '../output.ts';
import { confirm } from '../prompt.ts';
import type { Style } from '../style.ts';
import { progressText, renderRunInfo, statusText } from './run-info-render.ts';
import { runInfoData, runInfoPlain, runItem } from './run-shapes.ts';
import { registerRunsAttempts } from './runs-attempts.ts';
import { registerRunsCompare } from './runs-compare.ts';
import { registerRunsImport } from './runs-import.ts';
import { registerRunsLock, registerRunsReproduce } from './runs-lock.ts';
import { registerRunsLogs } from './runs-logs.ts';
import { registerRunsRetry } from './runs-retry.ts';

/** After a run's status in `runs list`: imported, kept off the leaderboard, or waiting for a worker or an engine. */
function faultNote(
  run: { unranked_reason: string | null; waiting: { reason: string }[]; imported?: boolean },
  s: Style,
): string {
  const notes: string[] = [];
  if (run.imported) notes.push('imported');
  if (run.unranked_reason) notes.push('not ranked');
  if (run.waiting.some((w) => w.reason === 'no_live_worker')) notes.push('no live worker');
  else if (run.waiting.some((w) => w.reason === 'engine_unavailable')) notes.push('waiting for engine');
  if (run.waiting.some((w) => w.reason === 'workspace_limit')) notes.push('workspace limit reached');
  return notes.length ? ` ${s.yellow(`(${notes.join(', ')})`)}` : '';
}

/** `runs list`: the runs table. */
function registerRunsList(runs: Command): void {
  addListOptions(
    runs.command('list').description('The runs table: status, progress, agents and best pass@1'),
    { allHelp: 'every run' },
  )
    .option('--status <status>', 'only runs with this status')
    .option('--benchmark <key>', 'only runs of this benchmark (key, name or id)')
    .action(async (options, cmd: Command) => {
      const ctx = contextOf(cmd);
      const client = authenticatedClient(ctx);
      const { RunListResponse } = await import('@osmosis/contracts');
      const page = await client.list('/v1/runs', RunListResponse, {
        limit: options.limit,
        all: options.all,
        query: { status: options.status, benchmark: options.benchmark },
      });
      const s = (await import('../style.ts')).style(ctx.color);
      printList(ctx, page, {
        columns: [
          { header: 'Name', value: (r) => r.name, noShrink: true },
          { header: 'Benchmark', value: (r) => r.benchmark_key },
          { header: 'Status', value: (r) => statusText(r.status, s) + faultNote(r, s) },
          { header: 'Progress', value: (r) => progressText(r.progress) },
          { header: 'Agents', value: (r) => r.agent_count, align: 'right' },
          { header: 'Best pass@1', value: (r) => formatPercent(r.best_pass_at_1), align: 'right' },
          { header: 'Duration', value: (r) => formatDuration(r.duration_ms), align: 'right' },
          { header: 'Created', value: (r) => formatDate(r.created_at) },
        ],
        toJson: runItem,
        plainColumns: [
          { header: 'Name', value: (r) => r.name },
          { header: 'Status', value: (r) => `[${r.status}]` },
          { header: 'Progress', value: (r) => `${r.progress.done} / ${r.progress.total} results` },
          { header: 'Benchmark', value: (r) => r.benchmark_name },
          { header: 'Agents', value: (r) => r.agent_count },
          { header: 'Best Pass@1', value: (r) => formatPercent(r.best_pass_at_1) },
          { header: 'Submitted', value: (r) => r.created_at },
          { header: 'Submitted By', value: (r) => r.creator_name ?? '–' },
        ],
        empty: 'No runs yet. Submit one with `osmosis benchmark submit CONFIG`.',
      });
    });
}

/** `runs info NAME [--watch]`: a run in full. */
function registerRunsInfo(runs: Command): void {
  runs
    .command('info <name>')
    .description('Status, progress, duration, result totals, per-agent scores and per-attempt outcomes')
    .option('--watch', 'follow the run live (progress bar, or plain lines) until it ends, then show it')
    .action(async (name: string, options: { watch?: boolean }, cmd: Command) => {
      const ctx = contextOf(cmd);
      const client = authenticatedClient(ctx);
      if (options.watch) {
        const { watchRun } = await import('./watch.ts');
        await watchRun(client, name, { ctx, printScores: false });
      }
      const { RunInfoResponse } = await import('@osmosis/contracts');
      const res = await client.get(`/v1/runs/${encodeURIComponent(name)}`, RunInfoResponse);
      printObjectAs(ctx, res.data, { json: runInfoData, plain: runInfoPlain }, (run, s) =>
        renderRunInfo(run, s, ctx.color),
      );
    });
}

/** `runs stop NAME`: stop it after a confirmation. */
function registerRunsStop(runs: Command): void {
  runs
    .command('stop <name>')
    .description(
      'Stop a pending, queued or running run (queued attempts are cancelled, running ones killed).\n' +
        'A run that does not exist is NOT_FOUND before anything is asked.',
    )
    .option('-y, --yes', 'skip the confirmation prompt (required with --json, --plain or without a terminal)')
    .action(async (name: string, options, cmd: Command) => {
      const ctx = contextOf(cmd);
      const client = authenticatedClient(ctx);
      const { RunInfoResponse, StopRunResponse } = await import('@osmosis/contracts');
      // look the run up first (upstream's order): a missing one is NOT_FOUND before the prompt
      const run = (await client.get(`/v1/runs/${encodeURIComponent(name)}`, RunInfoResponse)).data;
      const ok = await confirm(ctx, {
        message: `Stop benchmark run "${run.name}"? Queued attempts are cancelled, running ones killed.`,
        yes: options.yes,
        summary: [
          ['Name', run.name],
          ['Status', run.status],
        ],
      });
      if (!ok) {
        printAction(ctx, {
          status: 'cancelled',
          operation: 'benchmark.stop',
          resource: { name: run.name, id: run.id, status: run.status },
          message: 'Cancelled.',
        });
        return;
      }
      const res = await client.post(`/v1/runs/${encodeURIComponent(run.name)}/stop`, StopRunResponse, {
        body: {},
      });
      const d = res.data;
      printAction(ctx, {
        status: 'success',
        operation: 'benchmark.stop',
        resource: {
          name: d.name,
          id: d.id,
          status: 'stopped',
          previous_status: d.previous_status,
          cancelled_attempts: d.cancelled_attempts,
          aborting_attempts: d.aborting_attempts,
        },
        message: `Benchmark run "${d.name}" stopped (was ${d.previous_status}): ${d.cancelled_attempts} queued attempt(s) cancelled, ${d.aborting_attempts} running attempt(s) being killed.`,
        next_steps_structured: [
          step('See the run', `osmosis benchmark runs info ${d.name}`),
          step('See its log', `osmosis benchmark runs logs ${d.name}`),
        ],
      });
    });
}

export function registerRuns(benchmark: Command): Command {
  const runs = benchmark.command('runs').description('Runs of benchmarks in this workspace');
  registerRunsList(runs);
  registerRunsInfo(runs);
  registerRunsLogs(runs);
  registerRunsStop(runs);
  registerRunsAttempts(runs);
  registerRunsCompare(runs);
  registerRunsRetry(runs);
  registerRunsImport(runs);
  registerRunsLock(runs);
  registerRunsReproduce(runs);
  return runs;
}
