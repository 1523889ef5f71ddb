// "Retry sync" on the benchmark page when its sync failed: a POST form with the session's CSRF
// token to POST /benchmarks/:key/sync, which calls the service of POST /v1/benchmarks/:key/sync
// as the signed-in member (the same permission as `osmosis benchmark sync`: members and above), then
// returns to the benchmark page.
import { type Benchmark, roleAtLeast } from '@osmosis/contracts';
import type { FastifyReply } from 'fastify';
import { retryBenchmarkSync } from '../services/benchmark-admin.ts';
import { assertRole, type PageContext } from './context.ts';
import { type Html, html } from './html.ts';

const enc = encodeURIComponent;

export function retrySyncForm(ctx: PageContext, b: Pick<Benchmark, 'key' | 'sync_status'>): Html | string {
  if (b.sync_status !== 'failed' || !roleAtLeast(ctx.auth.role, 'member')) return '';
  return html` <form method="post" action="/benchmarks/${enc(b.key)}/sync" class="inline"><input type="hidden" name="_csrf" value="${ctx.view.csrf}"><button>Retry sync</button></form>`;
}

export async function retrySync(ctx: PageContext, reply: FastifyReply, key: string) {
  assertRole(ctx, 'member');
  await retryBenchmarkSync(
    { db: ctx.app.db, queues: ctx.app.queues, publicUrl: ctx.app.config.publicUrl },
    ctx.auth.workspace.id,
    key,
  );
  return reply.redirect(`/benchmarks/${enc(key)}`, 303);
}
