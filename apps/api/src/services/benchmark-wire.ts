// A benchmark row as the API shows it (with task counts, last run, run counts), found by key,
// exact name or id; and the workspace's list. Routes and pages call these.
import { ACTIVE_RUN_STATUSES, type Benchmark, isGitCommitId, type PageQuery } from '@osmosis/contracts';
import type { Db, Prisma } from '@osmosis/db';
import { isUuid } from '../auth.ts';
import { page } from './serialize.ts';

export type BenchmarkRow = Prisma.BenchmarkGetPayload<{ include: { taskSets: true } }>;

export function benchmarkPlatformUrl(publicUrl: string, key: string): string {
  return `${publicUrl.replace(/\/+$/, '')}/benchmarks/${encodeURIComponent(key)}`;
}

/** A benchmark of the workspace by key, exact name or id. */
export async function findBenchmarkByRef(
  db: Db,
  workspaceId: string,
  ref: string,
): Promise<BenchmarkRow | null> {
  const or: Prisma.BenchmarkWhereInput[] = [{ key: ref }, { name: ref }];
  if (isUuid(ref)) or.push({ id: ref });
  return db.benchmark.findFirst({ where: { workspaceId, OR: or }, include: { taskSets: true } });
}

export async function benchmarkToWire(db: Db, publicUrl: string, row: BenchmarkRow): Promise<Benchmark> {
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
    source_commit: row.sourceKind === 'git' && isGitCommitId(row.sourceCommit) ? row.sourceCommit : null,
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

/** One page of the workspace's benchmarks, by name. */
export async function listBenchmarks(db: Db, publicUrl: string, workspaceId: string, query: PageQuery) {
  const { limit, offset } = query;
  const where = { workspaceId };
  const [total, rows] = await Promise.all([
    db.benchmark.count({ where }),
    db.benchmark.findMany({
      where,
      include: { taskSets: true },
      orderBy: [{ name: 'asc' }, { id: 'asc' }],
      skip: offset,
      take: limit,
    }),
  ]);
  const items = await Promise.all(rows.map((r) => benchmarkToWire(db, publicUrl, r)));
  return page(items, total, offset);
}
