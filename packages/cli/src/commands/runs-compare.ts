// `osmosis benchmark runs compare RUN [OTHER_RUN] [--agents A,B]`: the paired comparison of two
// agents on the same tasks (GET /v1/runs/:name/compare). Registered on the `runs` command with
// `registerRunsCompare(runs)`.
import type { RunComparison } from '@osmosis/contracts';
import type { Command } from 'commander';
import { authenticatedClient } from '../api.ts';
import { contextOf } from '../context.ts';
import { CliError } from '../errors.ts';
import {
  formatPairedInterval,
  formatPercent,
  formatPoints,
  formatPValue,
  P_VALUE_METHOD_TEXT,
} from '../format.ts';
import { printObject } from '../output.ts';
import type { Style } from '../style.ts';
import { renderKeyValue, renderTable } from '../table.ts';

export function renderComparison(c: RunComparison, s: Style, color: boolean): string {
  const name = (side: RunComparison['a']) =>
    `${side.label} — agent ${side.agent_index} of run ${side.run_name}${side.imported ? ' (imported from Harbor)' : ''}`;
  const head = renderKeyValue(
    [
      ['A', name(c.a)],
      ['B', name(c.b)],
      ['Benchmark', `${c.benchmark_key} (pass ≥ ${c.pass_threshold})`],
      [
        'Tasks',
        `${c.tasks} scored by both${c.excluded ? `, ${c.excluded} left out (not scored by both)` : ''}`,
      ],
      ['Pass@1', `A ${formatPercent(c.pass_at_1_a)}, B ${formatPercent(c.pass_at_1_b)}`],
      ['Difference', `${formatPoints(c.difference)} (A − B)`],
      ['95% CI', formatPairedInterval(c)],
      ['p-value', `${formatPValue(c.p_value)} (${P_VALUE_METHOD_TEXT[c.p_value_method]})`],
      ['Per task', `A better on ${c.wins}, B better on ${c.losses}, tied on ${c.ties}`],
    ],
    { color },
  );
  if (c.differing_tasks.length === 0) return `${head}\n\n${s.dim('No task where the two differ.')}`;
  const table = renderTable(
    [
      { header: 'Task', value: (t) => t.task, noShrink: true },
      { header: 'A passed', value: (t) => `${t.a.passed}/${t.a.scored}`, align: 'right' },
      { header: 'B passed', value: (t) => `${t.b.passed}/${t.b.scored}`, align: 'right' },
      {
        header: 'A − B',
        value: (t) =>
          t.difference > 0 ? s.green(formatPoints(t.difference)) : s.red(formatPoints(t.difference)),
        align: 'right',
      },
    ],
    c.differing_tasks,
    { color },
  );
  const more = c.differing_tasks_truncated
    ? `\n${s.dim(`(the ${c.differing_tasks.length} largest differences; --json has the same list)`)}`
    : '';
  return `${head}\n\nTasks where the two differ (${c.differing_tasks.length})\n${table}${more}`;
}

export function registerRunsCompare(runs: Command): Command {
  return runs
    .command('compare <run> [other_run]')
    .description(
      'Paired comparison of two agents on the same tasks: difference of pass@1 with a 95% interval, p-value, wins/losses/ties',
    )
    .option(
      '--agents <a,b>',
      'the two agents: index (as in runs info), harness, model or "model (harness)"; A of RUN, B of OTHER_RUN (or of RUN). Default: the first two agents of RUN, or the only agent of each run',
    )
    .action(async (run: string, otherRun: string | undefined, options: { agents?: string }, cmd: Command) => {
      const ctx = contextOf(cmd);
      const client = authenticatedClient(ctx);
      const { RunCompareResponse } = await import('@osmosis/contracts');
      const res = await client
        .get(`/v1/runs/${encodeURIComponent(run)}/compare`, RunCompareResponse, {
          query: { other: otherRun, agents: options.agents },
        })
        .catch((error: unknown) => {
          throw withAgentsHint(error, run, otherRun);
        });
      printObject(ctx, res.data, (c, s) => renderComparison(c, s, ctx.color));
    });
}

/** A refused choice of agents: the hint says how to name them with this command's flag. */
function withAgentsHint(error: unknown, run: string, otherRun: string | undefined): unknown {
  if (!(error instanceof CliError) || error.code !== 'VALIDATION_ERROR') return error;
  const issues = (error.details as { issues?: { path?: string }[] } | null)?.issues ?? [];
  if (!issues.some((i) => i.path === 'query.agents')) return error;
  const other = otherRun ? ` ${otherRun}` : '';
  return new CliError(error.code, error.message, {
    details: error.details,
    ...(error.status === undefined ? {} : { status: error.status }),
    hint: `pass --agents A,B (each an index, harness, model or "model (harness)"), e.g. osmosis benchmark runs compare ${run}${other} --agents 0,1; \`osmosis benchmark runs info ${run}\` lists the agents`,
  });
}
