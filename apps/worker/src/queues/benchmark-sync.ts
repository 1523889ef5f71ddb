// benchmark-sync: imports (or resumes importing) the tasks of one benchmark.
//
// pending|failed → syncing → ready, or failed with a sync_error naming the task and the cause.
// Tasks page in one by one: each is parsed (packages/tasks), packed as a deterministic tar into
// artifact storage under `tasks/<sha256>.tar` (Task.storageKey; the attempt pipeline extracts
// it), inserted, and synced_task_count grows. A retry skips the tasks already imported, so it
// resumes rather than restarts. A git sync keeps the commit it checked out
// (benchmarks.source_commit) once it is ready: run locks record it. A ready benchmark is never
// synced again, so its tasks never change under its runs. Registry tasks are fetched per
// (git_url, commit): one shallow, sparse fetch per commit, `gitConcurrency` at a time.

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  ArchiveSource,
  BenchmarkSyncJob,
  errorMessage,
  GitSource,
  isGitCommitId,
  QUEUE_NAMES,
  RegistrySource,
  type TaskSetSpec,
} from '@osmosis/contracts';
import { SYNC_STALE_MS } from '@osmosis/core';
import type { Prisma } from '@osmosis/db';
import { type EgressPolicy, EMPTY_ALLOWLIST } from '@osmosis/egress';
import { storageForDataDir } from '@osmosis/storage';
import {
  DEFAULT_EXTRACT_LIMITS,
  extractTar,
  fetchGit,
  findCatalogEntry,
  type GitSizeLimits,
  loadBenchmarkDir,
  mapLimit,
  parseRegistryDocument,
  parseTaskDir,
  type RegistryDataset,
  type RegistryTaskEntry,
  readBenchmarkToml,
  redactUrl,
  resolveDataset,
  resolveInside,
  SourcePathError,
  taskLimitsOf,
} from '@osmosis/tasks';
import type { Job } from 'bullmq';
import { sourcesEgress, sourcesLimits } from '../sources-config.ts';
import { fetchRegistryText } from './source-checks.ts';
import { type Importer, importer, type TaskImportDeps, upsertTaskSets } from './task-import.ts';
import type { QueueModule } from './types.ts';

export interface BenchmarkSyncDeps extends TaskImportDeps {
  /** fetches a registry document by URL (default: guardedFetch under `egress`, 60 s timeout) */
  fetchText?: (url: string) => Promise<string>;
  /** where git and registry fetches may connect (default: public addresses only) */
  egress?: EgressPolicy;
  /** git fetches in flight at once (default 4) */
  gitConcurrency?: number;
  /** scratch space (default the OS temp folder) */
  tmpDir?: string;
  /** see SYNC_STALE_MS */
  staleMs?: number;
}

export interface BenchmarkSyncResult {
  status: 'ready' | 'failed' | 'skipped';
  imported: number;
  skipped: number;
  error?: string;
}

class SyncError extends Error {}

function egressOf(deps: BenchmarkSyncDeps): EgressPolicy {
  return deps.egress ?? { allow: EMPTY_ALLOWLIST };
}

/** What one git fetch may bring: the limits of an archive, times the tasks it is fetched for (registry groups). */
function gitLimits(deps: BenchmarkSyncDeps, tasks = 1): GitSizeLimits {
  const names = deps.limits?.limitNames;
  return {
    maxBytes: (deps.limits?.maxBytes ?? DEFAULT_EXTRACT_LIMITS.maxBytes) * tasks,
    maxFiles: (deps.limits?.maxEntries ?? DEFAULT_EXTRACT_LIMITS.maxEntries) * tasks,
    names: { maxBytes: names?.maxBytes, maxFiles: names?.maxEntries },
  };
}

/** The commit id git reported, or a SyncError when it is anything but 40 or 64 hex characters. */
function checkedCommit(reported: unknown): string {
  if (isGitCommitId(reported)) return reported;
  throw new SyncError(
    `git reported the checked-out commit as ${JSON.stringify(String(reported).slice(0, 80))}, which is not a 40- or 64-character hex commit id; check the repository and ref`,
  );
}

/** The chosen sub-folder of a checkout or archive: a real folder inside it, or a SyncError naming it. */
async function sourceRoot(root: string, sub: string | null): Promise<string> {
  try {
    return await resolveInside(root, sub ?? '');
  } catch (error) {
    throw new SyncError(errorMessage(error));
  }
}

/** Folder-shaped sources: an uploaded archive or a git checkout. */
async function syncFolder(
  deps: BenchmarkSyncDeps,
  benchmarkId: string,
  root: string,
  imp: Importer,
): Promise<number> {
  const tasks = await loadBenchmarkDir(root).catch((error: unknown) => {
    // a file the source names badly (a name that is not UTF-8): the author's to fix
    throw error instanceof SourcePathError ? new SyncError(error.message) : error;
  });
  if (tasks.length === 0) throw new SyncError('no task folder (a folder with task.toml) found in the source');
  await deps.db.benchmark.update({ where: { id: benchmarkId }, data: { expectedTaskCount: tasks.length } });
  for (const t of tasks) {
    if (imp.have.has(t.manifest.name)) continue;
    try {
      await imp.importTask(t.dir ? path.join(root, t.dir) : root, t.manifest, t.dir || '.');
    } catch (error) {
      throw new SyncError(`task ${t.manifest.name}: ${errorMessage(error)}`);
    }
  }
  // benchmark.toml task sets (metadata was read when the benchmark was added)
  const meta = await readBenchmarkToml(root).catch(() => null);
  const sets = (meta?.task_sets ?? []).filter((s) => s.task_names);
  await upsertTaskSets(
    deps.db,
    benchmarkId,
    sets.map((s) => ({
      name: s.name,
      description: s.description ?? null,
      recommended: s.recommended ?? false,
      taskNames: s.task_names ?? [],
    })),
  );
  return tasks.length;
}

async function loadRegistry(deps: BenchmarkSyncDeps, source: RegistrySource): Promise<RegistryDataset[]> {
  let text: string;
  if (source.registry_key) {
    text = (await deps.storage.get(source.registry_key)).toString('utf8');
  } else if (source.registry_url) {
    try {
      text = await (deps.fetchText ?? ((url) => fetchRegistryText(url, egressOf(deps))))(source.registry_url);
    } catch (error) {
      throw new SyncError(
        `cannot read the registry at ${redactUrl(source.registry_url)}: ${errorMessage(error)}`,
      );
    }
  } else {
    throw new SyncError('the benchmark has neither a registry URL nor an uploaded registry document');
  }
  try {
    return parseRegistryDocument(text);
  } catch (error) {
    throw new SyncError(errorMessage(error));
  }
}

async function syncRegistry(
  deps: BenchmarkSyncDeps,
  benchmarkId: string,
  source: RegistrySource,
  taskSets: TaskSetSpec[],
  work: string,
  imp: Importer,
): Promise<number> {
  const datasets = await loadRegistry(deps, source);
  let dataset: RegistryDataset;
  try {
    // pin the version found at the first sync, so a retry never mixes two versions
    dataset = resolveDataset(
      datasets,
      source.resolved_version ? `${source.dataset.split('@')[0]}@${source.resolved_version}` : source.dataset,
    );
  } catch (error) {
    throw new SyncError(errorMessage(error));
  }
  await deps.db.benchmark.update({
    where: { id: benchmarkId },
    data: {
      expectedTaskCount: dataset.tasks.length,
      source: { ...source, resolved_version: dataset.version } as Prisma.InputJsonValue,
    },
  });
  const remaining = dataset.tasks.filter((t) => !imp.have.has(t.name));
  // one fetch per (repository, commit), in registry order
  const groups = new Map<string, RegistryTaskEntry[]>();
  for (const t of remaining) {
    const k = `${t.git_url}\n${t.git_commit_id ?? ''}`;
    groups.set(k, [...(groups.get(k) ?? []), t]);
  }
  const failures: string[] = [];
  await mapLimit([...groups.values()], deps.gitConcurrency ?? 4, async (entries, i) => {
    const first = entries[0]!;
    const dest = path.join(work, `g${i}`);
    try {
      await fetchGit({
        url: first.git_url,
        ref: first.git_commit_id ?? null,
        paths: entries.map((e) => e.path).filter(Boolean),
        dest,
        policy: egressOf(deps),
        limits: gitLimits(deps, entries.length),
      });
    } catch (error) {
      for (const e of entries) failures.push(`task ${e.name}: ${errorMessage(error)}`);
      return;
    }
    for (const e of entries) {
      try {
        const dir = await resolveInside(dest, e.path);
        const manifest = await parseTaskDir(dir, { name: e.name }).catch((error: unknown) => {
          throw new Error(
            `no task folder at ${e.path || '.'} of ${redactUrl(e.git_url)}: ${errorMessage(error)}`,
          );
        });
        // the registry names its tasks
        await imp.importTask(dir, { ...manifest, name: e.name }, e.path || '.');
      } catch (error) {
        failures.push(`task ${e.name}: ${errorMessage(error)}`);
      }
    }
    await rm(dest, { recursive: true, force: true });
  });
  if (failures.length > 0) {
    const more =
      failures.length > 1
        ? ` (and ${failures.length - 1} more task${failures.length > 2 ? 's' : ''} failed)`
        : '';
    throw new SyncError(`${failures[0]}${more}`);
  }
  // task sets given as another dataset of the same registry (HLE's parity set)
  const sets = [];
  for (const s of taskSets) {
    let names = s.task_names ?? [];
    if (s.dataset) {
      try {
        names = resolveDataset(datasets, s.dataset).tasks.map((t) => t.name);
      } catch (error) {
        deps.logger?.warn(
          { benchmarkId, set: s.name, err: errorMessage(error) },
          'task set dataset not found',
        );
        continue;
      }
    }
    sets.push({ name: s.name, description: s.description, recommended: s.recommended, taskNames: names });
  }
  await upsertTaskSets(deps.db, benchmarkId, sets);
  return dataset.tasks.length;
}

/**
 * Sync one benchmark (the job's payload is `{benchmarkId}`). Does not throw for a bad source or
 * a failed fetch: the benchmark ends `failed` with a sync_error (errors of the platform itself
 * read `internal error: …`), and `POST /v1/benchmarks/:key/sync` retries it. A job for a
 * benchmark that is not pending or failed (a duplicate, or one syncing elsewhere) is skipped.
 */
export async function processBenchmarkSync(
  deps: BenchmarkSyncDeps,
  job: Pick<Job, 'data'> | { data: unknown },
): Promise<BenchmarkSyncResult> {
  const { benchmarkId } = BenchmarkSyncJob.parse(job.data);
  const { db } = deps;
  // claim: only a pending or failed benchmark starts syncing (a duplicate job is a no-op)
  // (or one left `syncing` by a worker that died: no progress for SYNC_STALE_MS)
  const claimed = await db.benchmark.updateMany({
    where: {
      id: benchmarkId,
      OR: [
        { syncStatus: { in: ['pending', 'failed'] } },
        { syncStatus: 'syncing', updatedAt: { lt: new Date(Date.now() - (deps.staleMs ?? SYNC_STALE_MS)) } },
      ],
    },
    data: { syncStatus: 'syncing', syncError: null },
  });
  if (claimed.count === 0) return { status: 'skipped', imported: 0, skipped: 0 };
  const row = await db.benchmark.findUniqueOrThrow({ where: { id: benchmarkId } });
  const existing = await db.task.findMany({ where: { benchmarkId }, select: { name: true } });
  const have = new Set(existing.map((t) => t.name));
  await db.benchmark.update({ where: { id: benchmarkId }, data: { syncedTaskCount: have.size } });
  const imp = importer(deps, benchmarkId, have);
  const work = await mkdtemp(path.join(deps.tmpDir ?? tmpdir(), 'osmosis-sync-'));
  const before = have.size;
  try {
    const source = (row.source ?? {}) as Record<string, unknown>;
    let expected: number;
    // git: the commit checked out, kept once every task of it is imported
    let commit: string | null = null;
    if (row.sourceKind === 'archive') {
      const s = ArchiveSource.parse(source);
      const root = path.join(work, 'archive');
      try {
        await extractTar(await deps.storage.getStream(s.archive_key), root, {
          ...DEFAULT_EXTRACT_LIMITS,
          ...deps.limits,
        });
      } catch (error) {
        throw new SyncError(`archive: ${errorMessage(error)}`);
      }
      expected = await syncFolder(deps, benchmarkId, await sourceRoot(root, s.path), imp);
    } else if (row.sourceKind === 'git') {
      const s = GitSource.parse(source);
      const dest = path.join(work, 'repo');
      try {
        commit = await fetchGit({
          url: s.url,
          ref: s.ref,
          paths: s.path ? [s.path] : [],
          dest,
          policy: egressOf(deps),
          limits: gitLimits(deps),
        });
      } catch (error) {
        throw new SyncError(errorMessage(error));
      }
      commit = checkedCommit(commit);
      expected = await syncFolder(deps, benchmarkId, await sourceRoot(dest, s.path), imp);
    } else {
      const s = RegistrySource.parse(source);
      const catalogKey = typeof source.catalog_key === 'string' ? source.catalog_key : null;
      const sets = catalogKey ? (findCatalogEntry(catalogKey)?.task_sets ?? []) : [];
      expected = await syncRegistry(deps, benchmarkId, s, sets, work, imp);
    }
    await db.benchmark.update({
      where: { id: benchmarkId },
      data: {
        syncStatus: 'ready',
        syncError: null,
        syncedTaskCount: have.size,
        expectedTaskCount: expected,
        ...(commit ? { sourceCommit: commit } : {}),
      },
    });
    deps.logger?.info({ benchmarkId, tasks: have.size }, 'benchmark synced');
    return { status: 'ready', imported: have.size - before, skipped: before };
  } catch (error) {
    const message = error instanceof SyncError ? error.message : `internal error: ${errorMessage(error)}`;
    await db.benchmark.update({
      where: { id: benchmarkId },
      data: { syncStatus: 'failed', syncError: message.slice(0, 2000), syncedTaskCount: have.size },
    });
    deps.logger?.warn({ benchmarkId, err: message }, 'benchmark sync failed');
    return { status: 'failed', imported: have.size - before, skipped: before, error: message };
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/** The queue module (listed in queues/index.ts). */
export const benchmarkSyncModule: QueueModule = {
  name: 'benchmark-sync',
  queue: QUEUE_NAMES.benchmarkSync,
  concurrency: () => 2,
  lockDurationMs: () => 120_000,
  create: (ctx) => {
    const storage = storageForDataDir(ctx.config.dataDir);
    const egress = sourcesEgress(ctx.config);
    const limits = sourcesLimits(ctx.config);
    return {
      process: (job) =>
        processBenchmarkSync(
          { db: ctx.db, storage, logger: ctx.logger, taskLimits: taskLimitsOf(ctx.config), egress, limits },
          job,
        ),
    };
  },
};
