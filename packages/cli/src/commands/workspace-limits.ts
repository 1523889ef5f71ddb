// `osmosis workspace limits [--set N | --reset]`: the workspace's limit on attempts in flight
// across all its runs. Every member reads it; admins and owners set it, up to the operator's
// maximum (the platform refuses more, naming both numbers). Thin: GET/PUT /v1/workspace/limits.
import type { WorkspaceLimits } from '@osmosis/contracts';
import { type Command, Option } from 'commander';
import { authenticatedClient } from '../api.ts';
import { contextOf } from '../context.ts';
import { intArg } from '../options.ts';
import { printAction, printObjectAs, step } from '../output.ts';
import { renderKeyValue } from '../table.ts';

const attempts = (n: number) => `${n} attempt${n === 1 ? '' : 's'}`;

/** The limits as `Label: value` rows (human and `--plain`). */
export function limitRows(l: WorkspaceLimits): [string, string][] {
  return [
    ['Limit in force', `${attempts(l.max_concurrent_attempts)} at once across the workspace's runs`],
    [
      'Workspace setting',
      l.workspace_max_concurrent_attempts === null
        ? "none (the operator's maximum applies)"
        : String(l.workspace_max_concurrent_attempts),
    ],
    ['Operator maximum', String(l.operator_max_concurrent_attempts)],
    ['In flight now', attempts(l.attempts_in_flight)],
  ];
}

/** Adds `limits` to the `workspace` command group. */
export function registerLimits(workspace: Command): Command {
  return workspace
    .command('limits')
    .description(
      "The workspace's limit on attempts in flight at once across all its runs, and how many are in\n" +
        "flight now. Admins and owners change it with --set N (up to the operator's maximum) or --reset.\n" +
        'A run config whose [execution] max_concurrent_attempts is above the limit is refused at submit.',
    )
    .addOption(
      new Option('--set <n>', 'set the limit to N attempts at once (admins and owners)')
        .argParser(intArg(1))
        .conflicts('reset'),
    )
    .addOption(new Option('--reset', "remove the workspace's own limit: the operator's maximum applies"))
    .action(async (options: { set?: number; reset?: boolean }, cmd: Command) => {
      const ctx = contextOf(cmd);
      const client = authenticatedClient(ctx);
      const { WorkspaceLimitsResponse } = await import('@osmosis/contracts');
      if (options.set === undefined && !options.reset) {
        const limits = (await client.get('/v1/workspace/limits', WorkspaceLimitsResponse)).data;
        printObjectAs(ctx, limits, { plain: limitRows }, (l) =>
          renderKeyValue(limitRows(l), { color: ctx.color }),
        );
        return;
      }
      const value = options.reset ? null : (options.set ?? null);
      const limits = (
        await client.put('/v1/workspace/limits', WorkspaceLimitsResponse, {
          body: { max_concurrent_attempts: value },
        })
      ).data;
      printAction(ctx, {
        status: 'success',
        operation: 'workspace.limits.set',
        resource: { type: 'workspace_limits', ...limits },
        message:
          value === null
            ? `The workspace's own limit is removed: the operator's maximum of ${attempts(limits.max_concurrent_attempts)} at once applies.`
            : `The workspace now runs at most ${attempts(limits.max_concurrent_attempts)} at once across its runs (${limits.attempts_in_flight} in flight now).`,
        next_steps_structured: [step('See the limits', 'osmosis workspace limits')],
      });
    });
}
