// Option helpers shared by command groups, so `--limit`, `--all` and `--yes` mean the same
// everywhere. A bad value is a bad command line (exit code 2) naming the option.
import { type Command, InvalidArgumentError } from 'commander';
import { CliError } from './errors.ts';

/** A commander parser for an integer in [min, max]. */
export function intArg(min: number, max = Number.MAX_SAFE_INTEGER): (value: string) => number {
  return (value: string) => {
    const n = Number(value);
    if (!/^-?\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < min || n > max) {
      throw new InvalidArgumentError(
        max !== Number.MAX_SAFE_INTEGER
          ? `expected an integer from ${min} to ${max}`
          : min === 1
            ? 'expected a positive integer'
            : `expected an integer ≥ ${min}`,
      );
    }
    return n;
  };
}

export interface ListOptions {
  limit: number;
  all?: boolean;
}

/** Upstream's page size: `--limit` defaults to it and may not exceed it (osmosis_ai/platform/constants.py). */
export const DEFAULT_LIST_LIMIT = 50;
export const MAX_LIST_LIMIT = 50;
/** `runs logs --limit`: at most 200 events (upstream's MAX_LOG_PAGE_SIZE). */
export const MAX_LOG_LIMIT = 200;

export interface ListOptionSpec {
  /** help of --limit (default "maximum number of rows to show") */
  limitHelp?: string;
  /** help of --all (default "fetch every page") */
  allHelp?: string;
}

/**
 * `--limit N` (1 to 50, default 50, as upstream; a value out of range is a bad command line,
 * exit code 2) and `--all` (every page). `--all` with another `--limit` than 50 is refused
 * (exit code 1), as upstream's `validate_list_options`. Every list command takes these.
 */
export function addListOptions(cmd: Command, spec: ListOptionSpec = {}): Command {
  return cmd
    .option(
      '--limit <n>',
      spec.limitHelp ?? 'maximum number of rows to show (1 to 50)',
      intArg(1, MAX_LIST_LIMIT),
      DEFAULT_LIST_LIMIT,
    )
    .option('--all', spec.allHelp ?? 'fetch every page')
    .hook('preAction', (command) => {
      const options = command.opts<Partial<ListOptions>>();
      if (options.all && options.limit !== DEFAULT_LIST_LIMIT) {
        throw new CliError('USAGE_ERROR', '--all and --limit are mutually exclusive', {
          hint: 'drop --limit to fetch every page, or drop --all',
        });
      }
    });
}

/** `--yes`: confirm without asking (needed when there is no terminal). */
export function addYesOption(
  cmd: Command,
  what = 'confirm without asking (required without a terminal)',
): Command {
  return cmd.option('-y, --yes', what);
}
