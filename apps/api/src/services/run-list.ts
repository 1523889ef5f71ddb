// The run list and the summary every run view starts from: progress, best pass@1, creator,
// faults. GET /v1/runs and the runs page call listRuns; run-info.ts reuses summary().
import type {
  ProgressSnapshot,
  RunFaults,
  RunListQuery,
  RunStatusName,
  RunSummary,
} from '@osmosis/contracts';
import { attemptCountsByRun, type Db, type Prisma } from '@osmosis/db';
import type { ServiceDeps } from './deps.ts';
import { bestPassAt1ByRun } from './run-results.ts';
import { iso, page } from './serialize.ts';
import { faultsOfRuns } from './workers.ts';
import { usersById } from './workspace-entries.ts';

export const RUN_LIST_INCLUDE = {
  benchmark: { select: { key: true, name: true } },
  _count: { select: { agents: true } },
} as const;

export type RunRow = Prisma.RunGetPayload<{ include: typeof RUN_LIST_INCLUDE }>;

export function runPlatformUrl(publicUrl: string, name: string): string {
  return `${publicUrl.replace(/\/+$/, '')}/runs/${encodeURIComponent(name)}`;
}

function durationMs(
  run: { startedAt: Date | null; finishedAt: Date | null },
  now = new Date(),
): number | null {
  if (!run.startedAt) return null;
  return Math.max(0, (run.finishedAt ?? now).getTime() - run.startedAt.getTime());
}

/** Attempt counts of runs, as ProgressSnapshot (one grouped query). */
export async function progressByRun(db: Db, runIds: string[]): Promise<Map<string, ProgressSnapshot>> {
  const out = new Map<string, ProgressSnapshot>();
  for (const id of runIds) {
    out.set(id, {
      total: 0,
      done: 0,
      running: 0,
      queued: 0,
      passed: 0,
      failed: 0,
      errored: 0,
      cancelled: 0,
      fraction: 0,
    });
  }
  if (runIds.length === 0) return out;
  for (const row of await attemptCountsByRun(db, runIds)) {
    const p = out.get(row.run_id);
    if (!p) continue;
    const n = row.n;
    p.total += n;
    if (row.status === 'running') p.running += n;
    else if (row.status === 'queued') p.queued += n;
    if (row.outcome) {
      p.done += n;
      p[row.outcome] += n;
    }
  }
  for (const p of out.values()) p.fraction = p.total === 0 ? 0 : p.done / p.total;
  return out;
}

export function summary(
  row: RunRow,
  extra: {
    progress: ProgressSnapshot;
    best: number | null;
    createdBy: string | null;
    publicUrl: string;
    faults: RunFaults;
    creator?: { email: string; name: string | null } | undefined;
  },
): RunSummary {
  return {
    id: row.id,
    name: row.name,
    status: row.status as RunStatusName,
    benchmark_id: row.benchmarkId,
    benchmark_key: row.benchmark.key,
    benchmark_name: row.benchmark.name,
    task_count: row.taskCount,
    agent_count: row._count.agents,
    attempts_per_task: row.attemptsPerTask,
    max_concurrent_attempts: row.maxConcurrentAttempts,
    best_pass_at_1: extra.best,
    progress: extra.progress,
    created_by: extra.createdBy,
    created_at: iso(row.createdAt),
    started_at: iso(row.startedAt),
    finished_at: iso(row.finishedAt),
    duration_ms: durationMs(row),
    platform_url: runPlatformUrl(extra.publicUrl, row.name),
    ...extra.faults,
    waiting_reason: row.waitingReason ?? pullingReason(row),
    creator_name: extra.creator ? (extra.creator.name ?? extra.creator.email) : null,
    creator_email: extra.creator?.email ?? null,
    imported: row.imported,
  };
}

/** A worker's pull for the run (`pulling alexgshaw/x:20251031 · 412 / 980 MB`) while it is recent. */
const PULL_STATUS_FRESH_MS = 60_000;
function pullingReason(row: Pick<RunRow, 'imagePullStatus' | 'imagePullAt'>): string | null {
  if (!row.imagePullStatus || !row.imagePullAt) return null;
  return Date.now() - row.imagePullAt.getTime() < PULL_STATUS_FRESH_MS ? row.imagePullStatus : null;
}

/** E-mails and display names of run creators (upstream's created_by, creator_name, creator_email). */
export async function creatorsOf(
  db: Db,
  ids: string[],
): Promise<Map<string, { email: string; name: string | null }>> {
  const users = await usersById(db, ids);
  return new Map([...users].map(([id, u]) => [id, { email: u.email, name: u.display_name }]));
}

/** One page of the workspace's runs, newest first; `benchmark` filters by key, exact name or id. */
export async function listRuns(deps: ServiceDeps, workspaceId: string, query: RunListQuery) {
  const { db, config } = deps;
  const { limit, offset, status, benchmark } = query;
  const where: Prisma.RunWhereInput = { workspaceId };
  if (status) where.status = status;
  if (benchmark) {
    const isId = /^[0-9a-f-]{36}$/i.test(benchmark);
    where.benchmark = isId
      ? { OR: [{ id: benchmark }, { key: benchmark }, { name: benchmark }] }
      : { OR: [{ key: benchmark }, { name: benchmark }] };
  }
  const [total, rows] = await Promise.all([
    db.run.count({ where }),
    db.run.findMany({
      where,
      include: RUN_LIST_INCLUDE,
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      skip: offset,
      take: limit,
    }),
  ]);
  const ids = rows.map((r) => r.id);
  const [progress, best, creators] = await Promise.all([
    progressByRun(db, ids),
    bestPassAt1ByRun(db, ids),
    creatorsOf(
      db,
      rows.map((r) => r.createdById),
    ),
  ]);
  const faults = await faultsOfRuns(
    db,
    rows.map((r) => ({ id: r.id, status: r.status, progress: progress.get(r.id)! })),
    { maxErroredShare: config.rankedMaxErroredShare, workspaceMax: config.workspaceMaxConcurrentAttempts },
  );
  const items = rows.map((row) => {
    const creator = creators.get(row.createdById);
    return summary(row, {
      progress: progress.get(row.id)!,
      best: best.get(row.id) ?? null,
      createdBy: creator?.email ?? null,
      publicUrl: config.publicUrl,
      faults: faults.get(row.id)!,
      creator,
    });
  });
  return page(items, total, offset);
}
