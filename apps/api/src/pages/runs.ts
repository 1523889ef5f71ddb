// Run pages: the runs list, the run page (status, progress, totals, agents with pass@1 interval
// and pass@k, per-task usage, the task × agent grid paged 100 tasks at a time, stop, downloads,
// live updates from the run's event stream: GET /runs/:name/stream, see live-script.ts), the stop
// confirmation and the attempt page.
// Scores come from loadRunResults (what GET /v1/runs/:name/results serves); nothing is re-scored here.

import path from 'node:path';
import {
  isActiveRunStatus,
  type RunFaults,
  RunListQuery,
  type RunSummary,
  roleAtLeast,
} from '@osmosis/contracts';
import { isTerminalRunStatus } from '@osmosis/core';
import type { FastifyReply } from 'fastify';
import { isUuid } from '../auth.ts';
import type { BlobSource } from '../routes/download-bytes.ts';
import { listRuns } from '../services/run-list.ts';
import { attemptWithEvents, runGrid, runPageRun } from '../services/run-page.ts';
import { findRunForResults, runResultsByName } from '../services/run-results.ts';
import { faultsOfRuns } from '../services/workers.ts';
import { inlineKind } from './artifact-view.ts';
import { stepsSection } from './attempt-steps.ts';
import { intervalSvg, passAtKCurve } from './charts.ts';
import { type PageContext, PageError, page, parseQuery } from './context.ts';
import { count, duration, passAt1, pct, TIED_RANK_NOTE, usd, when } from './format.ts';
import { type Html, html, qs, raw } from './html.ts';
import { LIVE_SCRIPT } from './live-script.ts';
import { assertOffsetInside, assertPageExists, offsetOf, pageNumberOf } from './page-position.ts';
import { qualitySection } from './quality.ts';
import { runCharts } from './run-charts.ts';
import { comparisonSection } from './run-compare.ts';
import { imagePinsLine } from './run-images.ts';
import { lockLine } from './run-lock.ts';
import { retryRunForm } from './run-retry.ts';
import { lastStepsHref, parseTrajectory, trajectorySection, verifierOutput } from './trajectory-view.ts';

const enc = encodeURIComponent;
/** marks a run read from a Harbor job directory (`runs import`) wherever it is listed */
const IMPORTED_BADGE = html` <span class="b imported">imported</span>`;
export const GRID_TASKS_PER_PAGE = 100;

function statusBadge(status: string) {
  return html`<span class="b ${status === 'failed' ? 'failed-run' : status}">${status}</span>`;
}

/** Beside a run's status: kept off the leaderboard, or its work waiting for a worker or an engine. */
function faultBadges(r: Pick<RunSummary, 'unranked_reason' | 'waiting'>) {
  return html`${r.unranked_reason ? html` <span class="b stopped" title="${r.unranked_reason}">not ranked</span>` : ''}${r.waiting.map(
    (w) =>
      html` <span class="b running" title="${w.message}">${w.reason === 'no_live_worker' ? 'no live worker' : 'waiting for engine'}</span>`,
  )}`;
}

/** The run page's lines on why its work does not move and why it is not ranked. */
function faultLines(f: RunFaults) {
  return html`${f.waiting.map((w) => html`<dt>Waiting</dt><dd><span class="err">${w.message}</span></dd>`)}${
    f.unranked_reason ? html`<dt>Leaderboard</dt><dd><span class="err">${f.unranked_reason}</span></dd>` : ''
  }`;
}

function progressBar(p: { done: number; total: number; fraction: number }) {
  return html`<span class="bar" role="progressbar" aria-valuenow="${p.done}" aria-valuemax="${p.total}"><span style="width:${(p.fraction * 100).toFixed(1)}%"></span></span> ${p.done} / ${p.total} attempts done`;
}

export async function runsPage(ctx: PageContext, reply: FastifyReply, query: Record<string, string>) {
  const offset = offsetOf(query, 'offset');
  // ?benchmark=KEY: the runs on one benchmark (the /v1 filter takes a key, exact name or id)
  const benchmark = query.benchmark || undefined;
  const list = await listRuns(
    ctx.app,
    ctx.auth.workspace.id,
    parseQuery(RunListQuery, { limit: '50', offset: String(offset), benchmark }),
  );
  assertOffsetInside('offset', offset, list.total_count);
  const pageOf = (at: number) => `/runs${qs({ benchmark, offset: String(at) })}`;
  return page(
    reply,
    ctx,
    'Runs',
    html`<h1>Runs${benchmark ? html` on <a href="/benchmarks/${enc(benchmark)}">${benchmark}</a>` : ''}</h1><table><thead><tr><th>Run</th><th>Benchmark</th><th>Status</th><th>Progress</th><th>Agents</th><th>Best pass@1</th><th>Created</th></tr></thead><tbody>${list.items.map(
      (
        r,
      ) => html`<tr><td><a href="/runs/${enc(r.name)}">${r.name}</a>${r.imported ? IMPORTED_BADGE : ''}</td><td><a href="/benchmarks/${enc(r.benchmark_key)}">${r.benchmark_name}</a></td>
<td>${statusBadge(r.status)}${faultBadges(r)}</td><td>${r.progress.done} / ${r.progress.total}</td><td class="n">${r.agent_count}</td><td class="n">${pct(r.best_pass_at_1)}</td><td>${when(r.created_at)}</td></tr>`,
    )}</tbody></table>
<nav class="pager">${offset > 0 ? html`<a href="${pageOf(Math.max(0, offset - 50))}">← newer</a>` : ''}<span>${list.total_count} run(s)</span>${list.has_more ? html`<a href="${pageOf(offset + 50)}">older →</a>` : ''}</nav>`,
  );
}

type GridAttempt = {
  id: string;
  agentId: string;
  taskId: string;
  index: number;
  status: string;
  outcome: string | null;
  reward: number | null;
  reusedFromAttemptId: string | null;
};

const LABEL: Record<string, string> = {
  passed: 'pass',
  failed: 'fail',
  errored: 'error',
  cancelled: 'cancel',
  running: 'running',
  queued: 'queued',
};

function attemptBadge(runName: string, a: GridAttempt) {
  const state = a.outcome ?? a.status;
  const reused = a.reusedFromAttemptId !== null;
  const title = `try ${a.index + 1}: ${state}${a.reward !== null ? `, reward ${a.reward}` : ''}${reused ? ', reused from an earlier run' : ''}`;
  return html`<a class="b ${state}" href="/runs/${enc(runName)}/attempts/${a.id}" title="${title}">${LABEL[state] ?? state}${reused ? ' ↺' : ''}</a>`;
}

export async function runPage(
  ctx: PageContext,
  reply: FastifyReply,
  name: string,
  query: Record<string, string>,
) {
  const db = ctx.app.db;
  const [results, run] = await Promise.all([
    runResultsByName(db, ctx.auth.workspace.id, name),
    runPageRun(db, ctx.auth.workspace.id, name),
  ]);
  if (!results || !run) throw new PageError(404, 'run');
  const show = query.show === 'failed' || query.show === 'errored' ? query.show : '';
  const category = query.category ?? '';
  const pageNo = pageNumberOf(query, 'page');
  const terminal = isTerminalRunStatus(results.status);
  // independent reads, side by side (one Promise.all: a failure of one is never left unhandled)
  const [faultsByRun, { tasks, categories, totalTasks, attempts }, comparison, retry, charts, lock] =
    await Promise.all([
      faultsOfRuns(db, [{ id: run.id, status: results.status, progress: results.progress }], {
        maxErroredShare: ctx.app.config.rankedMaxErroredShare,
        workspaceMax: ctx.app.config.workspaceMaxConcurrentAttempts,
      }),
      runGrid(db, run.id, {
        show,
        category,
        offset: (pageNo - 1) * GRID_TASKS_PER_PAGE,
        limit: GRID_TASKS_PER_PAGE,
      }),
      comparisonSection(ctx, name, results.agents, query),
      terminal ? retryRunForm(ctx, name) : '',
      runCharts(db, run.id, results),
      lockLine(db, run.id, `/runs/${enc(name)}`, run.reusedFrom),
    ]);
  const faults = faultsByRun.get(run.id)!;
  const cells = new Map<string, GridAttempt[]>();
  for (const a of attempts) {
    const k = `${a.taskId}|${a.agentId}`;
    const list = cells.get(k) ?? [];
    list.push(a);
    cells.set(k, list);
  }
  const byIndex = [...results.agents].sort((a, b) => a.index - b.index);
  const pages = Math.max(1, Math.ceil(totalTasks / GRID_TASKS_PER_PAGE));
  assertPageExists('page', pageNo, pages);
  const self = `/runs/${enc(name)}`;
  const link = (p: Record<string, string | number>) =>
    `${self}${qs({ show, category, page: pageNo, ...p })}#grid`;
  const p = results.progress;
  const t = results.totals;
  const canStop = isActiveRunStatus(results.status) && roleAtLeast(ctx.auth.role, 'member');
  const k = results.attempts_per_task;

  const agentsTable: Html = html`<table><thead><tr><th>Rank</th><th>Agent</th><th>Pass@1 (${Math.round(results.interval_level * 100)}% CI, ${results.interval_method})</th><th>Interval</th><th>Pass@k</th><th>Passed</th><th>Failed</th><th>Errored</th><th>Cost/task</th><th>Time/task</th><th>Tokens/task</th></tr></thead><tbody>${results.agents.map(
    (
      a,
    ) => html`<tr><td>${a.rank_label}</td><td>${a.label}</td><td class="n">${passAt1(a.pass_at_1, a.interval)}${a.interval && results.interval_method === 'mixed' ? ` ${a.interval.method}` : ''}</td>
<td>${intervalSvg(a.interval?.lower, a.interval?.upper, a.pass_at_1)}</td>
<td>${k > 1 ? html`${passAtKCurve(a.pass_at_k)}${a.pass_at_k.map((x) => html`<div>pass@${x.k} ${pct(x.value)}</div>`)}` : pct(a.pass_at_1)}</td>
<td class="n">${a.counts.passed}</td><td class="n">${a.counts.failed}</td><td class="n">${a.counts.errored}</td>
<td class="n">${usd(a.per_task.cost_usd)}</td><td class="n">${duration(a.per_task.time_ms)}</td><td class="n">${count(a.per_task.tokens)}</td></tr>`,
  )}</tbody></table>${results.agents.some((a) => a.tied) ? html`<p class="muted tie-note">${TIED_RANK_NOTE}</p>` : ''}`;

  const grid: Html = html`<h2 id="grid">Results by task</h2>
<form method="get" action="${self}#grid"><label>Show <select name="show"><option value="">all tasks</option>
<option value="failed"${show === 'failed' ? raw(' selected') : ''}>with a failed attempt</option>
<option value="errored"${show === 'errored' ? raw(' selected') : ''}>with an errored attempt</option></select></label>
<label>Category <select name="category"><option value="">all</option>${categories.map(
    (c) => html`<option${c.category === category ? raw(' selected') : ''}>${c.category}</option>`,
  )}</select></label> <button>Filter</button></form>
<p class="muted">Legend: <span class="b passed">pass</span> <span class="b failed">fail</span> <span class="b errored">error</span> <span class="b running">running</span> <span class="b queued">queued</span> <span class="b cancelled">cancel</span> · ↺ reused from an earlier run · ${totalTasks} task(s)</p>
<table><thead><tr><th>Task</th><th>Category</th>${byIndex.map((a) => html`<th>${a.label}</th>`)}</tr></thead><tbody>${tasks.map(
    (task) =>
      html`<tr><td>${task.name}</td><td>${task.category ?? '–'}</td>${byIndex.map(
        (a) =>
          html`<td>${(cells.get(`${task.id}|${a.agent_id}`) ?? []).map((x) => attemptBadge(name, x))}</td>`,
      )}</tr>`,
  )}</tbody></table>
${pages > 1 ? html`<nav class="pager">${pageNo > 1 ? html`<a href="${link({ page: pageNo - 1 })}">← previous</a>` : ''}<span>page ${pageNo} / ${pages}</span>${pageNo < pages ? html`<a href="${link({ page: pageNo + 1 })}">next →</a>` : ''}</nav>` : ''}`;

  const hasOutputs = results.status !== 'pending' && results.status !== 'queued';
  return page(
    reply,
    ctx,
    `Run ${name}`,
    html`<h1>Run ${name}${run.imported ? IMPORTED_BADGE : ''}</h1>
<div id="live" data-stream="${self}/stream" data-version="${results.status}:${p.done}:${p.running}">
<dl><dt>Status</dt><dd>${statusBadge(results.status)} ${run.errorMessage ? html`<span class="err">${run.errorMessage}</span>` : ''}</dd>
${faultLines(faults)}${run.waitingReason ? html`<dt>Waiting</dt><dd><span class="err">${run.waitingReason}</span></dd>` : ''}
<dt>Benchmark</dt><dd><a href="/benchmarks/${enc(run.benchmark.key)}">${run.benchmark.name}</a></dd>${imagePinsLine(run.imagePins)}${lock}
${run.imported ? html`<dt>Imported</dt><dd>from a Harbor job directory, not run here; ranked apart from runs made here, only when asked</dd>` : ''}
<dt>Progress</dt><dd>${progressBar(p)} · ${p.running} running · ${p.queued} queued</dd>
<dt>Duration</dt><dd>${duration(results.duration_ms)} (created ${when(results.created_at)}${results.finished_at ? html`, finished ${when(results.finished_at)}` : ''})</dd>
<dt>Tasks × attempts</dt><dd>${results.task_count} × ${k}, pass threshold ${run.passThreshold}, concurrency ${run.maxConcurrentAttempts}</dd>
${run.maxCostUsd === null ? '' : html`<dt>Budget</dt><dd>${usd(run.maxCostUsd)} (max_cost_usd; spent ${usd((t.cost_usd ?? 0) + (t.judge_cost_usd ?? 0))})</dd>`}
<dt>Totals</dt><dd><span class="b passed">passed ${t.passed}</span> <span class="b failed">failed ${t.failed}</span> <span class="b errored">errored ${t.errored}</span> <span class="b cancelled">cancelled ${t.cancelled}</span>
· ${count(t.tokens)} tokens (${count(t.input_tokens)} in, ${count(t.output_tokens)} out, ${count(t.cache_tokens)} cache) · cost ${usd(t.cost_usd)}${t.judge_cost_usd ? html` + judge ${usd(t.judge_cost_usd)}` : ''}</dd></dl>
${canStop ? html`<p><a class="b failed" href="${self}/stop">Stop this run…</a></p>` : ''}
${retry ? html`<p>${retry}</p>` : ''}
${hasOutputs ? html`<p>Download: <a href="${self}/files/summary.csv">summary.csv</a> · <a href="${self}/files/results.csv">results.csv</a> · <a href="${self}/files/logs.txt">logs.txt</a>${terminal ? '' : ' (current snapshot)'}</p>` : ''}
<h2>Agents</h2>${agentsTable}
${grid}
${qualitySection(results.agents)}
${charts}
${comparison}
${terminal ? '' : html`<p class="muted">Updates live as attempts start and finish.</p>`}
</div>`,
    terminal ? undefined : html`<script>${raw(LIVE_SCRIPT)}</script>`,
  );
}

export async function stopConfirmPage(ctx: PageContext, reply: FastifyReply, name: string) {
  const run = await findRunForResults(ctx.app.db, ctx.auth.workspace.id, name);
  if (!run) throw new PageError(404, 'run');
  if (!roleAtLeast(ctx.auth.role, 'member')) throw new PageError(403, 'Viewers cannot stop runs.');
  if (!isActiveRunStatus(run.status))
    throw new PageError(409, `Run ${name} is ${run.status}: it cannot be stopped.`);
  return page(
    reply,
    ctx,
    `Stop ${name}`,
    html`<h1>Stop run ${name}?</h1><p>Queued attempts are cancelled and running attempts aborted. This cannot be undone.</p>
<form method="post" action="/runs/${enc(name)}/stop"><input type="hidden" name="_csrf" value="${ctx.view.csrf}">
<button class="danger">Yes, stop the run</button> <a href="/runs/${enc(name)}">Cancel</a></form>`,
  );
}

// ---- attempt page ------------------------------------------------------------------------------

const TEXT_PREVIEW_BYTES = 64 * 1024;
const TRAJECTORY_MAX_BYTES = 64 * 1024 * 1024;

function blobSource(ctx: PageContext): BlobSource {
  return ctx.app.storage;
}

async function readBlob(ctx: PageContext, key: string, max: number): Promise<Buffer | null> {
  try {
    const stream = await blobSource(ctx).getStream(key);
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of stream) {
      chunks.push(chunk as Buffer);
      size += (chunk as Buffer).length;
      if (size >= max) {
        stream.destroy();
        break;
      }
    }
    return Buffer.concat(chunks).subarray(0, max);
  } catch {
    return null;
  }
}

export async function attemptPage(
  ctx: PageContext,
  reply: FastifyReply,
  name: string,
  id: string,
  query: Record<string, string>,
) {
  if (!isUuid(id)) throw new PageError(404, 'attempt');
  const found = await attemptWithEvents(ctx.app.db, ctx.auth.workspace.id, name, id);
  if (!found) throw new PageError(404, 'attempt');
  const { attempt: a, events } = found;
  const self = `/runs/${enc(name)}/attempts/${a.id}`;
  const verifierFiles = a.artifacts.filter(
    // a multi-step task's verifier files are under steps/<name>/verifier/; ctrf.json among them
    (x) => /^(steps\/[^/]+\/)?verifier\//.test(x.path) && /\.(txt|json|log)$/.test(x.path),
  );
  const verifier = await Promise.all(
    verifierFiles.slice(0, 5).map(async (x) => ({
      path: x.path,
      size: x.size,
      text: (await readBlob(ctx, x.storageKey, TEXT_PREVIEW_BYTES))?.toString('utf8') ?? null,
    })),
  );
  const trajArtifact = a.artifacts.find((x) => x.path === 'agent/trajectory.json');
  const parsed = trajArtifact
    ? parseTrajectory(
        trajArtifact.size <= TRAJECTORY_MAX_BYTES
          ? await readBlob(ctx, trajArtifact.storageKey, TRAJECTORY_MAX_BYTES)
          : null,
      )
    : null;
  const artifactPaths = new Set(a.artifacts.map((x) => x.path));
  const artifactHref = (p: string) => `${self}/artifacts/${p.split('/').map(enc).join('/')}`;
  // an image part's path, relative to the trajectory (agent/), as an existing artifact
  const trajectoryArtifact = (p: string) => {
    const rel = path.posix.normalize(`agent/${p}`);
    return artifactPaths.has(rel) && !rel.startsWith('..') ? artifactHref(rel) : null;
  };
  const trajectory: Html = parsed
    ? trajectorySection(parsed, self, query, trajectoryArtifact)
    : html`<p class="muted">No trajectory (<code>agent/trajectory.json</code>) was stored for this attempt.</p>`;
  const failed = a.outcome === 'failed' || a.outcome === 'errored';
  const lastSteps = failed && parsed?.ok ? lastStepsHref(self, parsed.trajectory) : null;
  const history = Array.isArray(a.history) ? (a.history as Record<string, unknown>[]) : [];
  const state = a.outcome ?? a.status;
  const tokens = (a.inputTokens ?? 0) + (a.outputTokens ?? 0) + (a.cacheTokens ?? 0);
  return page(
    reply,
    ctx,
    `Attempt ${a.task.name}`,
    html`<p><a href="/runs/${enc(name)}">← run ${name}</a></p><h1>${a.task.name} · ${a.agent.model} (${a.agent.harness}) · try ${a.index + 1}</h1>
<dl><dt>Outcome</dt><dd><span class="b ${state}">${state}</span></dd>
<dt>Reward</dt><dd>${a.reward ?? '–'}</dd>
${a.errorClass || a.errorMessage ? errorEntry(a) : ''}
<dt>Task</dt><dd>${a.task.category ?? '–'} · ${a.task.difficulty ?? 'no difficulty'}</dd>
<dt>Phases</dt><dd>environment ${duration(a.envMs)} · agent setup ${duration(a.agentSetupMs)} · agent ${duration(a.agentMs)} · verifier ${duration(a.verifierMs)}</dd>
<dt>Agent exit</dt><dd>${a.agentExitCode ?? '–'}${a.agentTimedOut ? ' (timed out)' : ''}</dd>
<dt>Tokens</dt><dd>${count(tokens)} (${count(a.inputTokens)} in, ${count(a.outputTokens)} out, ${count(a.cacheTokens)} cache)</dd>
<dt>Cost</dt><dd>${usd(a.costUsd)}${a.judgeCostUsd ? html` + judge ${usd(a.judgeCostUsd)}` : ''}</dd>
<dt>Tries</dt><dd>${a.tryCount}</dd>
<dt>Started / finished</dt><dd>${when(a.startedAt)} / ${when(a.finishedAt)}</dd></dl>
${stepsSection(a.steps)}
${
  history.length
    ? html`<h2>Earlier tries (retried)</h2><table><thead><tr><th>Try</th><th>Outcome</th><th>Error</th></tr></thead><tbody>${history.map(
        (h) =>
          html`<tr><td>${String(h.try ?? '')}</td><td>${String(h.outcome ?? '')}</td><td>${String(h.error_class ?? '')} ${String(h.error_message ?? '')}</td></tr>`,
      )}</tbody></table>`
    : ''
}
<h2>Events</h2>${
      events.length
        ? html`<table><thead><tr><th>Time</th><th>Level</th><th>Step</th><th>Message</th></tr></thead><tbody>${events.map(
            (e) =>
              html`<tr><td>${when(e.timestamp)}</td><td>${e.level}</td><td>${e.step}</td><td>${e.message}</td></tr>`,
          )}</tbody></table>`
        : html`<p class="muted">none</p>`
    }
<h2>Verifier output</h2>${lastSteps ? html`<p><a href="${lastSteps}">→ the agent's last steps before the verifier</a></p>` : ''}${
      verifier.length
        ? verifier.map(
            (v) =>
              html`<h4>${v.path} <span class="muted">(${count(v.size)} bytes${v.size > TEXT_PREVIEW_BYTES ? ', first 64 KiB' : ''})</span></h4>${v.text === null ? html`<pre>(not available from storage)</pre>` : verifierOutput(v.text, lastSteps)}`,
          )
        : html`<p class="muted">none</p>`
    }
<h2 id="trajectory">Trajectory</h2>${trajectory}
<h2>Artifacts</h2>${
      a.artifacts.length
        ? html`<table><thead><tr><th>Path</th><th>Size</th></tr></thead><tbody>${a.artifacts.map(
            (x) =>
              html`<tr><td><a href="${artifactHref(x.path)}">${x.path}</a>${
                inlineKind(x.path, x.size)
                  ? html` <a href="${self}/view/${x.path.split('/').map(enc).join('/')}" target="_blank" rel="noopener noreferrer">open</a>`
                  : ''
              }</td><td class="n">${count(x.size)}</td></tr>`,
          )}</tbody></table>`
        : html`<p class="muted">none</p>`
    }`,
  );
}

/** A scored attempt keeps the agent's error as Harbor does; it is a note there, not the outcome. */
function errorEntry(a: {
  outcome: string | null;
  errorClass: string | null;
  errorMessage: string | null;
}): Html {
  const scored = a.outcome === 'passed' || a.outcome === 'failed';
  return scored
    ? html`<dt>Agent error</dt><dd><code>${a.errorClass ?? ''}</code> ${a.errorMessage ?? ''} <span class="muted">(recorded; the verifier still ran and scored the attempt)</span></dd>`
    : html`<dt>Error</dt><dd><code>${a.errorClass ?? ''}</code> <span class="err">${a.errorMessage ?? ''}</span></dd>`;
}
