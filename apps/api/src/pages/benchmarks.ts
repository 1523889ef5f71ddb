// Benchmark pages: the workspace's benchmarks, and one benchmark (metadata, task manifest with
// filters, the leaderboard from computeLeaderboard via the service of GET /v1/benchmarks/:key, and its runs).
import type { Benchmark, LeaderboardEntry, UnrankedEntry } from '@osmosis/contracts';
import type { FastifyReply } from 'fastify';
import { benchmarkDetail } from '../services/benchmark-detail.ts';
import { listBenchmarks } from '../services/benchmark-wire.ts';
import { benchmarkCharts } from './benchmark-charts.ts';
import { retrySyncForm } from './benchmark-sync.ts';
import { intervalSvg } from './charts.ts';
import { type PageContext, page } from './context.ts';
import { count, duration, passAt1, pct, TIED_RANK_NOTE, usd, when } from './format.ts';
import { type Html, html, qs, raw } from './html.ts';
import { assertPageExists, pageNumberOf } from './page-position.ts';
import { comparableCell, comparableFilter, comparableHeader, leaderboardFor } from './quality.ts';

const enc = encodeURIComponent;

function syncCell(b: Benchmark) {
  if (b.sync_status === 'failed')
    return html`<span class="b failed">sync failed</span> <span class="err">${b.sync_error ?? ''}</span>`;
  if (b.sync_status !== 'ready') {
    const of = b.expected_task_count ? ` / ${b.expected_task_count}` : '';
    return html`<span class="b syncing">${b.sync_status}</span> ${b.synced_task_count}${of} tasks`;
  }
  return b.last_run
    ? html`<a href="/runs/${enc(b.last_run.name)}">${b.last_run.name}</a> <span class="b ${b.last_run.status}">${b.last_run.status}</span> ${when(b.last_run.created_at)}`
    : html`<span class="muted">no runs yet</span>`;
}

export async function benchmarksPage(ctx: PageContext, reply: FastifyReply) {
  const list = await listBenchmarks(ctx.app.db, ctx.app.config.publicUrl, ctx.auth.workspace.id, {
    limit: 200,
    offset: 0,
  });
  const syncing = list.items.some((b) => b.sync_status === 'pending' || b.sync_status === 'syncing');
  const rows = list.items.map(
    (b) => html`<tr><td><a href="/benchmarks/${enc(b.key)}">${b.name}</a></td><td><code>${b.key}</code></td>
<td>${syncCell(b)}</td><td class="n">${b.sync_status === 'ready' ? count(b.task_count) : b.sync_status === 'failed' ? 'unavailable' : '–'}</td></tr>`,
  );
  return page(
    reply,
    ctx,
    'Benchmarks',
    html`<h1>Benchmarks</h1>${syncing ? html`<p class="muted">Syncing — this page refreshes every 5 s.</p>` : ''}
<table><thead><tr><th>Name</th><th>Key</th><th>Last run / sync</th><th>Tasks</th></tr></thead>
<tbody>${rows.length ? rows : html`<tr><td colspan="4">No benchmarks in this workspace yet (<code>osmosis benchmark add</code>).</td></tr>`}</tbody></table>
<p class="muted">${list.total_count} benchmark(s)</p>`,
    syncing ? raw('<meta http-equiv="refresh" content="5">') : undefined,
  );
}

const TASKS_PER_PAGE = 200;

/** Imported runs (`runs import`), ranked among themselves and only when asked, apart from the board. */
function importedBoard(b: { key: string; leaderboard_imported: LeaderboardEntry[] }, shown: boolean) {
  if (!shown)
    return html`<p class="muted"><a href="/benchmarks/${enc(b.key)}?include_imported=1">Show imported runs</a> (from Harbor job directories, ranked apart)</p>`;
  return html`<h3>Imported runs <span class="b imported">imported</span></h3><p class="muted">Read from Harbor job directories, not run here: ranked among themselves only.</p>${
    b.leaderboard_imported.length
      ? html`<table><thead><tr><th>Rank</th><th>Agent</th><th>Pass@1 (95% CI)</th><th>Run</th></tr></thead><tbody>${b.leaderboard_imported.map(
          (e) =>
            html`<tr><td>${e.rank_label}</td><td>${e.label}</td><td class="n">${passAt1(e.pass_at_1, e.interval)}</td><td><a href="/runs/${enc(e.run_name)}">${e.run_name}</a></td></tr>`,
        )}</tbody></table>`
      : html`<p class="muted">none</p>`
  }`;
}

export async function benchmarkPage(
  ctx: PageContext,
  reply: FastifyReply,
  key: string,
  query: Record<string, string>,
) {
  const includeImported = query.include_imported === '1';
  const b = await benchmarkDetail(ctx.app, ctx.auth.workspace.id, key, ctx.app.log, { includeImported });
  const fullBoard = b.leaderboard;
  b.leaderboard = await leaderboardFor(ctx, b, query);
  const category = query.category ?? '';
  const difficulty = query.difficulty ?? '';
  const q = (query.q ?? '').toLowerCase();
  const filtered = b.tasks.filter(
    (t) =>
      (!category || t.category === category) &&
      (!difficulty || (difficulty === 'none' ? t.difficulty === null : t.difficulty === difficulty)) &&
      (!q || t.name.toLowerCase().includes(q)),
  );
  const pageNo = pageNumberOf(query, 'page');
  const pages = Math.max(1, Math.ceil(filtered.length / TASKS_PER_PAGE));
  assertPageExists('page', pageNo, pages);
  const shown = filtered.slice((pageNo - 1) * TASKS_PER_PAGE, pageNo * TASKS_PER_PAGE);
  const link = (p: number) => `/benchmarks/${enc(b.key)}${qs({ category, difficulty, q: query.q, page: p })}`;
  const sourceUrl = b.source_url && /^https?:\/\//.test(b.source_url) ? b.source_url : null;
  const hasK = b.leaderboard.some((e) => e.pass_at_k && e.pass_at_k.k > 1);
  const charts = await benchmarkCharts(ctx, b, query);
  return page(
    reply,
    ctx,
    b.name,
    html`<h1>${b.name}</h1>
<dl><dt>Key</dt><dd><code>${b.key}</code></dd>
<dt>Source</dt><dd>${sourceUrl ? html`<a href="${sourceUrl}" rel="noopener noreferrer">${sourceUrl}</a>` : (b.source_url ?? b.source_kind)}</dd>
<dt>Sync</dt><dd><span class="b ${b.sync_status}">${b.sync_status}</span> ${b.sync_error ? html`<span class="err">${b.sync_error}</span>` : ''}${retrySyncForm(ctx, b)}</dd>
<dt>Tasks</dt><dd>${b.task_count} in ${b.category_count} categories (easy ${b.difficulty_counts.easy ?? 0}, medium ${b.difficulty_counts.medium ?? 0}, hard ${b.difficulty_counts.hard ?? 0}, none ${b.difficulty_counts.none ?? 0})</dd>
<dt>Default harness</dt><dd><code>${b.default_harness}</code></dd>
<dt>Judge</dt><dd>${b.requires_judge_model ? html`required (default <code>${b.judge_model_default ?? '–'}</code>)` : 'not required'}</dd>
<dt>Required secrets</dt><dd>${b.required_secret_names.length ? b.required_secret_names.join(', ') : 'none'}</dd>
<dt>Pass threshold</dt><dd>${b.pass_threshold}</dd></dl>
${b.description ? html`<p>${b.description}</p>` : ''}
<h2>Task sets</h2>${
      b.task_sets.length
        ? html`<table><thead><tr><th>Name</th><th>Tasks</th><th>Recommended</th><th>Description</th></tr></thead><tbody>${b.task_sets.map(
            (s) =>
              html`<tr><td>${s.name}</td><td class="n">${s.task_count}</td><td>${s.recommended ? 'yes' : ''}</td><td>${s.description ?? ''}</td></tr>`,
          )}</tbody></table>`
        : html`<p class="muted">none</p>`
    }
<h2>Leaderboard</h2>${comparableFilter(b, query, fullBoard)}${
      b.leaderboard.length
        ? html`<table><thead><tr><th>Rank</th><th>Agent</th><th>Pass@1 (95% CI)</th><th>Interval</th>${hasK ? html`<th>Pass@k</th>` : ''}<th>Cost/task</th><th>Time/task</th><th>Tokens/task</th>${comparableHeader(b.leaderboard)}<th>Run</th></tr></thead><tbody>${b.leaderboard.map(
            (
              e,
            ) => html`<tr><td>${e.rank_label}</td><td>${e.label}</td><td class="n">${passAt1(e.pass_at_1, e.interval)}</td>
<td>${intervalSvg(e.interval?.lower, e.interval?.upper, e.pass_at_1)}</td>${hasK ? html`<td class="n">${e.pass_at_k ? `pass@${e.pass_at_k.k} ${pct(e.pass_at_k.value)}` : '–'}</td>` : ''}
<td class="n">${usd(e.per_task.cost_usd)}</td><td class="n">${duration(e.per_task.time_ms)}</td><td class="n">${count(e.per_task.tokens)}</td>${comparableCell(b.leaderboard, e)}<td><a href="/runs/${enc(e.run_name)}">${e.run_name}</a></td></tr>`,
          )}</tbody></table>${b.leaderboard.some((e) => e.tied) ? html`<p class="muted tie-note">${TIED_RANK_NOTE}</p>` : ''}${charts}`
        : html`<p class="muted">No finished runs on the full task set or a recommended set yet.</p>`
    }${unrankedTable(b.leaderboard_unranked)}${importedBoard(b, includeImported)}
<h2>Runs in this workspace</h2>${
      b.runs.length
        ? html`<table><thead><tr><th>Run</th><th>Status</th><th>Tasks</th><th>Created</th><th>Finished</th></tr></thead><tbody>${b.runs.map(
            (r) =>
              html`<tr><td><a href="/runs/${enc(r.name)}">${r.name}</a></td><td><span class="b ${r.status}">${r.status}</span></td><td class="n">${r.task_count}</td><td>${when(r.created_at)}</td><td>${when(r.finished_at)}</td></tr>`,
          )}</tbody></table>${
            b.run_count > b.runs.length
              ? html`<p>Showing the newest ${b.runs.length} of ${b.run_count} runs: <a href="/runs${qs({ benchmark: b.key })}">all runs on ${b.name}</a></p>`
              : ''
          }`
        : html`<p class="muted">No runs yet.</p>`
    }
<h2>Tasks</h2>
<form method="get"><label>Category <select name="category"><option value="">all</option>${b.categories.map(
      (c) => html`<option${c === category ? raw(' selected') : ''}>${c}</option>`,
    )}</select></label>
<label>Difficulty <select name="difficulty"><option value="">all</option>${[
      'easy',
      'medium',
      'hard',
      'none',
    ].map((d) => html`<option${d === difficulty ? raw(' selected') : ''}>${d}</option>`)}</select></label>
<label>Name <input name="q" value="${query.q ?? ''}"></label> <button>Filter</button></form>
<p class="muted">${filtered.length} of ${b.tasks.length} tasks</p>
<table><thead><tr><th>Name</th><th>Category</th><th>Difficulty</th><th>Notes</th></tr></thead><tbody>${shown.map(
      (t) =>
        html`<tr><td>${t.name}</td><td>${t.category ?? '–'}</td><td>${t.difficulty ?? '–'}</td><td>${t.unsupported_reason ?? t.parse_error ?? ''}</td></tr>`,
    )}</tbody></table>
${pages > 1 ? html`<nav class="pager">${pageNo > 1 ? html`<a href="${link(pageNo - 1)}">← previous</a>` : ''}<span>page ${pageNo} / ${pages}</span>${pageNo < pages ? html`<a href="${link(pageNo + 1)}">next →</a>` : ''}</nav>` : ''}`,
  );
}

/** Newer runs left off the leaderboard for their errors: listed with why, so a missing entry is explained. */
function unrankedTable(unranked: readonly UnrankedEntry[]): Html | string {
  if (!unranked.length) return '';
  return html`<h3>Not ranked</h3><p class="muted">Newer finished runs left off the leaderboard for their errors; the entries above stay until a run within the limit replaces them.</p>
<table><thead><tr><th>Agent</th><th>Run</th><th>Errored</th><th>Why</th></tr></thead><tbody>${unranked.map(
    (u) =>
      html`<tr><td>${u.label}</td><td><a href="/runs/${enc(u.run_name)}">${u.run_name}</a></td><td class="n">${pct(u.errored_share)}</td><td>${u.reason}</td></tr>`,
  )}</tbody></table>`;
}
