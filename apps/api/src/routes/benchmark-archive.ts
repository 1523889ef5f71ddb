// POST /v1/benchmarks/archive?key=…: a benchmark from a tar(.gz) of task folders sent as the raw
// body (application/gzip, application/x-tar or application/octet-stream). The body streams
// into artifact storage, is extracted safely and checked (at least one task, no link out of a
// task, benchmark.toml) before the benchmark exists: a bad archive is a 400 naming the entry
// (413 over a size limit) instead of a failed sync.

import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import {
  AddArchiveQuery,
  type BenchmarkMetadataOverrides,
  BenchmarkResponse,
  errorMessage,
  normalizeSourcePath,
  STANDARD_ERROR_RESPONSES,
} from '@osmosis/contracts';
import {
  BenchmarkFileError,
  extractTar,
  findTaskDirs,
  readBenchmarkToml,
  resolveInside,
} from '@osmosis/tasks';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { ApiError } from '../errors.ts';
import { createBenchmark, resolveMetadata } from '../services/benchmark-create.ts';
import { archiveRefusal, checkArchiveTasks, storeUpload } from '../services/benchmark-source-checks.ts';
import { benchmarkToWire } from '../services/benchmark-wire.ts';

const ARCHIVE_CONTENT_TYPES = [
  'application/gzip',
  'application/x-gzip',
  'application/x-tar',
  'application/octet-stream',
];

export const benchmarkArchiveRoute: FastifyPluginAsyncZod = async (app) => {
  // Archive bodies arrive as a stream, straight into artifact storage.
  app.addContentTypeParser(ARCHIVE_CONTENT_TYPES, (_request, payload, done) => done(null, payload));

  app.post(
    '/benchmarks/archive',
    {
      bodyLimit: app.config.sources.archive.maxBytes,
      schema: {
        tags: ['benchmarks'],
        summary: 'Add a benchmark from an archive',
        description:
          'Add a benchmark from a tar(.gz) of Harbor task folders sent as the raw body; metadata from the query or the archive’s benchmark.toml.',
        querystring: AddArchiveQuery,
        response: { 202: BenchmarkResponse, ...STANDARD_ERROR_RESPONSES },
      },
    },
    async (request, reply) => {
      const contentType = String(request.headers['content-type'] ?? '')
        .split(';')[0]
        ?.trim();
      if (!contentType || !ARCHIVE_CONTENT_TYPES.includes(contentType)) {
        throw ApiError.validation(`send the archive as one of ${ARCHIVE_CONTENT_TYPES.join(', ')}`, [
          { path: 'headers.content-type', message: `got ${contentType || 'none'}` },
        ]);
      }
      const limits = app.config.sources.archive;
      const archiveKey = `uploads/benchmarks/${randomUUID()}.tar`;
      const storage = app.storage;
      await storeUpload(storage, archiveKey, request.body as Readable, limits.maxBytes);
      const tmp = await mkdtemp(path.join(tmpdir(), 'osmosis-upload-'));
      try {
        try {
          await extractTar(await storage.getStream(archiveKey), tmp, limits);
        } catch (error) {
          throw archiveRefusal(error);
        }
        const q = request.query;
        const sub = q.path ? normalizeSourcePath(q.path) || null : null;
        const root = await resolveInside(tmp, sub ?? '').catch((error: unknown) => {
          const message = errorMessage(error);
          throw ApiError.validation(message, [{ path: 'query.path', message }]);
        });
        const taskDirs = await findTaskDirs(root).catch(() => [] as string[]);
        if (taskDirs.length === 0) {
          throw ApiError.validation('the archive holds no task folder (a folder with task.toml)', [
            { path: 'body', message: 'no task.toml found' },
          ]);
        }
        await checkArchiveTasks(root, taskDirs, sub).catch((error: unknown) => {
          throw archiveRefusal(error);
        });
        let fileMeta: BenchmarkMetadataOverrides | null = null;
        try {
          fileMeta = await readBenchmarkToml(root);
        } catch (error) {
          if (error instanceof BenchmarkFileError)
            throw ApiError.validation(error.message, [
              { path: 'archive:benchmark.toml', message: error.message },
            ]);
          throw error;
        }
        const explicit: Partial<BenchmarkMetadataOverrides> = {
          key: q.key,
          name: q.name,
          description: q.description,
          source_url: q.source_url,
          default_harness: q.default_harness,
          pass_threshold: q.pass_threshold,
          requires_judge_model:
            q.requires_judge_model ?? (q.judge_model_default || q.judge_kind ? true : undefined),
          judge_model_default: q.judge_model_default,
          judge_kind: q.judge_kind,
          required_secret_names: q.required_secret_names,
        };
        const key = explicit.key ?? fileMeta?.key;
        if (!key) {
          throw ApiError.validation(
            'the benchmark needs a key: ?key=… or key in the archive’s benchmark.toml',
            [{ path: 'query.key', message: 'required' }],
          );
        }
        const meta = resolveMetadata({ key, name: key }, fileMeta, explicit);
        const row = await createBenchmark(
          app,
          { workspaceId: request.auth.workspace.id, userId: request.auth.user.id },
          meta,
          'archive',
          { archive_key: archiveKey, path: sub },
          taskDirs.length,
        );
        reply.code(202);
        return { data: await benchmarkToWire(app.db, app.config.publicUrl, row) };
      } catch (error) {
        await storage.delete(archiveKey).catch(() => undefined);
        throw error;
      } finally {
        await rm(tmp, { recursive: true, force: true });
      }
    },
  );
};
