// One benchmark with everything its page shows: the task manifest, difficulty counts, the
// leaderboard and the newest BENCHMARK_DETAIL_MAX_RUNS runs (run_count tells clients to page the
// rest via GET /v1/runs?benchmark=).
import {
  BENCHMARK_DETAIL_MAX_RUNS,
  type BenchmarkDetail,
  type BenchmarkTask,
  TaskManifest,
} from '@osmosis/contracts';
import { defaultTaskConfig } from '@osmosis/tasks';
import type { FastifyBaseLogger } from 'fastify';
import { benchmarkToWire, findBenchmarkByRef } from './benchmark-wire.ts';
import type { ServiceDeps } from './deps.ts';
import { computeLeaderboard } from './leaderboard.ts';
import { benchmarkNotFound } from './not-found.ts';

/** The benchmark `ref` (key, exact name or id) of the workspace, or 404. */
export async function benchmarkDetail(
  deps: ServiceDeps,
  workspaceId: string,
  ref: string,
  log: FastifyBaseLogger,
  options: { includeImported?: boolean } = {},
): Promise<BenchmarkDetail> {
  const { db, config } = deps;
  const row = await findBenchmarkByRef(db, workspaceId, ref);
  if (!row) throw await benchmarkNotFound(db, workspaceId, ref);
  const runsWhere = { benchmarkId: row.id, workspaceId };
  const [base, tasks, runs, runCount, leaderboard] = await Promise.all([
    benchmarkToWire(db, config.publicUrl, row),
    db.task.findMany({ where: { benchmarkId: row.id }, orderBy: { name: 'asc' } }),
    db.run.findMany({
      where: runsWhere,
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      take: BENCHMARK_DETAIL_MAX_RUNS,
      select: { id: true, name: true, status: true, createdAt: true, finishedAt: true, taskCount: true },
    }),
    db.run.count({ where: runsWhere }),
    computeLeaderboard(db, row, {
      maxErroredShare: config.rankedMaxErroredShare,
      includeImported: options.includeImported,
    }).catch((error: unknown) => {
      log.warn({ err: error }, 'leaderboard unavailable');
      return { entries: [], unranked: [], imported_entries: [] };
    }),
  ]);
  const difficulty = { easy: 0, medium: 0, hard: 0, none: 0 };
  const manifests: BenchmarkTask[] = tasks.map((t) => {
    difficulty[(t.difficulty as 'easy' | 'medium' | 'hard' | null) ?? 'none'] += 1;
    const stored = TaskManifest.partial().safeParse(t.config);
    const m = stored.success ? stored.data : {};
    // a stored row without a readable manifest (written by an older version, edited by hand) is
    // shown as unparsable with defaults, rather than failing the whole benchmark
    const unreadable = !m.config;
    return {
      id: t.id,
      name: t.name,
      category: t.category,
      difficulty: (t.difficulty as BenchmarkTask['difficulty']) ?? null,
      tags: m.tags ?? [],
      instruction: t.instruction,
      config: m.config ?? defaultTaskConfig(),
      digest: t.digest,
      env_digest: t.envDigest,
      files: m.files ?? [],
      has_dockerfile: m.has_dockerfile ?? false,
      has_solution: m.has_solution ?? false,
      unsupported_reason: t.unsupportedReason,
      parse_error:
        t.parseError ??
        (unreadable ? 'the stored manifest of this task could not be read: sync the benchmark again' : null),
      warnings: m.warnings ?? [],
    };
  });
  return {
    ...base,
    difficulty_counts: difficulty,
    unsupported_task_count: manifests.filter((t) => t.unsupported_reason || t.parse_error).length,
    tasks: manifests,
    leaderboard: leaderboard.entries,
    leaderboard_unranked: leaderboard.unranked,
    leaderboard_imported: leaderboard.imported_entries,
    runs: runs.map((r) => ({
      id: r.id,
      name: r.name,
      status: r.status,
      created_at: r.createdAt.toISOString(),
      finished_at: r.finishedAt ? r.finishedAt.toISOString() : null,
      task_count: r.taskCount,
    })),
    run_count: runCount,
  };
}
