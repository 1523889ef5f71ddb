// The queue view (GET /queues): every queue's jobs by state, the oldest waiting job's age and the
// latest failed job ids, from GET /v1/queues. Workspace owners only (the API's rule; others get its
// 403 page). Read only, so it has no form and needs no CSRF token; why not bull-board:
// apps/api/src/routes/queues.ts.
import type { QueueList } from '@osmosis/contracts';
import type { FastifyReply } from 'fastify';
import { callApi, ok, type PageContext, page } from './context.ts';
import { count, html, when } from './html.ts';

function age(seconds: number): string {
  if (seconds < 1) return '–';
  if (seconds < 120) return `${Math.round(seconds)} s`;
  if (seconds < 7200) return `${Math.round(seconds / 60)} min`;
  return `${Math.round(seconds / 3600)} h`;
}

export async function queuesPage(ctx: PageContext, reply: FastifyReply) {
  const list = ok(await callApi<QueueList>(ctx, 'GET', '/v1/queues'));
  const failures = list.items.flatMap((q) => q.recent_failures.map((f) => ({ queue: q.name, ...f })));
  return page(
    reply,
    ctx,
    'Queues',
    html`<h1>Queues</h1>
<table><thead><tr><th>Queue</th><th>State</th><th>Waiting</th><th>Prioritized</th><th>Active</th><th>Delayed</th><th>Failed</th><th>Completed (kept)</th><th>Oldest waiting</th></tr></thead><tbody>${list.items.map(
      (
        q,
      ) => html`<tr><td><code>${q.name}</code></td><td><span class="b ${q.paused ? 'stopped' : 'finished'}">${q.paused ? 'paused' : 'running'}</span></td>
<td class="n">${count(q.counts.waiting)}</td><td class="n">${count(q.counts.prioritized)}</td><td class="n">${count(q.counts.active)}</td>
<td class="n">${count(q.counts.delayed)}</td><td class="n">${count(q.counts.failed)}</td><td class="n">${count(q.counts.completed)}</td><td class="n">${age(q.oldest_waiting_age_seconds)}</td></tr>`,
    )}</tbody></table>
<h2>Latest failed jobs</h2>${
      failures.length
        ? html`<table><thead><tr><th>Queue</th><th>Job</th><th>Name</th><th>Tries</th><th>Failed</th></tr></thead><tbody>${failures.map(
            (f) =>
              html`<tr><td><code>${f.queue}</code></td><td><code>${f.id}</code></td><td>${f.name}</td><td class="n">${f.attempts_made}</td><td>${when(f.failed_at)}</td></tr>`,
          )}</tbody></table>`
        : html`<p class="muted">No failed job is kept.</p>`
    }
<p class="muted">Jobs carry ids only: Postgres says what is due, and the workers' reconciler re-enqueues it if Redis loses a job. An attempt's failure is in its run's log; a job's own error is in the worker's log. Metrics for the same figures: <code>GET /metrics</code> (docs/operations.md).</p>`,
  );
}
