// `osmosis benchmark runs import DIR [--benchmark KEY] [--name NAME]`: a Harbor job directory
// (jobs/<job_name>) packed as a tar.gz and uploaded to POST /v1/runs/import, which reads it as
// an imported run. Before anything is sent: DIR must be a folder, no link in it may point out
// of it, and its files may not add up to more than MAX_IMPORT_BYTES. The trials that were not
// imported (unfinished, or of a task the benchmark lacks) are listed. Registered on the `runs`
// command with `registerRunsImport(runs)`.
import { realpathSync } from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import type { RunImportResult } from '@osmosis/contracts';
import type { Command } from 'commander';
import { authenticatedClient } from '../api.ts';
import { contextOf } from '../context.ts';
import { CliError, usageError } from '../errors.ts';
import { printAction, step } from '../output.ts';

/** What `runs import` sends at most (the server's default archive limit). */
export const MAX_IMPORT_BYTES = 512 * 1024 * 1024;

/** Refuses a link leaving `root` or a folder over `maxBytes`; returns the files' total size. */
export async function checkJobDirectory(root: string, maxBytes = MAX_IMPORT_BYTES): Promise<number> {
  const { listTree } = await import('@osmosis/archive');
  const entries = await listTree(root, ['.git']).catch((error: Error) => {
    throw usageError(`cannot read ${root}: ${error.message}`);
  });
  let total = 0;
  for (const entry of entries) {
    if (entry.kind === 'symlink') {
      const target = path.posix.normalize(
        path.posix.join(path.posix.dirname(entry.path), entry.target ?? ''),
      );
      if (path.posix.isAbsolute(entry.target ?? '') || target === '..' || target.startsWith('../'))
        throw usageError(
          `${entry.path} is a link to ${JSON.stringify(entry.target)}, outside ${root}`,
          'copy the file it points to into the job directory, or remove the link',
        );
    }
    total += entry.size;
    if (total > maxBytes)
      throw usageError(
        `${root} holds more than ${maxBytes} bytes of files`,
        'leave out what is not part of the job (large artifacts), or import the trials in parts',
      );
  }
  return total;
}

function resourceOf(d: RunImportResult) {
  return {
    name: d.run_name,
    id: d.run_id,
    imported: true,
    benchmark: d.benchmark_key,
    job_name: d.job_name,
    trials: d.trials,
    imported_attempts: d.imported_attempts,
    matched_by: d.matched_by,
    mismatches: d.mismatches,
    platform_url: d.platform_url,
  };
}

export function registerRunsImport(runs: Command): void {
  runs
    .command('import <dir>')
    .description(
      'Import a Harbor job directory (jobs/<job_name>) as a finished run marked imported.\n' +
        'Tasks are matched by name with the benchmark’s; trials that do not match are listed.',
    )
    .option('--benchmark <key>', 'the benchmark (default: the workspace’s benchmark whose tasks match)')
    .option('--name <name>', 'the run’s name (default: a generated one)')
    .action(async (dir: string, options: { benchmark?: string; name?: string }, cmd: Command) => {
      const ctx = contextOf(cmd);
      let root: string;
      try {
        root = realpathSync(dir);
      } catch {
        throw usageError(
          `${dir} does not exist`,
          'give the job folder Harbor wrote, e.g. jobs/2026-11-02__10-00-00',
        );
      }
      await checkJobDirectory(root);
      const client = authenticatedClient(ctx);
      const { packDirectory } = await import('@osmosis/archive');
      const { RunImportResponse } = await import('@osmosis/contracts');
      const stream = packDirectory(root, { gzip: true, exclude: ['.git'] });
      let packError: Error | null = null;
      stream.on('error', (e: Error) => {
        packError = e;
      });
      const response = await client
        .raw('POST', '/v1/runs/import', {
          query: { benchmark: options.benchmark, name: options.name },
          rawBody: Readable.toWeb(stream) as unknown as ReadableStream,
          headers: { 'content-type': 'application/gzip' },
          timeoutMs: 600_000,
        })
        .catch((error: unknown) => {
          if (packError)
            throw new CliError('LOCAL_IO_ERROR', `cannot pack ${dir}: ${(packError as Error).message}`);
          throw error;
        });
      const d = RunImportResponse.parse(await response.json()).data;
      const skipped = d.mismatches.map((m) => `  ${m.trial}: ${m.reason}`);
      printAction(ctx, {
        status: 'success',
        operation: 'benchmark.import',
        resource: resourceOf(d),
        message: [
          `Imported Harbor job ${d.job_name ?? '(unnamed)'} as run "${d.run_name}" of ${d.benchmark_key}: ${d.imported_attempts} attempt(s); ${d.checksum_note}.`,
          ...(skipped.length ? [`${skipped.length} trial(s) not imported:`, ...skipped] : []),
        ].join('\n'),
        next_steps_structured: [
          step('See the run', `osmosis benchmark runs info ${d.run_name}`),
          step('Compare it with a run made here', `osmosis benchmark runs compare ${d.run_name} OTHER_RUN`),
        ],
      });
    });
}
