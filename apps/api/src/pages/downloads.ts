// The pages' download links (GET /runs/:name/files/:file, /runs/:name/attempts/:id/artifacts/*):
// the file GET /v1/runs/:name/downloads/file serves (services/run-files.ts, the session's
// workspace: the same 404s and 409s), always as an attachment the browser does not render.
import type { FastifyBaseLogger, FastifyReply } from 'fastify';
import { openRunFile } from '../services/run-files.ts';
import type { PageContext } from './context.ts';

export async function sendDownload(
  reply: FastifyReply,
  ctx: PageContext,
  log: FastifyBaseLogger,
  name: string,
  path: string,
): Promise<FastifyReply> {
  const file = await openRunFile(
    { db: ctx.app.db, storage: ctx.app.storage, log },
    ctx.auth.workspace.id,
    name,
    path,
    { at: null, needSize: false },
  );
  const base = path.split('/').pop() ?? 'download';
  reply
    .header('content-type', 'application/octet-stream')
    .header('content-disposition', `attachment; filename="${base.replace(/[^\w.-]/g, '_')}"`)
    .header('x-content-type-options', 'nosniff')
    .header('cache-control', 'no-store');
  if (file.size !== null) reply.header('content-length', String(file.size));
  return reply.send(file.buf ?? (await file.whole()));
}
