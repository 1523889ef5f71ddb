// Attempts in flight: running, or queued and handed out by the dispatcher (dispatched_at set) —
// what max_concurrent_attempts and the workspace limit count. Written exactly as the predicate of
// the partial index attempts_in_flight_idx (migration 20261208090000), so every count reads only
// the rows in flight, never a run's queued backlog.
import { Prisma } from '../generated/prisma/client.ts';

type Queryable = Pick<Prisma.TransactionClient, '$queryRaw'>;

/** SQL: attempt row `alias` is in flight (alias as written in the query's FROM). */
export function attemptInFlight(alias: 'a' | 'attempts'): Prisma.Sql {
  const a = Prisma.raw(alias);
  return Prisma.sql`(${a}.status = 'running' OR (${a}.status = 'queued' AND ${a}.dispatched_at IS NOT NULL))`;
}

/** SQL: the number of run `runId`'s attempts in flight (a scalar subquery). */
export function runInFlightCount(runId: Prisma.Sql): Prisma.Sql {
  return Prisma.sql`(SELECT count(*) FROM attempts a WHERE a.run_id = ${runId} AND ${attemptInFlight('a')})`;
}

/**
 * SQL: the rows of run `runId`'s attempts handed out and not started yet (its backlog), for a
 * count. Written as plain conjunctions, not as attemptInFlight plus `status = 'queued'`: under a
 * generic plan Postgres read that through attempts_dispatch_pick_idx with only (run_id, status) as
 * the index condition — every queued attempt of the run, 4 000 heap fetches for a backlog of 188,
 * 20 ms a result and most of Postgres's time at 100 x 8 (bench/dispatch-scale.ts, auto_explain).
 * `dispatched_at IS NOT NULL` is an index condition on either index that serves it.
 */
export function runBacklogRows(runId: Prisma.Sql): Prisma.Sql {
  return Prisma.sql`attempts a WHERE a.run_id = ${runId} AND a.status = 'queued' AND a.dispatched_at IS NOT NULL`;
}

/**
 * SQL: run `runId`'s backlog rows, as many as backlogLow's test reads (one past a quarter of
 * `maxConcurrent`), in attempts_dispatch_pick_idx's order (run_id, status, dispatched_at). With
 * sorts priced out (enable_sort=off: the generic-plan connections, or SORTS_OFF for a statement)
 * that index is its only plan. Left to choose, with statistics taken before a big run was handed
 * out (none in line, as far as they knew), Postgres walked attempts_claim_idx — every run's line,
 * one heap fetch an entry — for each run it tested: 18 000–37 000 shared blocks a workspace pass
 * and 215 000 a reconciler sweep at 100 x 8 (bench/dispatch-scale.ts, auto_explain).
 */
export function runBacklogInOrder(runId: Prisma.Sql, maxConcurrent: Prisma.Sql): Prisma.Sql {
  return Prisma.sql`SELECT 1 FROM ${runBacklogRows(runId)}
    ORDER BY a.dispatched_at LIMIT greatest(${maxConcurrent} / 4 + 1, 1)`;
}

/**
 * SQL: the dispatcher should top the run up now — its backlog is down to a quarter of
 * max_concurrent_attempts (at once for a run of up to 7 slots). A big run is then topped up in
 * batches, not by a dispatcher transaction (and its run lock) per finished attempt, and a freed
 * slot meanwhile takes an attempt already handed out. Counted as far as the test reads, on the
 * hand-out's index (runBacklogInOrder: sorts priced out).
 */
export function backlogLow(runId: Prisma.Sql, maxConcurrent: Prisma.Sql): Prisma.Sql {
  return isBacklogLow(
    Prisma.sql`(SELECT count(*) FROM (${runBacklogInOrder(runId, maxConcurrent)}) backlog)`,
    maxConcurrent,
  );
}

/** SQL: backlogLow's test on a backlog the statement counted already (runBacklogInOrder). */
export function isBacklogLow(backlog: Prisma.Sql, maxConcurrent: Prisma.Sql): Prisma.Sql {
  return Prisma.sql`(${backlog} <= ${maxConcurrent} / 4)`;
}

/**
 * A workspace's attempts in flight, summed over its runs (each run's from the partial index);
 * `runStatuses`: only runs in these statuses (the dispatcher counts active runs only).
 */
export async function workspaceAttemptsInFlight(
  db: Queryable,
  workspaceId: string,
  runStatuses?: readonly string[],
): Promise<number> {
  const rows = await db.$queryRaw<{ in_flight: number }[]>`
    SELECT ${workspaceInFlightCount(Prisma.sql`${workspaceId}::uuid`, runStatuses)} AS in_flight`;
  return rows[0]?.in_flight ?? 0;
}

/**
 * SQL: workspaceAttemptsInFlight as a scalar subquery (an int), for a statement that counts it
 * itself; `exceptRun`: leave that run out (a statement that counted it already adds its own count).
 */
export function workspaceInFlightCount(
  workspaceId: Prisma.Sql,
  runStatuses?: readonly string[],
  exceptRun?: Prisma.Sql,
): Prisma.Sql {
  const statusFilter = runStatuses
    ? Prisma.sql`AND r.status::text = ANY(${[...runStatuses]}::text[])`
    : Prisma.empty;
  const except = exceptRun ? Prisma.sql`AND r.id <> ${exceptRun}` : Prisma.empty;
  return Prisma.sql`(SELECT coalesce(sum(${runInFlightCount(Prisma.sql`r.id`)}), 0)::int
    FROM runs r WHERE r.workspace_id = ${workspaceId} ${statusFilter} ${except})`;
}
