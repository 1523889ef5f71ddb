// "Retry sync" on the benchmark page when its sync failed: a POST form with the session's CSRF
// token to POST /benchmarks/:key/sync, which calls POST /v1/benchmarks/:key/sync with the
// session's token (the same permission as `osmosis benchmark sync`: members and above), then
// returns to the benchmark page.
import { type Benchmark, roleAtLeast } from '@osmosis/contracts';
import type { FastifyReply } from 'fastify';
import { callApi, ok, type PageContext } from './context.ts';
import { type Html, html } from './html.ts';

const enc = encodeURIComponent;

export function retrySyncForm(ctx: PageContext, b: Pick<Benchmark, 'key' | 'sync_status'>): Html | string {
  if (b.sync_status !== 'failed' || !roleAtLeast(ctx.auth.role, 'member')) return '';
  return html` <form method="post" action="/benchmarks/${enc(b.key)}/sync" class="inline"><input type="hidden" name="_csrf" value="${ctx.view.csrf}"><button>Retry sync</button></form>`;
}

export async function retrySync(ctx: PageContext, reply: FastifyReply, key: string) {
  ok(await callApi(ctx, 'POST', `/v1/benchmarks/${enc(key)}/sync`, {}));
  return reply.redirect(`/benchmarks/${enc(key)}`, 303);
}
