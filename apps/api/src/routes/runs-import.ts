// POST /v1/runs/import?benchmark=&name=: a Harbor job directory as a tar(.gz) in the raw body
// (`runs import DIR`). The body streams into artifact storage with the archive size limit, is
// extracted by the one safe extractor (names, links, sizes, bombs) and read as hostile input;
// the run is written finished and marked imported, never queued (services/run-import.ts).
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { RunImportQuery, RunImportResponse, STANDARD_ERROR_RESPONSES } from '@osmosis/contracts';
import { extractTar } from '@osmosis/tasks';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { ApiError } from '../errors.ts';
import { archiveRefusal, storeUpload } from '../services/benchmark-source-checks.ts';
import { importHarborJob } from '../services/run-import.ts';

const ARCHIVE_CONTENT_TYPES = [
  'application/gzip',
  'application/x-gzip',
  'application/x-tar',
  'application/octet-stream',
];

export const runImportRoutes: FastifyPluginAsyncZod = async (app) => {
  app.addContentTypeParser(ARCHIVE_CONTENT_TYPES, (_request, payload, done) => done(null, payload));

  app.post(
    '/runs/import',
    {
      bodyLimit: app.config.sources.archive.maxBytes,
      schema: {
        tags: ['runs'],
        summary: 'Import a Harbor job as a run',
        description:
          "A Harbor job directory sent as a tar or tar.gz in the raw body becomes a finished run marked imported, never queued. Trials are matched to the benchmark's tasks by name; unfinished trials and those of a task the benchmark lacks are listed in `mismatches`. 400 when the archive or a file in it is refused or no trial matches, 413 past the archive size limit, 409 when the name is taken.",
        querystring: RunImportQuery,
        response: { 201: RunImportResponse, ...STANDARD_ERROR_RESPONSES },
      },
    },
    async (request, reply) => {
      const contentType = String(request.headers['content-type'] ?? '')
        .split(';')[0]
        ?.trim();
      if (!contentType || !ARCHIVE_CONTENT_TYPES.includes(contentType)) {
        throw ApiError.validation(`send the job directory as one of ${ARCHIVE_CONTENT_TYPES.join(', ')}`, [
          { path: 'headers.content-type', message: `got ${contentType || 'none'}` },
        ]);
      }
      const limits = app.config.sources.archive;
      const uploadKey = `uploads/imports/${randomUUID()}.tar`;
      await storeUpload(app.storage, uploadKey, request.body as Readable, limits.maxBytes);
      const tmp = await mkdtemp(path.join(tmpdir(), 'osmosis-import-'));
      try {
        try {
          await extractTar(await app.storage.getStream(uploadKey), tmp, limits);
        } catch (error) {
          throw archiveRefusal(error);
        }
        const data = await importHarborJob(
          { db: app.db, storage: app.storage, publicUrl: app.config.publicUrl },
          {
            workspaceId: request.auth.workspace.id,
            userId: request.auth.user.id,
            email: request.auth.user.email,
          },
          tmp,
          request.query,
        );
        reply.code(201);
        return { data };
      } finally {
        await app.storage.delete(uploadKey).catch(() => undefined);
        await rm(tmp, { recursive: true, force: true });
      }
    },
  );
};
