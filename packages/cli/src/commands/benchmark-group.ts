// The `benchmark` command group: sources (add, list, info, sync, delete), runs (list, info,
// logs, stop, download, export). Each part registers its subcommands on the group's command; to add
// one, import its register function and call it below (one line each).
import type { Command } from 'commander';
import { registerBenchmarkSources } from './benchmark-sources.ts';
import { registerRunsDownload } from './download.ts';
import { registerRuns } from './runs.ts';
import { registerRunsExport } from './runs-export.ts';
import { registerSubmit } from './submit.ts';

export function register(program: Command): void {
  const benchmark = program
    .command('benchmark')
    .description('Benchmarks of the workspace, their tasks and sync, runs and results');
  registerBenchmarkSources(benchmark);
  const runs = registerRuns(benchmark);
  registerRunsDownload(runs);
  registerRunsExport(runs);
  registerSubmit(benchmark);
}
