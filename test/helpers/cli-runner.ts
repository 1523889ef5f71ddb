// Runs `osmosis benchmark …` in-process against a fake terminal, as the CLI's entry point would:
// the outcome is the exit code, the CliError (if any) and what was printed.
import {
  buildProgram,
  CliError,
  type FakeIO,
  pendingExitCode,
  registerBenchmark,
  setCurrentIO,
  setExitCode,
} from '@osmosis/cli/testing';

export interface CliOutcome {
  /** -1 when a CliError ended the command, else the exit code it set */
  code: number;
  error: CliError | undefined;
  out: string;
  err: string;
}

export async function runBenchmarkCli(io: FakeIO, argv: string[]): Promise<CliOutcome> {
  setCurrentIO(io);
  setExitCode(0);
  const program = buildProgram(io, (t) => io.stderr.write(t));
  registerBenchmark(program);
  let error: CliError | undefined;
  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (caught) {
    if (!(caught instanceof CliError)) throw caught;
    error = caught;
  }
  return { code: error ? -1 : pendingExitCode(), error, out: io.out(), err: io.err() };
}
