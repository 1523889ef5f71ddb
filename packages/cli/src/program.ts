// The root `osmosis` program: global options, help and output routing, no command groups (the
// runner adds the one a command line needs; `completion` loads them all into a program of its own).
import { Command } from 'commander';
import type { CliIO } from './context.ts';
import { cliVersion } from './version.ts';

export function buildProgram(io: CliIO, captureErr: (text: string) => void): Command {
  const program = new Command('osmosis')
    .description('Osmosis: run benchmarks of AI agents on your own platform')
    .version(cliVersion(), '-V, --version', 'print the CLI version')
    .option('--json', 'machine output: one JSON envelope per line on stdout, errors as JSON on stderr')
    .option(
      '--plain',
      'low-noise text for pipelines: tab-separated rows, `Label: value` details; never prompts',
    )
    .option(
      '--env-file <path>',
      'load environment variables from this dotenv file (default: the nearest .env)',
    )
    .option('--platform <url>', 'platform URL (default: $OSMOSIS_PLATFORM_URL or http://127.0.0.1:8787)')
    .option('--workspace <name>', 'use the stored login for this workspace')
    .helpOption('-h, --help', 'show help')
    .configureHelp({ showGlobalOptions: true })
    .addHelpText(
      'after',
      '\nCredentials: OSMOSIS_TOKEN, else the login stored by `osmosis auth login` (inside a git repository whose\n' +
        'origin is linked to a workspace, that workspace’s login).\n' +
        'Exit codes: 0 success, 1 any handled error or a partial result, 2 bad command line, 130 interrupted.',
    )
    .exitOverride()
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => captureErr(text),
      outputError: () => {},
    });
  return program;
}
