// Retrying a benchmark's sync and deleting a benchmark (with its runs, under the rule of
// benchmark-delete.ts). Routes and the benchmark page's sync button call these.
import { ACTIVE_RUN_STATUSES, type Benchmark, type MemberRole } from '@osmosis/contracts';
import { SYNC_STALE_MS } from '@osmosis/core';
import type { Db } from '@osmosis/db';
import { enqueueBenchmarkSync, type Queues } from '@osmosis/queues';
import type { ArtifactStorage } from '@osmosis/storage';
import { ApiError } from '../errors.ts';
import { assertMayDeleteRuns } from './benchmark-delete.ts';
import { benchmarkToWire, findBenchmarkByRef } from './benchmark-wire.ts';
import { benchmarkNotFound } from './not-found.ts';

/**
 * Re-enqueues the sync of a benchmark that failed or is still pending (it resumes); `started`
 * is false when the benchmark is ready already. 409 while a live sync runs.
 */
export async function retryBenchmarkSync(
  deps: { db: Db; queues: Queues; publicUrl: string },
  workspaceId: string,
  ref: string,
): Promise<{ started: boolean; benchmark: Benchmark }> {
  const { db } = deps;
  const row = await findBenchmarkByRef(db, workspaceId, ref);
  if (!row) throw await benchmarkNotFound(db, workspaceId, ref);
  if (row.syncStatus === 'ready')
    return { started: false, benchmark: await benchmarkToWire(db, deps.publicUrl, row) };
  // a sync whose worker died leaves `syncing` behind; after SYNC_STALE_MS without progress
  // it may be retried (the worker's claim accepts it too)
  if (row.syncStatus === 'syncing' && Date.now() - row.updatedAt.getTime() < SYNC_STALE_MS) {
    throw new ApiError('CONFLICT', `benchmark "${row.key}" is syncing already`, {
      synced_task_count: row.syncedTaskCount,
    });
  }
  const updated = await db.benchmark.update({
    where: { id: row.id },
    data: { syncStatus: 'pending', syncError: null },
    include: { taskSets: true },
  });
  await enqueueBenchmarkSync(deps.queues, row.id);
  return { started: true, benchmark: await benchmarkToWire(db, deps.publicUrl, updated) };
}

/** Deletes the benchmark, its tasks and (forced, by an admin) its runs; then its stored uploads. */
export async function deleteBenchmark(
  deps: { db: Db; storage: ArtifactStorage },
  caller: { workspaceId: string; role: MemberRole },
  ref: string,
  force: boolean,
): Promise<{ id: string; key: string }> {
  const row = await findBenchmarkByRef(deps.db, caller.workspaceId, ref);
  if (!row) throw await benchmarkNotFound(deps.db, caller.workspaceId, ref);
  await deps.db.$transaction(async (tx) => {
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
    await assertMayDeleteRuns(tx, caller.role, row, force);
    await tx.run.deleteMany({ where: { benchmarkId: row.id } });
    await tx.benchmark.delete({ where: { id: row.id } });
  });
  const source = (row.source ?? {}) as Record<string, unknown>;
  for (const k of ['archive_key', 'registry_key'] as const) {
    if (typeof source[k] === 'string') await deps.storage.delete(source[k] as string).catch(() => undefined);
  }
  return { id: row.id, key: row.key };
}
