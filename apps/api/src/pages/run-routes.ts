// The run pages' routes on the signed-in scope: list, run page, its live stream, stop, retry,
// downloads and attempts (the pages themselves: runs.ts, run-retry.ts, downloads.ts).
import type { FastifyInstance } from 'fastify';
import type { ServeRunStream } from '../routes/events-stream.ts';
import { stopRunByName } from '../services/run-stop.ts';
import { sendInline } from './artifact-view.ts';
import { assertRole, ctxOf, PageError } from './context.ts';
import { sendDownload } from './downloads.ts';
import { principalStillAllows } from './principal.ts';
import { retryRunPage } from './run-retry.ts';
import { attemptPage, runPage, runsPage, stopConfirmPage } from './runs.ts';
import { sessionStillOpen } from './session.ts';

export function registerRunPages(signed: FastifyInstance, serveRunStream: ServeRunStream): void {
  const app = signed;
  const hide = { schema: { hide: true } };
  signed.get('/runs', hide, async (request, reply) =>
    runsPage(ctxOf(request), reply, request.query as Record<string, string>),
  );
  signed.get('/runs/:name', hide, async (request, reply) =>
    runPage(
      ctxOf(request),
      reply,
      (request.params as { name: string }).name,
      request.query as Record<string, string>,
    ),
  );
  // the run page's live updates: the /v1 stream without events (progress, then end); an
  // unknown or another workspace's run is the 404 page (ApiError), before any stream byte
  signed.get('/runs/:name/stream', hide, async (request, reply) => {
    const { auth } = ctxOf(request);
    // re-checked while the stream is open: the token or membership (revoked, removed) and the
    // session itself (signed out in another tab, or expired)
    const tokenAllows = principalStillAllows(app.db, auth);
    const sessionOpen = sessionStillOpen(app.db, request.session.sessionId);
    return serveRunStream(request, reply, {
      workspaceId: auth.workspace.id,
      name: (request.params as { name: string }).name,
      query: {},
      events: false,
      stillAllowed: async () => (await sessionOpen()) && (await tokenAllows()),
      userId: auth.user.id,
    });
  });
  signed.get('/runs/:name/stop', hide, async (request, reply) =>
    stopConfirmPage(ctxOf(request), reply, (request.params as { name: string }).name),
  );
  signed.post('/runs/:name/stop', hide, async (request, reply) => {
    const ctx = ctxOf(request);
    const name = (request.params as { name: string }).name;
    assertRole(ctx, 'member');
    await stopRunByName(
      { db: app.db, config: app.config, redis: app.redis, log: request.log },
      ctx.auth.workspace.id,
      name,
      ctx.auth.user.email,
    );
    return reply.redirect(`/runs/${encodeURIComponent(name)}`, 303);
  });
  signed.post('/runs/:name/retry', hide, async (request, reply) =>
    retryRunPage(ctxOf(request), reply, (request.params as { name: string }).name),
  );

  // downloads: the file the /v1 download route serves (services/run-files.ts), as an attachment
  signed.get('/runs/:name/files/:file', hide, async (request, reply) => {
    const { name, file } = request.params as { name: string; file: string };
    if (!['summary.csv', 'results.csv', 'logs.txt', 'lock.json'].includes(file))
      throw new PageError(404, 'no such file');
    return sendDownload(reply, ctxOf(request), request.log, name, file);
  });
  signed.get('/runs/:name/attempts/:id/artifacts/*', hide, async (request, reply) => {
    const { name, id } = request.params as { name: string; id: string };
    const rest = (request.params as Record<string, string>)['*'] ?? '';
    return sendDownload(reply, ctxOf(request), request.log, name, `artifacts/${id.toLowerCase()}/${rest}`);
  });
  // text and image artifacts opened in the browser, sandboxed (artifact-view.ts)
  signed.get('/runs/:name/attempts/:id/view/*', hide, async (request, reply) => {
    const { name, id } = request.params as { name: string; id: string };
    const rest = (request.params as Record<string, string>)['*'] ?? '';
    return sendInline(reply, ctxOf(request), request.log, name, id.toLowerCase(), rest);
  });
  signed.get('/runs/:name/attempts/:id', hide, async (request, reply) => {
    const { name, id } = request.params as { name: string; id: string };
    return attemptPage(ctxOf(request), reply, name, id, request.query as Record<string, string>);
  });
}
