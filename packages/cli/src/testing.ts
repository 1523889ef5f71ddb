// Test helpers: an in-memory CliIO (not used by the CLI itself), and the modules test/ drives.
import { PassThrough } from 'node:stream';
import type { CliIO } from './context.ts';

export interface FakeIO extends CliIO {
  stdin: PassThrough & { isTTY?: boolean; setRawMode?: (mode: boolean) => unknown };
  out(): string;
  err(): string;
  rawModes: boolean[];
}

export interface FakeIOOptions {
  /** Text on stdin, then end (piped input). Omit for a stdin that stays open. */
  stdin?: string;
  stdinTTY?: boolean;
  stdoutTTY?: boolean;
  stderrTTY?: boolean;
  columns?: number;
  env?: NodeJS.ProcessEnv;
  /** working directory (default `/`: no git repository and no `.env` around, whatever runs the test) */
  cwd?: string;
}

export function fakeIO(options: FakeIOOptions = {}): FakeIO {
  const stdin = new PassThrough() as FakeIO['stdin'];
  const rawModes: boolean[] = [];
  if (options.stdinTTY) {
    stdin.isTTY = true;
    stdin.setRawMode = (mode: boolean) => {
      rawModes.push(mode);
      return stdin;
    };
  }
  if (options.stdin !== undefined) stdin.end(options.stdin);
  let out = '';
  let err = '';
  const stdout = new PassThrough() as PassThrough & { isTTY?: boolean; columns?: number };
  const stderr = new PassThrough() as PassThrough & { isTTY?: boolean; columns?: number };
  stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  stderr.on('data', (chunk: Buffer) => {
    err += chunk.toString();
  });
  if (options.stdoutTTY) {
    stdout.isTTY = true;
    stdout.columns = options.columns ?? 80;
  }
  if (options.stderrTTY) stderr.isTTY = true;
  return {
    stdin,
    stdout,
    stderr,
    env: options.env ?? {},
    cwd: options.cwd ?? '/',
    out: () => out,
    err: () => err,
    rawModes,
  };
}

// What the cross-process tests in test/ drive directly (they import `@osmosis/cli/testing`).
export { register as registerBenchmark } from './commands/benchmark-group.ts';
export { runsDownloadAction } from './commands/download.ts';
export { runsExportAction } from './commands/runs-export.ts';
export { register as registerSecret } from './commands/secret.ts';
export { watchRun } from './commands/watch.ts';
export * from './compat-doc.ts';
export { buildContext, setCurrentIO } from './context.ts';
export { downloadRun } from './download/download.ts';
export { CliError } from './errors.ts';
export { ApiClient } from './http.ts';
export { pendingExitCode, setExitCode } from './output.ts';
export { buildProgram, run } from './runner.ts';
export { stripAnsi } from './style.ts';
export * from './upstream-keys.ts';
