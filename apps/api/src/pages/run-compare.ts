// The run page's "Comparison" section: the paired comparison of two of the run's agents (the
// first two by default; ?cmp_a=&cmp_b= pick others by index) from the service of
// GET /v1/runs/:name/compare, with the tasks where the two differ. A comparison the service
// refuses shows its message in place.
import type { RunComparison, RunResults } from '@osmosis/contracts';
import { isApiError } from '../errors.ts';
import { compareRunOr404, compareRuns } from '../services/run-compare.ts';
import type { PageContext } from './context.ts';
import { P_VALUE_METHOD_TEXT, pairedInterval, pct, points, pValue } from './format.ts';
import { type Html, html, raw } from './html.ts';

const enc = encodeURIComponent;

function agentIndex(value: string | undefined, agents: RunResults['agents'], fallback: number): number {
  const n = Number(value);
  return Number.isInteger(n) && agents.some((a) => a.index === n) ? n : fallback;
}

export async function comparisonSection(
  ctx: PageContext,
  name: string,
  agents: RunResults['agents'],
  query: Record<string, string>,
): Promise<Html | string> {
  if (agents.length < 2) return '';
  const byIndex = [...agents].sort((x, y) => x.index - y.index);
  const a = agentIndex(query.cmp_a, byIndex, byIndex[0]!.index);
  const b = agentIndex(query.cmp_b, byIndex, byIndex[1]!.index);
  const self = `/runs/${enc(name)}`;
  const choose = (field: string, selected: number) =>
    html`<select name="${field}">${byIndex.map(
      (x) =>
        html`<option value="${x.index}"${x.index === selected ? raw(' selected') : ''}>${x.label}</option>`,
    )}</select>`;
  const form = html`<form method="get" action="${self}#comparison"><label>A ${choose('cmp_a', a)}</label> <label>B ${choose('cmp_b', b)}</label> <button>Compare</button></form>`;
  if (a === b) {
    return html`<h2 id="comparison">Comparison</h2>${form}<p class="muted">Pick two different agents.</p>`;
  }
  let c: RunComparison;
  try {
    const run = await compareRunOr404(ctx.app.db, ctx.auth.workspace.id, name);
    c = await compareRuns(ctx.app.db, run, null, `${a},${b}`);
  } catch (error) {
    if (!isApiError(error)) throw error;
    return html`<h2 id="comparison">Comparison</h2>${form}<p class="err">${error.message}</p>`;
  }
  const rows = c.differing_tasks.map(
    (t) =>
      html`<tr><td>${t.task}</td><td class="n">${t.a.passed}/${t.a.scored}</td><td class="n">${t.b.passed}/${t.b.scored}</td><td class="n"><span class="b ${t.difference > 0 ? 'passed' : 'failed'}">${points(t.difference)}</span></td></tr>`,
  );
  return html`<h2 id="comparison">Comparison</h2>${form}
<dl><dt>A</dt><dd>${c.a.label}${c.a.imported ? html` <span class="b imported">imported</span>` : ''} · pass@1 ${pct(c.pass_at_1_a)}</dd>
<dt>B</dt><dd>${c.b.label}${c.b.imported ? html` <span class="b imported">imported</span>` : ''} · pass@1 ${pct(c.pass_at_1_b)}</dd>
<dt>Difference (A − B)</dt><dd>${points(c.difference)}${c.excluded ? ` (${c.excluded} task(s) not scored by both left out)` : ''}</dd>
<dt>95% CI</dt><dd>${pairedInterval(c)}</dd>
<dt>p-value</dt><dd>${pValue(c.p_value)} (${P_VALUE_METHOD_TEXT[c.p_value_method]})</dd>
<dt>Per task</dt><dd>A better on ${c.wins}, B better on ${c.losses}, tied on ${c.ties}</dd></dl>
${
  rows.length === 0
    ? html`<p class="muted">No task where the two differ.</p>`
    : html`<h3>Tasks where the two differ (${c.differing_tasks.length}${c.differing_tasks_truncated ? ', the largest differences' : ''})</h3>
<table><thead><tr><th>Task</th><th>A passed</th><th>B passed</th><th>A − B</th></tr></thead><tbody>${rows}</tbody></table>`
}`;
}
