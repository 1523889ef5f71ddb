// The attempt page's trajectory (the stored `agent/trajectory.json`, ATIF): step by step, the
// message, reasoning, tool calls, observation, tokens, cost and latency; searched on the server
// (`?q=`, a plain GET form: the pages run no script of their own here), paged by `?steps=`.
// Everything in a trajectory was written by the agent or its CLI and is hostile: it is only ever
// text in the page (html`` escapes it), long texts are cut, and the only links made are to this
// page's own anchors and to artifacts of the attempt that exist (an image part's path is looked up
// among them, never used as a URL).
import type { AtifContent, AtifStep, AtifTrajectory as AtifTrajectoryType } from '@osmosis/contracts';
import { AtifTrajectory, atifProblems } from '@osmosis/contracts';
import { count, duration, usd } from './format.ts';
import { type Html, html, qs } from './html.ts';
import { assertPageExists, pageNumberOf } from './page-position.ts';

export const STEPS_PER_PAGE = 10;
/** What one text of a step shows; the rest is in the downloaded file. */
export const STEP_TEXT_MAX = 16 * 1024;
/** Embedded subagents' steps shown each (their full text is in the file). */
const SUBAGENT_STEPS_MAX = 20;
const QUERY_MAX = 200;

export type ParsedTrajectory = { ok: true; trajectory: AtifTrajectoryType } | { ok: false; why: string };

/** The stored bytes as ATIF, or why they cannot be shown. */
export function parseTrajectory(buf: Buffer | null): ParsedTrajectory {
  if (!buf) return { ok: false, why: 'The trajectory is too large or not available to show here' };
  let data: unknown;
  try {
    data = JSON.parse(buf.toString('utf8'));
  } catch {
    return { ok: false, why: 'The trajectory is not JSON' };
  }
  const parsed = AtifTrajectory.safeParse(data);
  if (parsed.success) return { ok: true, trajectory: parsed.data };
  const problems = atifProblems(data).slice(0, 3).join('; ');
  return { ok: false, why: `The trajectory is not valid ATIF (${problems})` };
}

/** Where the attempt's artifacts are linked from: the href of an existing artifact path, else null. */
export type ArtifactHref = (path: string) => string | null;

function clipped(text: string): Html {
  if (text.length <= STEP_TEXT_MAX) return html`<pre>${text}</pre>`;
  return html`<pre>${text.slice(0, STEP_TEXT_MAX)}</pre><p class="muted">… ${count(text.length - STEP_TEXT_MAX)} more characters (in the downloaded trajectory)</p>`;
}

const plain = (c: AtifContent | null | undefined): string =>
  c == null
    ? ''
    : typeof c === 'string'
      ? c
      : c.map((p) => (p.type === 'text' ? (p.text ?? '') : `[image ${p.source?.path ?? ''}]`)).join('\n');

function contentView(c: AtifContent | null | undefined, artifact: ArtifactHref): Html {
  if (c == null || typeof c === 'string') return clipped(c ?? '');
  return html`${c.map((p) => {
    if (p.type === 'text') return clipped(p.text ?? '');
    const where = p.source?.path ?? '';
    const href = artifact(where);
    return href
      ? html`<p>image: <a href="${href}" target="_blank" rel="noopener noreferrer">${where}</a></p>`
      : html`<p class="muted">image: ${where} (not among the attempt's artifacts)</p>`;
  })}`;
}

function argumentsText(args: Record<string, unknown>): string {
  if (
    typeof args.keystrokes === 'string' &&
    Object.keys(args).every((k) => k === 'keystrokes' || k === 'duration')
  )
    return `${args.keystrokes}${typeof args.duration === 'number' ? `   [wait ${args.duration}s]` : ''}`;
  return JSON.stringify(args, null, 2);
}

/** Everything a search looks in: message, reasoning, tool calls, observation. */
function searchableText(s: AtifStep): string {
  return [
    plain(s.message),
    s.reasoning_content ?? '',
    ...(s.tool_calls ?? []).map((c) => `${c.function_name} ${JSON.stringify(c.arguments)}`),
    ...(s.observation?.results ?? []).map((r) => plain(r.content)),
  ]
    .join('\n')
    .toLowerCase();
}

function metricsLine(s: AtifStep): string {
  const m = s.metrics;
  if (!m) return '';
  const parts: string[] = [];
  if (m.prompt_tokens != null || m.completion_tokens != null)
    parts.push(
      `${count(m.prompt_tokens ?? 0)} in${m.cached_tokens ? ` (${count(m.cached_tokens)} cached)` : ''}, ${count(m.completion_tokens ?? 0)} out`,
    );
  if (m.cost_usd != null) parts.push(usd(m.cost_usd));
  const latency = m.extra?.latency_ms;
  if (typeof latency === 'number' && Number.isFinite(latency)) parts.push(duration(latency));
  return parts.length ? ` · ${parts.join(' · ')}` : '';
}

interface ViewContext {
  artifact: ArtifactHref;
  /** The anchor of each embedded subagent by trajectory_id. */
  subagents: Map<string, string>;
  /** Prefix of step anchors (`step-` for the root, `sub-2-step-` inside a subagent). */
  anchor: string;
}

function observationView(s: AtifStep, v: ViewContext): Html {
  const results = s.observation?.results ?? [];
  if (!results.length) return html``;
  return html`<h4>Observation</h4>${results.map((r) => {
    const refs = (r.subagent_trajectory_ref ?? []).map((ref) => {
      const to = ref.trajectory_id != null ? v.subagents.get(ref.trajectory_id) : undefined;
      const label = ref.trajectory_id ?? ref.trajectory_path ?? '';
      const summary = typeof ref.extra?.summary === 'string' ? ` (${ref.extra.summary})` : '';
      return to
        ? html`<li>subagent <a href="#${to}">${label}</a>${summary}</li>`
        : html`<li>subagent ${label}${summary}</li>`;
    });
    return html`${r.source_call_id != null ? html`<p class="muted">result of ${r.source_call_id}</p>` : ''}${
      r.content != null ? contentView(r.content, v.artifact) : ''
    }${refs.length ? html`<ul>${refs}</ul>` : ''}`;
  })}`;
}

function stepView(s: AtifStep, v: ViewContext): Html {
  const calls = s.tool_calls ?? [];
  const flags = [s.is_copied_context ? 'copied context' : '', s.model_name ?? ''].filter(Boolean).join(' · ');
  return html`<div class="step" id="${v.anchor}${s.step_id}"><strong>Step ${s.step_id}</strong> <span class="muted">${s.source}${flags ? ` · ${flags}` : ''}${metricsLine(s)}</span>
${plain(s.message) ? html`<h4>Message</h4>${contentView(s.message, v.artifact)}` : ''}
${s.reasoning_content ? html`<h4>Reasoning</h4>${clipped(s.reasoning_content)}` : ''}
${calls.length ? html`<h4>Tool calls</h4>${calls.map((c) => html`<p><code>${c.function_name}</code> <span class="muted">${c.tool_call_id}</span></p>${clipped(argumentsText(c.arguments))}`)}` : ''}
${observationView(s, v)}</div>`;
}

function subagentsView(t: AtifTrajectoryType, v: ViewContext): Html {
  const subs = t.subagent_trajectories ?? [];
  if (!subs.length) return html``;
  return html`<h3>Subagents</h3>${subs.map((sub, i) => {
    const inner: ViewContext = { ...v, anchor: `sub-${i}-step-` };
    const shown = sub.steps.slice(0, SUBAGENT_STEPS_MAX);
    return html`<details id="subagent-${i}"><summary>${sub.agent.name} · ${sub.trajectory_id ?? ''} · ${sub.steps.length} step(s)</summary>${shown.map((s) => stepView(s, inner))}${
      sub.steps.length > shown.length
        ? html`<p class="muted">${sub.steps.length - shown.length} more step(s) in the downloaded trajectory</p>`
        : ''
    }</details>`;
  })}`;
}

function subagentAnchors(t: AtifTrajectoryType): Map<string, string> {
  const out = new Map<string, string>();
  (t.subagent_trajectories ?? []).forEach((sub, i) => {
    if (sub.trajectory_id != null) out.set(sub.trajectory_id, `subagent-${i}`);
  });
  return out;
}

function summaryLine(t: AtifTrajectoryType): Html {
  const f = t.final_metrics;
  const totals = f
    ? [
        f.total_prompt_tokens != null ? `${count(f.total_prompt_tokens)} prompt tokens` : '',
        f.total_completion_tokens != null ? `${count(f.total_completion_tokens)} completion tokens` : '',
        f.total_cost_usd != null ? usd(f.total_cost_usd) : '',
      ].filter(Boolean)
    : [];
  const stop = typeof t.extra?.stop_reason === 'string' ? ` · stop reason: ${t.extra.stop_reason}` : '';
  return html`<p class="muted">${t.agent.name} ${t.agent.version}${t.agent.model_name ? ` · ${t.agent.model_name}` : ''} · ${t.schema_version ?? 'ATIF-v1.7'} · ${t.steps.length} step(s)${totals.length ? ` · ${totals.join(' · ')}` : ''}${stop}</p>${
    t.notes ? html`<p class="muted">${t.notes}</p>` : ''
  }`;
}

/** The page of steps holding the last step, with its anchor: where a failed verifier line points. */
export function lastStepsHref(self: string, t: AtifTrajectoryType): string {
  const pages = Math.max(1, Math.ceil(t.steps.length / STEPS_PER_PAGE));
  return `${self}${qs({ steps: pages })}#step-${t.steps.length}`;
}

/** The trajectory section: summary, search form, the page of (matching) steps, subagents. */
export function trajectorySection(
  parsed: ParsedTrajectory,
  self: string,
  query: Record<string, string>,
  artifact: ArtifactHref,
): Html {
  if (!parsed.ok) return html`<p class="muted">${parsed.why}; download it below.</p>`;
  const t = parsed.trajectory;
  const q = (query.q ?? '').slice(0, QUERY_MAX);
  const needle = q.trim().toLowerCase();
  const steps = needle ? t.steps.filter((s) => searchableText(s).includes(needle)) : t.steps;
  const pages = Math.max(1, Math.ceil(steps.length / STEPS_PER_PAGE));
  const at = pageNumberOf(query, 'steps');
  assertPageExists('steps', at, pages);
  const from = (at - 1) * STEPS_PER_PAGE;
  const link = (p: number) => `${self}${qs({ q: q || null, steps: p })}#trajectory`;
  const nav =
    pages > 1
      ? html`<nav class="pager">${at > 1 ? html`<a href="${link(at - 1)}">← earlier steps</a>` : ''}<span>steps ${from + 1}–${Math.min(steps.length, from + STEPS_PER_PAGE)} of ${steps.length}</span>${at < pages ? html`<a href="${link(at + 1)}">later steps →</a>` : ''}</nav>`
      : html``;
  const v: ViewContext = { artifact, subagents: subagentAnchors(t), anchor: 'step-' };
  const form = html`<form method="get" action="${self}#trajectory" role="search"><input type="search" name="q" value="${q}" maxlength="${QUERY_MAX}" placeholder="Search the trajectory"> <button>Search</button>${
    needle ? html` <a href="${self}#trajectory">clear</a>` : ''
  }</form>`;
  const found = needle ? html`<p class="muted">${steps.length} step(s) match “${q}”</p>` : html``;
  return html`${summaryLine(t)}${form}${found}${nav}${steps.slice(from, from + STEPS_PER_PAGE).map((s) => stepView(s, v))}${nav}${subagentsView(t, v)}`;
}

const FAILED_LINE = /\b(FAILED|FAIL|ERROR|AssertionError|Traceback)\b|\bfailed\b/;

/** A verifier's output, its failure lines linked to the agent's last steps when there is a trajectory. */
export function verifierOutput(text: string, lastSteps: string | null): Html {
  if (!lastSteps) return html`<pre>${text}</pre>`;
  return html`<pre>${text
    .split('\n')
    .map(
      (line, i) =>
        html`${i ? '\n' : ''}${FAILED_LINE.test(line) ? html`<a href="${lastSteps}" title="the agent's last steps">${line}</a>` : line}`,
    )}</pre>`;
}
