// Benchmarks of the caller's workspace: add (archive upload, git, registry, catalog), list, get
// (with the task manifest, task sets, leaderboard and runs), retry a sync, delete.
//
// Every add creates the row with sync_status `pending` and enqueues a `benchmark-sync` job; the
// worker (apps/worker/src/queues/benchmark-sync.ts) imports the tasks. An archive is checked
// here first (safe extraction, at least one task, no link out of a task, benchmark.toml), so a
// bad archive is a 400 naming the entry (413 over a size limit) instead of a failed sync; a git
// or registry URL is checked against the egress policy (benchmark-source-checks.ts).
//
//   POST /v1/benchmarks                 JSON: {kind: git|registry|catalog, ...} (AddBenchmarkRequest)
//   POST /v1/benchmarks/archive?key=…   raw body (application/gzip, application/x-tar or
//                                       application/octet-stream): a tar(.gz) of task folders
//   GET  /v1/benchmarks                 list
//   GET  /v1/benchmarks/:key            key, exact name or id; the newest 20 runs and run_count
//                                       (the rest: GET /v1/runs?benchmark=<id>)
//   POST /v1/benchmarks/:key/sync       retry a failed (or stuck pending) sync; resumes
//   DELETE /v1/benchmarks/:key          refused with 409 while runs are pending/queued/running; with
//                                       runs: admins only, with ?force=true (benchmark-delete.ts)
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import {
  AddArchiveQuery,
  AddBenchmarkRequest,
  BENCHMARK_DETAIL_MAX_RUNS,
  type Benchmark,
  BenchmarkDetailResponse,
  BenchmarkKeyParams,
  BenchmarkMetadata,
  type BenchmarkMetadataOverrides,
  BenchmarkResponse,
  type BenchmarkTask,
  DeleteBenchmarkResponse,
  GIT_URL_SCHEMES,
  ListBenchmarksResponse,
  normalizeSourcePath,
  PageQuery,
  REGISTRY_URL_SCHEMES,
  STANDARD_ERROR_RESPONSES,
  TaskManifest,
} from '@osmosis/contracts';
import type { Db, Prisma } from '@osmosis/db';
import { enqueueBenchmarkSync } from '@osmosis/queues';
import {
  type ArtifactStorage,
  BenchmarkFileError,
  createStorageFromEnv,
  extractTar,
  findCatalogEntry,
  findTaskDirs,
  parseDatasetRef,
  parseRegistryDocument,
  RegistryError,
  readBenchmarkToml,
  resolveDataset,
  resolveInside,
} from '@osmosis/tasks';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { isUuid } from '../auth.ts';
import { ApiError } from '../errors.ts';
import { assertMayDeleteRuns, DeleteBenchmarkQuery } from './benchmark-delete.ts';
import {
  archiveRefusal,
  checkArchiveTasks,
  checkRegistryUrls,
  checkSourceUrl,
  storeUpload,
} from './benchmark-source-checks.ts';
import { computeLeaderboard } from './leaderboard.ts';

const ACTIVE_RUN_STATUSES = ['pending', 'queued', 'running'] as const;
/** A `syncing` benchmark with no progress for this long is considered abandoned (same rule in the worker). */
export const SYNC_STALE_MS = 15 * 60_000;
const ARCHIVE_CONTENT_TYPES = [
  'application/gzip',
  'application/x-gzip',
  'application/x-tar',
  'application/octet-stream',
];

type BenchmarkRow = Prisma.BenchmarkGetPayload<{ include: { taskSets: true } }>;

export function benchmarkPlatformUrl(publicUrl: string, key: string): string {
  return `${publicUrl.replace(/\/+$/, '')}/benchmarks/${encodeURIComponent(key)}`;
}

/** A benchmark of the workspace by key, exact name or id. */
async function findByRef(db: Db, workspaceId: string, ref: string): Promise<BenchmarkRow | null> {
  const or: Prisma.BenchmarkWhereInput[] = [{ key: ref }, { name: ref }];
  if (isUuid(ref)) or.push({ id: ref });
  return db.benchmark.findFirst({ where: { workspaceId, OR: or }, include: { taskSets: true } });
}

async function toWire(db: Db, publicUrl: string, row: BenchmarkRow): Promise<Benchmark> {
  const [taskCount, categories, lastRun, setCounts, runCounts] = await Promise.all([
    db.task.count({ where: { benchmarkId: row.id } }),
    db.task.findMany({
      where: { benchmarkId: row.id, category: { not: null } },
      distinct: ['category'],
      select: { category: true },
      orderBy: { category: 'asc' },
    }),
    db.run.findFirst({
      where: { benchmarkId: row.id },
      orderBy: { createdAt: 'desc' },
      select: { id: true, name: true, status: true, createdAt: true },
    }),
    Promise.all(
      row.taskSets.map(async (s) => ({
        set: s,
        count: await db.task.count({ where: { benchmarkId: row.id, name: { in: s.taskNames } } }),
      })),
    ),
    runCountsOf(db, row),
  ]);
  const cats = categories.map((c) => c.category as string);
  return {
    id: row.id,
    key: row.key,
    name: row.name,
    description: row.description,
    source_kind: row.sourceKind,
    source: (row.source ?? {}) as Record<string, unknown>,
    source_url: row.sourceUrl,
    default_harness: row.defaultHarness,
    harness_requirements: (row.harnessRequirements ?? {}) as Record<string, unknown>,
    requires_judge_model: row.requiresJudgeModel,
    judge_model_default: row.judgeModelDefault,
    judge_kind: row.judgeKind,
    pass_threshold: row.passThreshold,
    required_secret_names: row.requiredSecretNames,
    sync_status: row.syncStatus,
    synced_task_count: row.syncedTaskCount,
    expected_task_count: row.expectedTaskCount,
    sync_error: row.syncError,
    task_count: taskCount,
    categories: cats,
    category_count: cats.length,
    task_sets: setCounts
      .sort((a, b) => a.set.name.localeCompare(b.set.name))
      .map(({ set, count }) => ({
        name: set.name,
        task_count: count,
        recommended: set.recommended,
        description: set.description,
      })),
    last_run: lastRun
      ? {
          id: lastRun.id,
          name: lastRun.name,
          status: lastRun.status,
          created_at: lastRun.createdAt.toISOString(),
        }
      : null,
    platform_url: benchmarkPlatformUrl(publicUrl, row.key),
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
    ...runCounts,
  };
}

/** The upstream CLI's keys of a benchmark: its runs, the active ones, who added it. */
async function runCountsOf(
  db: Db,
  row: BenchmarkRow,
): Promise<Pick<Benchmark, 'run_count' | 'running_count' | 'creator_name'>> {
  const where = { benchmarkId: row.id, workspaceId: row.workspaceId };
  const [runCount, runningCount, creator] = await Promise.all([
    db.run.count({ where }),
    db.run.count({ where: { ...where, status: { in: [...ACTIVE_RUN_STATUSES] } } }),
    row.createdById
      ? db.user.findUnique({ where: { id: row.createdById }, select: { email: true, displayName: true } })
      : null,
  ]);
  return {
    run_count: runCount,
    running_count: runningCount,
    creator_name: creator ? (creator.displayName ?? creator.email) : null,
  };
}

function slug(text: string): string {
  return (
    text
      .toLowerCase()
      .replace(/\.git$/, '')
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 64)
      .replace(/-+$/g, '') || 'benchmark'
  );
}

/** Defaults ← derived ← catalog ← explicit: the metadata a new benchmark gets. */
function resolveMetadata(
  derived: { key: string; name: string } & Partial<BenchmarkMetadataOverrides>,
  ...layers: (Partial<BenchmarkMetadataOverrides> | null | undefined)[]
) {
  const merged: Record<string, unknown> = { ...derived };
  for (const layer of layers) {
    if (!layer) continue;
    for (const [k, v] of Object.entries(layer)) if (v !== undefined) merged[k] = v;
  }
  // a key given without a name names the benchmark too, unless the source derived a real name
  if (!layers.some((l) => l?.name !== undefined) && derived.name === derived.key) merged.name = merged.key;
  const parsed = BenchmarkMetadata.safeParse(merged);
  if (!parsed.success) {
    throw ApiError.validation(
      'invalid benchmark metadata',
      parsed.error.issues.map((i) => ({ path: `metadata.${i.path.join('.')}`, message: i.message })),
    );
  }
  return parsed.data;
}

async function assertFree(db: Db, workspaceId: string, key: string, name: string): Promise<void> {
  const clash = await db.benchmark.findFirst({
    where: { workspaceId, OR: [{ key }, { name }] },
    select: { key: true, name: true },
  });
  if (clash) {
    const what = clash.key === key ? `key "${key}"` : `name "${name}"`;
    throw new ApiError('CONFLICT', `a benchmark with ${what} already exists in this workspace`, {
      key: clash.key,
    });
  }
}

export const benchmarkRoutes: FastifyPluginAsyncZod = async (app) => {
  let storage: ArtifactStorage | null = null;
  const store = () => {
    storage ??= createStorageFromEnv();
    return storage;
  };
  const publicUrl = () => app.config.publicUrl;

  // Archive bodies arrive as a stream, straight into artifact storage.
  app.addContentTypeParser(ARCHIVE_CONTENT_TYPES, (_request, payload, done) => done(null, payload));

  async function create(
    request: { auth: { workspace: { id: string }; user: { id: string } } },
    meta: BenchmarkMetadata,
    sourceKind: 'archive' | 'git' | 'registry' | 'catalog',
    source: Record<string, unknown>,
    expectedTaskCount: number | null,
  ) {
    const workspaceId = request.auth.workspace.id;
    await assertFree(app.db, workspaceId, meta.key, meta.name);
    const row = await app.db.benchmark.create({
      data: {
        workspaceId,
        key: meta.key,
        name: meta.name,
        description: meta.description,
        sourceKind,
        source: source as Prisma.InputJsonValue,
        sourceUrl: meta.source_url,
        defaultHarness: meta.default_harness,
        harnessRequirements: meta.harness_requirements as Prisma.InputJsonValue,
        requiresJudgeModel: meta.requires_judge_model,
        judgeModelDefault: meta.judge_model_default,
        judgeKind: meta.judge_kind,
        passThreshold: meta.pass_threshold,
        requiredSecretNames: meta.required_secret_names,
        expectedTaskCount,
        createdById: request.auth.user.id,
        taskSets: {
          create: meta.task_sets.map((s) => ({
            name: s.name,
            description: s.description,
            recommended: s.recommended,
            taskNames: s.task_names ?? [],
          })),
        },
      },
      include: { taskSets: true },
    });
    await enqueueBenchmarkSync(app.queues, row.id);
    return row;
  }

  /** Stores an uploaded registry document after checking it names the dataset. */
  async function storeRegistry(
    doc: unknown,
    dataset: string,
  ): Promise<{ key: string; version: string; count: number }> {
    try {
      const datasets = parseRegistryDocument(doc);
      const found = resolveDataset(datasets, dataset);
      await checkRegistryUrls(found, GIT_URL_SCHEMES, app.config.sources.egress);
      const key = `uploads/registries/${randomUUID()}.json`;
      await store().put(key, JSON.stringify(doc));
      return { key, version: found.version, count: found.tasks.length };
    } catch (error) {
      if (error instanceof RegistryError)
        throw ApiError.validation(error.message, [{ path: 'body.registry', message: error.message }]);
      throw error;
    }
  }

  app.post(
    '/benchmarks',
    {
      schema: {
        tags: ['benchmarks'],
        summary:
          'Add a benchmark from a git repository, a Harbor registry dataset or the catalog; syncs in the background',
        body: AddBenchmarkRequest,
        response: { 202: BenchmarkResponse, ...STANDARD_ERROR_RESPONSES },
      },
    },
    async (request, reply) => {
      const body = request.body;
      let row: BenchmarkRow;
      const egress = app.config.sources.egress;
      if (body.kind === 'git') {
        await checkSourceUrl(body.url, 'url', GIT_URL_SCHEMES, egress);
        const sub = body.path ? normalizeSourcePath(body.path) || null : null;
        const base = (body.url.replace(/\/+$/, '').split(/[/:]/).pop() ?? 'benchmark').replace(/\.git$/, '');
        const key = slug(sub ? `${base}-${sub}` : base);
        const meta = resolveMetadata(
          { key, name: key, source_url: /^https?:/.test(body.url) ? body.url : null },
          body.metadata,
        );
        row = await create(request, meta, 'git', { url: body.url, ref: body.ref ?? null, path: sub }, null);
      } else if (body.kind === 'registry') {
        if (!body.registry_url && body.registry === undefined) {
          throw ApiError.validation('give registry_url or an uploaded registry document', [
            { path: 'body.registry_url', message: 'required when no registry document is uploaded' },
          ]);
        }
        if (body.registry_url)
          await checkSourceUrl(body.registry_url, 'registry_url', REGISTRY_URL_SCHEMES, egress);
        const uploaded =
          body.registry !== undefined ? await storeRegistry(body.registry, body.dataset) : null;
        const { name, version } = parseDatasetRef(body.dataset);
        const resolved = version ?? uploaded?.version ?? null;
        const key = slug(resolved ? `${name}-${resolved}` : name);
        const meta = resolveMetadata({ key, name: resolved ? `${name}@${resolved}` : name }, body.metadata);
        row = await create(
          request,
          meta,
          'registry',
          {
            registry_url: uploaded ? null : (body.registry_url ?? null),
            registry_key: uploaded?.key ?? null,
            dataset: body.dataset,
            resolved_version: uploaded?.version ?? null,
          },
          uploaded?.count ?? null,
        );
      } else {
        const entry = findCatalogEntry(body.catalog_key);
        if (!entry) {
          throw ApiError.notFound(`catalog benchmark "${body.catalog_key}"`);
        }
        // the catalog's own registry URL is the platform's; a mirror named by a member is checked
        if (body.registry_url)
          await checkSourceUrl(body.registry_url, 'registry_url', REGISTRY_URL_SCHEMES, egress);
        const uploaded =
          body.registry !== undefined ? await storeRegistry(body.registry, entry.task_source.dataset) : null;
        const { task_source, ...catalogMeta } = entry;
        const meta = resolveMetadata({ key: entry.key, name: entry.name }, catalogMeta, body.metadata);
        row = await create(
          request,
          meta,
          'catalog',
          {
            catalog_key: entry.key,
            registry_url: uploaded ? null : (body.registry_url ?? task_source.registry_url),
            registry_key: uploaded?.key ?? null,
            dataset: task_source.dataset,
            resolved_version: uploaded?.version ?? null,
          },
          uploaded?.count ?? null,
        );
      }
      reply.code(202);
      return { data: await toWire(app.db, publicUrl(), row) };
    },
  );

  app.post(
    '/benchmarks/archive',
    {
      bodyLimit: app.config.sources.archive.maxBytes,
      schema: {
        tags: ['benchmarks'],
        summary:
          'Add a benchmark from a tar(.gz) of Harbor task folders sent as the raw body; metadata from the query or the archive’s benchmark.toml',
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
      const storage = store();
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
          const message = (error as Error).message;
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
        const row = await create(
          request,
          meta,
          'archive',
          { archive_key: archiveKey, path: sub },
          taskDirs.length,
        );
        reply.code(202);
        return { data: await toWire(app.db, publicUrl(), row) };
      } catch (error) {
        await storage.delete(archiveKey).catch(() => undefined);
        throw error;
      } finally {
        await rm(tmp, { recursive: true, force: true });
      }
    },
  );

  app.get(
    '/benchmarks',
    {
      schema: {
        tags: ['benchmarks'],
        summary: "The workspace's benchmarks, with sync state and task counts",
        querystring: PageQuery,
        response: { 200: ListBenchmarksResponse, ...STANDARD_ERROR_RESPONSES },
      },
    },
    async (request) => {
      const { limit, offset } = request.query;
      const where = { workspaceId: request.auth.workspace.id };
      const [total, rows] = await Promise.all([
        app.db.benchmark.count({ where }),
        app.db.benchmark.findMany({
          where,
          include: { taskSets: true },
          orderBy: [{ name: 'asc' }, { id: 'asc' }],
          skip: offset,
          take: limit,
        }),
      ]);
      const items = await Promise.all(rows.map((r) => toWire(app.db, publicUrl(), r)));
      const next = offset + items.length;
      return { items, total_count: total, has_more: next < total, next_offset: next < total ? next : null };
    },
  );

  app.get(
    '/benchmarks/:key',
    {
      schema: {
        tags: ['benchmarks'],
        summary:
          'One benchmark by key, exact name or id: metadata, task manifest, task sets, leaderboard, the newest runs and run_count',
        params: BenchmarkKeyParams,
        response: { 200: BenchmarkDetailResponse, ...STANDARD_ERROR_RESPONSES },
      },
    },
    async (request) => {
      const row = await findByRef(app.db, request.auth.workspace.id, request.params.key);
      if (!row) throw ApiError.notFound('benchmark');
      const runsWhere = { benchmarkId: row.id, workspaceId: request.auth.workspace.id };
      const [base, tasks, runs, runCount, leaderboard] = await Promise.all([
        toWire(app.db, publicUrl(), row),
        app.db.task.findMany({ where: { benchmarkId: row.id }, orderBy: { name: 'asc' } }),
        // the newest runs only; run_count tells clients to page the rest via GET /v1/runs?benchmark=
        app.db.run.findMany({
          where: runsWhere,
          orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
          take: BENCHMARK_DETAIL_MAX_RUNS,
          select: { id: true, name: true, status: true, createdAt: true, finishedAt: true, taskCount: true },
        }),
        app.db.run.count({ where: runsWhere }),
        computeLeaderboard(app.db, row, { maxErroredShare: app.config.rankedMaxErroredShare }).catch(
          (error: unknown) => {
            request.log.warn({ err: error }, 'leaderboard unavailable');
            return { entries: [] };
          },
        ),
      ]);
      const difficulty = { easy: 0, medium: 0, hard: 0, none: 0 };
      const manifests: BenchmarkTask[] = tasks.map((t) => {
        difficulty[(t.difficulty as 'easy' | 'medium' | 'hard' | null) ?? 'none'] += 1;
        const stored = TaskManifest.partial().safeParse(t.config);
        const m = stored.success ? stored.data : {};
        return {
          id: t.id,
          name: t.name,
          category: t.category,
          difficulty: (t.difficulty as BenchmarkTask['difficulty']) ?? null,
          tags: m.tags ?? [],
          instruction: t.instruction,
          config: m.config as BenchmarkTask['config'],
          digest: t.digest,
          env_digest: t.envDigest,
          files: m.files ?? [],
          has_dockerfile: m.has_dockerfile ?? false,
          has_solution: m.has_solution ?? false,
          unsupported_reason: t.unsupportedReason,
          parse_error: t.parseError,
          warnings: m.warnings ?? [],
        };
      });
      return {
        data: {
          ...base,
          difficulty_counts: difficulty,
          unsupported_task_count: tasks.filter((t) => t.unsupportedReason || t.parseError).length,
          tasks: manifests,
          leaderboard: leaderboard.entries,
          runs: runs.map((r) => ({
            id: r.id,
            name: r.name,
            status: r.status,
            created_at: r.createdAt.toISOString(),
            finished_at: r.finishedAt ? r.finishedAt.toISOString() : null,
            task_count: r.taskCount,
          })),
          run_count: runCount,
        },
      };
    },
  );

  app.post(
    '/benchmarks/:key/sync',
    {
      schema: {
        tags: ['benchmarks'],
        summary:
          'Retry the sync of a benchmark whose sync failed (or is still pending); resumes where it stopped',
        params: BenchmarkKeyParams,
        response: { 200: BenchmarkResponse, 202: BenchmarkResponse, ...STANDARD_ERROR_RESPONSES },
      },
    },
    async (request, reply) => {
      const row = await findByRef(app.db, request.auth.workspace.id, request.params.key);
      if (!row) throw ApiError.notFound('benchmark');
      if (row.syncStatus === 'ready') {
        reply.code(200);
        return { data: await toWire(app.db, publicUrl(), row) };
      }
      // a sync whose worker died leaves `syncing` behind; after SYNC_STALE_MS without progress
      // it may be retried (the worker's claim accepts it too)
      if (row.syncStatus === 'syncing' && Date.now() - row.updatedAt.getTime() < SYNC_STALE_MS) {
        throw new ApiError('CONFLICT', `benchmark "${row.key}" is syncing already`, {
          synced_task_count: row.syncedTaskCount,
        });
      }
      const updated = await app.db.benchmark.update({
        where: { id: row.id },
        data: { syncStatus: 'pending', syncError: null },
        include: { taskSets: true },
      });
      await enqueueBenchmarkSync(app.queues, row.id);
      reply.code(202);
      return { data: await toWire(app.db, publicUrl(), updated) };
    },
  );

  app.delete(
    '/benchmarks/:key',
    {
      schema: {
        tags: ['benchmarks'],
        summary:
          'Delete a benchmark and its tasks; with runs on it only with force=true, by admins and owners (the runs are deleted too); refused while runs are pending, queued or running',
        params: BenchmarkKeyParams,
        querystring: DeleteBenchmarkQuery,
        response: { 200: DeleteBenchmarkResponse, ...STANDARD_ERROR_RESPONSES },
      },
    },
    async (request) => {
      const row = await findByRef(app.db, request.auth.workspace.id, request.params.key);
      if (!row) throw ApiError.notFound('benchmark');
      await app.db.$transaction(async (tx) => {
        const active = await tx.run.findMany({
          where: { benchmarkId: row.id, status: { in: [...ACTIVE_RUN_STATUSES] } },
          select: { name: true, status: true },
          take: 10,
        });
        if (active.length > 0) {
          throw new ApiError(
            'CONFLICT',
            `benchmark "${row.key}" has active runs (${active.map((r) => `${r.name}: ${r.status}`).join(', ')}); stop them first`,
            { active_runs: active.map((r) => r.name) },
          );
        }
        // active runs first: even a forced delete waits for them to be stopped
        await assertMayDeleteRuns(tx, request, row, request.query.force);
        await tx.run.deleteMany({ where: { benchmarkId: row.id } });
        await tx.benchmark.delete({ where: { id: row.id } });
      });
      const source = (row.source ?? {}) as Record<string, unknown>;
      for (const k of ['archive_key', 'registry_key'] as const) {
        if (typeof source[k] === 'string')
          await store()
            .delete(source[k] as string)
            .catch(() => undefined);
      }
      return { data: { id: row.id, key: row.key, deleted: true as const } };
    },
  );
};
