// Test helpers for the dispatcher's plans: the statistics a big run's hand-out leaves behind, a run
// whose backlog runs low, the plan a one-trip's statement gets, and what that plan read.
import { type Db, Prisma, queryInOneTrip } from '@osmosis/db';
import { type SeededRun, seedRun } from './fixtures.ts';

/**
 * A big run (a workspace of its own) whose line Postgres does not know of: its statistics were
 * taken when it was submitted (nothing handed out, nothing running); then `line` of its attempts
 * were handed out and as many more started (attempts_claim_idx holds `line` entries and
 * attempts_in_flight_idx twice as many, while the statistics think both empty). In a database of
 * the test's own: autovacuum is turned off for attempts so that nothing catches up meanwhile; the
 * visibility map is set after (VACUUM), so what a plan reads is its index walk, not fresh rows'
 * heap pages.
 */
export async function lineUnknownToStatistics(db: Db, line: number): Promise<SeededRun> {
  await db.$executeRawUnsafe('ALTER TABLE attempts SET (autovacuum_enabled = false)');
  const big = await seedRun(db, { tasks: 1, maxConcurrentAttempts: 3 * line });
  await db.run.update({ where: { id: big.runId }, data: { status: 'running' } });
  await db.$executeRaw`INSERT INTO attempts (id, run_id, agent_id, task_id, index, status)
    SELECT gen_random_uuid(), run_id, agent_id, task_id, g, 'queued'
    FROM attempts, generate_series(1, ${3 * line}) g WHERE run_id = ${big.runId}::uuid`;
  await db.$executeRawUnsafe('ANALYZE attempts');
  await db.$executeRaw`UPDATE attempts SET dispatched_at = now(), in_line_at = now(),
      status = CASE WHEN index <= ${line} THEN 'running' ELSE 'queued' END::"AttemptStatus"
    WHERE run_id = ${big.runId}::uuid AND index <= ${2 * line}`;
  await db.$executeRawUnsafe('VACUUM attempts');
  return big;
}

/** A running run of 40 attempts, 10 of them handed out: its backlog is low (limit 100). */
export async function runWithLowBacklog(db: Db): Promise<SeededRun> {
  const run = await seedRun(db, { tasks: 40, maxConcurrentAttempts: 100 });
  await db.run.update({ where: { id: run.runId }, data: { status: 'running' } });
  await db.$executeRaw`UPDATE attempts SET dispatched_at = now(), in_line_at = now()
    WHERE id IN (SELECT id FROM attempts WHERE run_id = ${run.runId}::uuid ORDER BY index LIMIT 10)`;
  return run;
}

/**
 * The plan that statement `at` of a one-trip gets, sent after the statements before it as the trip
 * sends them (EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON): the statement runs, in the trip's
 * transaction).
 */
export async function planInTrip(db: Db, statements: Prisma.Sql[], at: number): Promise<unknown> {
  const rows = await queryInOneTrip<{ 'QUERY PLAN': unknown }>(db, [
    ...statements.slice(0, at),
    Prisma.sql`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${statements[at] ?? Prisma.empty}`,
  ]);
  return rows?.[0]?.['QUERY PLAN'];
}

/** The scans of attempts' indexes in an EXPLAIN (FORMAT JSON) plan, as "<node type> <index>", sorted. */
export function attemptsIndexScans(plan: unknown): string[] {
  const scans: string[] = [];
  const visit = (node: Record<string, unknown>) => {
    const index = node['Index Name'];
    if (typeof index === 'string' && index.startsWith('attempts_'))
      scans.push(`${node['Node Type']} ${index}`);
    for (const child of (node.Plans as Record<string, unknown>[] | undefined) ?? []) visit(child);
  };
  visit((plan as [{ Plan: Record<string, unknown> }])[0].Plan);
  return scans.sort();
}

/** The shared blocks an EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) plan's top node read. */
export function sharedBlocksOf(plan: unknown): number {
  const top = (plan as [{ Plan: Record<string, number> }])[0].Plan;
  return (top['Shared Hit Blocks'] ?? 0) + (top['Shared Read Blocks'] ?? 0);
}
