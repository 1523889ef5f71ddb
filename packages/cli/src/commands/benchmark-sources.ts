// `osmosis benchmark add | list | info | sync | delete`: benchmarks of the workspace and where
// their tasks come from. The `benchmark` group (benchmark-group.ts) adds them with
// `registerBenchmarkSources(benchmark)`; `add` and how it reads its SOURCE is benchmark-add.ts.
import type { Command } from 'commander';
import { authenticatedClient } from '../api.ts';
import { contextOf } from '../context.ts';
import { addListOptions } from '../options.ts';
import { printAction, printList, printObject, step } from '../output.ts';
import { confirm } from '../prompt.ts';
import { printSyncOutcome, registerBenchmarkAdd } from './benchmark-add.ts';
import { benchmarkColumns, benchmarkInfoPlain, renderBenchmarkInfo } from './benchmark-render.ts';
import { benchmarkInfoData, benchmarkItem } from './benchmark-shapes.ts';

/** `benchmark list`. */
function registerBenchmarkList(benchmark: Command): void {
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
        'No benchmarks yet. Add one with `osmosis benchmark add SOURCE` (try `osmosis benchmark add examples/benchmarks/sample`).',
    });
  });
}

/** `benchmark info KEY`: one benchmark with its newest runs. */
function registerBenchmarkInfo(benchmark: Command): void {
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
  )
    .option('--include-imported', 'also rank imported runs (runs import), apart from the runs made here')
    .action(
      async (
        key: string,
        options: { limit: number; all?: boolean; includeImported?: boolean },
        cmd: Command,
      ) => {
        const ctx = contextOf(cmd);
        const client = authenticatedClient(ctx);
        const { BenchmarkDetailResponse, RunListResponse } = await import('@osmosis/contracts');
        const detail = (
          await client.get(`/v1/benchmarks/${encodeURIComponent(key)}`, BenchmarkDetailResponse, {
            query: { include_imported: options.includeImported ? 'true' : undefined },
          })
        ).data;
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
      },
    );
}

/** `benchmark sync KEY [--wait]`: retry a failed sync. */
function registerBenchmarkSync(benchmark: Command): void {
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
          message: b.source_commit
            ? `${b.name} (${b.key}) is synced already (${b.task_count} tasks at commit ${b.source_commit}); its tasks never change. To use a newer commit, add the repository again under another key.`
            : `${b.name} (${b.key}) is synced already (${b.task_count} tasks).`,
        });
        return;
      }
      await printSyncOutcome(ctx, client, 'benchmark.sync', b, options.wait, {
        failed: (f) => `The sync of ${f.key} failed again: ${f.sync_error}`,
        ready: (f) =>
          `${f.name} (${f.key}) is synced: ${f.task_count} tasks${f.source_commit ? ` at commit ${f.source_commit}` : ''}.`,
        syncing: (f) =>
          `Sync of ${f.name} (${f.key}) queued; it resumes after the ${f.synced_task_count} tasks already imported.`,
        next: () => [step('Follow the sync', 'osmosis benchmark list')],
      });
    });
}

/** `benchmark delete KEY`: after a confirmation. */
function registerBenchmarkDelete(benchmark: Command): void {
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

export function registerBenchmarkSources(benchmark: Command): void {
  registerBenchmarkAdd(benchmark);
  registerBenchmarkList(benchmark);
  registerBenchmarkInfo(benchmark);
  registerBenchmarkSync(benchmark);
  registerBenchmarkDelete(benchmark);
}
