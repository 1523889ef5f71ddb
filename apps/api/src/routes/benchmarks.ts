// Benchmarks of the caller's workspace: add (archive upload, git, registry, catalog), list, get
// (with the task manifest, task sets, leaderboard and runs), retry a sync, delete. HTTP only: the
// work is in services/benchmark-*.ts (an add in benchmark-add.ts); the archive upload is benchmark-archive.ts.
//
// Every add creates the row with sync_status `pending` and enqueues a `benchmark-sync` job; the
// worker (apps/worker/src/queues/benchmark-sync.ts) imports the tasks. An archive is checked
// here first (safe extraction, at least one task, no link out of a task, benchmark.toml), so a
// bad archive is a 400 naming the entry (413 over a size limit) instead of a failed sync; a git
// or registry URL is checked against the egress policy (services/benchmark-source-checks.ts).
//
//   POST /v1/benchmarks                 JSON: {kind: git|registry|catalog, ...} (AddBenchmarkRequest)
//   POST /v1/benchmarks/archive?key=…   raw body (application/gzip, application/x-tar or
//                                       application/octet-stream): a tar(.gz) of task folders
//   GET  /v1/benchmarks                 list
//   GET  /v1/benchmarks/:key            key, exact name or id; the newest 20 runs and run_count
//                                       (the rest: GET /v1/runs?benchmark=<id>)
//   POST /v1/benchmarks/:key/sync       retry a failed (or stuck pending) sync; resumes
//   DELETE /v1/benchmarks/:key          refused with 409 while runs are pending/queued/running; with
//                                       runs: admins only, with ?force=true (services/benchmark-delete.ts)
import {
  AddBenchmarkRequest,
  BenchmarkDetailResponse,
  BenchmarkKeyParams,
  BenchmarkResponse,
  DeleteBenchmarkResponse,
  ForceQuery,
  ListBenchmarksResponse,
  PageQuery,
  STANDARD_ERROR_RESPONSES,
} from '@osmosis/contracts';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { addBenchmark } from '../services/benchmark-add.ts';
import { deleteBenchmark, retryBenchmarkSync } from '../services/benchmark-admin.ts';
import { benchmarkDetail } from '../services/benchmark-detail.ts';
import { benchmarkToWire, listBenchmarks } from '../services/benchmark-wire.ts';
import { benchmarkArchiveRoute } from './benchmark-archive.ts';

function by(request: FastifyRequest) {
  return { workspaceId: request.auth.workspace.id, userId: request.auth.user.id };
}

export const benchmarkRoutes: FastifyPluginAsyncZod = async (app) => {
  app.post(
    '/benchmarks',
    {
      schema: {
        tags: ['benchmarks'],
        summary: 'Add a benchmark',
        description:
          'Add a benchmark from a git repository, a Harbor registry dataset or the catalog; syncs in the background.',
        body: AddBenchmarkRequest,
        response: { 202: BenchmarkResponse, ...STANDARD_ERROR_RESPONSES },
      },
    },
    async (request, reply) => {
      const row = await addBenchmark(
        { db: app.db, queues: app.queues, storage: app.storage, egress: app.config.sources.egress },
        by(request),
        request.body,
      );
      reply.code(202);
      return { data: await benchmarkToWire(app.db, app.config.publicUrl, row) };
    },
  );

  await app.register(benchmarkArchiveRoute);

  app.get(
    '/benchmarks',
    {
      schema: {
        tags: ['benchmarks'],
        summary: 'List benchmarks',
        description: "The workspace's benchmarks, with sync state and task counts.",
        querystring: PageQuery,
        response: { 200: ListBenchmarksResponse, ...STANDARD_ERROR_RESPONSES },
      },
    },
    async (request) => listBenchmarks(app.db, app.config.publicUrl, request.auth.workspace.id, request.query),
  );

  app.get(
    '/benchmarks/:key',
    {
      schema: {
        tags: ['benchmarks'],
        summary: 'Get one benchmark',
        description:
          'One benchmark by key, exact name or id: metadata, task manifest, task sets, leaderboard, the newest runs and run_count.',
        params: BenchmarkKeyParams,
        querystring: z.object({
          include_imported: z
            .enum(['true', 'false', '1', '0'])
            .optional()
            .describe('true: also rank imported runs (runs import), apart, in leaderboard_imported'),
        }),
        response: { 200: BenchmarkDetailResponse, ...STANDARD_ERROR_RESPONSES },
      },
    },
    async (request) => ({
      data: await benchmarkDetail(app, request.auth.workspace.id, request.params.key, request.log, {
        includeImported: request.query.include_imported === 'true' || request.query.include_imported === '1',
      }),
    }),
  );

  app.post(
    '/benchmarks/:key/sync',
    {
      schema: {
        tags: ['benchmarks'],
        summary: "Retry a benchmark's sync",
        description:
          'Retry the sync of a benchmark whose sync failed (or is still pending); resumes where it stopped.',
        params: BenchmarkKeyParams,
        response: { 200: BenchmarkResponse, 202: BenchmarkResponse, ...STANDARD_ERROR_RESPONSES },
      },
    },
    async (request, reply) => {
      const { started, benchmark } = await retryBenchmarkSync(
        { db: app.db, queues: app.queues, publicUrl: app.config.publicUrl },
        request.auth.workspace.id,
        request.params.key,
      );
      reply.code(started ? 202 : 200);
      return { data: benchmark };
    },
  );

  app.delete(
    '/benchmarks/:key',
    {
      schema: {
        tags: ['benchmarks'],
        summary: 'Delete a benchmark',
        description:
          'Delete a benchmark and its tasks; with runs on it only with force=true, by admins and owners (the runs are deleted too); refused while runs are pending, queued or running.',
        params: BenchmarkKeyParams,
        querystring: ForceQuery,
        response: { 200: DeleteBenchmarkResponse, ...STANDARD_ERROR_RESPONSES },
      },
    },
    async (request) => {
      const deleted = await deleteBenchmark(
        { db: app.db, storage: app.storage },
        { workspaceId: request.auth.workspace.id, role: request.auth.role },
        request.params.key,
        request.query.force,
      );
      return { data: { ...deleted, deleted: true as const } };
    },
  );
};
