// What the run and attempt pages read beyond the /v1 views: the run's settings line, one page of
// the task × agent grid, and one attempt with its artifacts and events. Always through the run
// of the caller's workspace (another workspace's run or attempt is not found).
import { type Db, Prisma } from '@osmosis/db';

/** The run `name` of the workspace: what the run page shows besides its results. */
export function runPageRun(db: Db, workspaceId: string, name: string) {
  return db.run.findFirst({
    where: { workspaceId, name },
    select: {
      id: true,
      errorMessage: true,
      passThreshold: true,
      maxConcurrentAttempts: true,
      imported: true,
      maxCostUsd: true,
      waitingReason: true,
      benchmark: { select: { key: true, name: true } },
      imagePins: { select: { reference: true, digest: true }, orderBy: { reference: 'asc' } },
      reusedFrom: { select: { name: true } },
    },
  });
}

/**
 * One page of the run's tasks (`show`: only tasks with a failed or errored attempt; `category`:
 * one category), the run's categories, the filtered task count and the page's attempts.
 */
export async function runGrid(
  db: Db,
  runId: string,
  filter: { show: string; category: string; offset: number; limit: number },
) {
  const run = await db.run.findUniqueOrThrow({
    where: { id: runId },
    select: { benchmarkId: true, taskCount: true },
  });
  // compared as the enum so the probe uses the index on (run_id, task_id, outcome)
  const outcomeFilter = filter.show
    ? Prisma.sql`AND a.outcome = ${filter.show}::"AttemptOutcome"`
    : Prisma.empty;
  const categoryFilter = filter.category ? Prisma.sql`AND t.category = ${filter.category}` : Prisma.empty;
  // the run's tasks: its benchmark's, by name, that it has an attempt at (one index probe each)
  const ofRun = Prisma.sql`t.benchmark_id = ${run.benchmarkId}::uuid ${categoryFilter}
    AND EXISTS (SELECT 1 FROM attempts a WHERE a.run_id = ${runId}::uuid AND a.task_id = t.id ${outcomeFilter})`;
  const filtered = Boolean(filter.show || filter.category);
  const [tasks, categories, counted] = await Promise.all([
    db.$queryRaw<{ id: string; name: string; category: string | null }[]>`
      SELECT t.id::text AS id, t.name, t.category FROM tasks t WHERE ${ofRun}
      ORDER BY t.name LIMIT ${filter.limit} OFFSET ${filter.offset}`,
    db.$queryRaw<{ category: string }[]>`
      SELECT c.category FROM (SELECT DISTINCT category FROM tasks
        WHERE benchmark_id = ${run.benchmarkId}::uuid AND category IS NOT NULL) c
      WHERE EXISTS (SELECT 1 FROM tasks t WHERE t.benchmark_id = ${run.benchmarkId}::uuid
        AND t.category = c.category
        AND EXISTS (SELECT 1 FROM attempts a WHERE a.run_id = ${runId}::uuid AND a.task_id = t.id))
      ORDER BY 1`,
    filtered
      ? db.$queryRaw<{ n: number }[]>`SELECT count(*)::int AS n FROM tasks t WHERE ${ofRun}`
      : Promise.resolve([{ n: run.taskCount }]),
  ]);
  const attempts = tasks.length
    ? await db.attempt.findMany({
        where: { runId, taskId: { in: tasks.map((t) => t.id) } },
        select: {
          id: true,
          agentId: true,
          taskId: true,
          index: true,
          status: true,
          outcome: true,
          reward: true,
          reusedFromAttemptId: true,
        },
        orderBy: { index: 'asc' },
      })
    : [];
  return { tasks, categories, totalTasks: counted[0]?.n ?? 0, attempts };
}

/** Attempt `id` of run `name` in the workspace, with its artifacts and first 500 events; null when there is none. */
export async function attemptWithEvents(db: Db, workspaceId: string, name: string, id: string) {
  const attempt = await db.attempt.findFirst({
    where: { id, run: { name, workspaceId } },
    include: {
      task: { select: { name: true, category: true, difficulty: true } },
      agent: { select: { harness: true, model: true, index: true } },
      artifacts: { orderBy: { path: 'asc' }, select: { path: true, size: true, storageKey: true } },
    },
  });
  if (!attempt) return null;
  const events = await db.runEvent.findMany({
    where: { runId: attempt.runId, attemptId: attempt.id },
    orderBy: { id: 'asc' },
    take: 500,
    select: { timestamp: true, level: true, step: true, message: true },
  });
  return { attempt, events };
}
