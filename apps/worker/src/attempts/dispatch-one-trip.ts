// The dispatcher's common pass in one round trip (queryInOneTrip, @osmosis/db): lock the run's
// row, then its workspace's, then count and hand out, as three statements of one transaction sent
// together. pickForRun (dispatch.ts) does the same in a Prisma transaction, a round trip per
// statement, and held the run's row for the whole of them: at 100 x 8 such passes sat 0.4-2.4 s
// "idle in transaction" while their worker's event loop came round, and every other pass of the
// run (and of its workspace) queued behind them (bench/dispatch-scale.ts, pg_stat_activity).
//
// The common case is a run `queued` or `running` with no budget and no waiting reason
// (RUN_NEEDS_ONLY_A_HAND_OUT; dispatch-sql.ts holds the SQL both passes share). For any
// other run the statements lock nothing past the run's row, hand out nothing, and say so
// (`common: false`); the caller then runs pickForRun, which decides everything else (the pending
// run's first pass, the budget, the waiting reason). A pass that hands out fewer attempts than it
// had room for while some of the rest fit no live worker (`short`) is followed by pickForRun too,
// which records the waiting reason exactly as before.
//
// Same locks in the same order as pickForRun (the run's row, then its workspace's), and the same
// counts, each read by a statement that starts after both locks are held: the limits hold against
// any number of concurrent passes of either kind.
//
// A busy workspace (`skipBusyWorkspace`, the results' batched top-up passes): the pass does not
// wait for a workspace row another transaction holds; it hands out nothing and says so (`busy`),
// and its caller asks again a window later. The pass holding the row hands out all the room the
// workspace has (up to its own run's limit), so nothing is lost by not queueing behind it. Waiting,
// one workspace holding 50 runs at its limit lined up every run's pass behind its row, each
// finding the one or two slots freed since the one before (~35 ms a pass: ~100 starts a second
// where ten workspaces gave 450-500), and the passes in line held their worker's pool connections,
// so its claims, results and lease renewals waited for a connection too (bench/dispatch-scale.ts
// --workspaces 1). Whether the lock was taken is carried from the locking statement to the
// counting one in a transaction-local setting (the counts must come from a statement that starts
// after the lock is held, so they cannot lock it themselves).
import { type Db, Prisma, queryInOneTrip, runInFlightCount, workspaceInFlightCount } from '@osmosis/db';
import { handOutAttempts, nextDueAt, RUN_NEEDS_ONLY_A_HAND_OUT } from './dispatch-sql.ts';
import { ACTIVE_RUN_STATUSES, type DispatchLimits, effectiveWorkspaceLimitSql } from './placement.ts';
import { FITS_SOME_WORKER } from './reservation.ts';

export interface OneTripPick {
  /** the run was the common case: the pass below is its whole pass */
  common: boolean;
  /** some of what is left fits no live worker: the caller follows with a full pass (the waiting reason) */
  short: boolean;
  /** the workspace's row was held by another transaction (skipBusyWorkspace): nothing was handed out */
  busy: boolean;
  ids: string[];
  inFlight: number;
  nextDueAt: Date | null;
  status: string | null;
}

/** The transaction-local setting that says the pass holds its workspace's row. */
const WORKSPACE_LOCKED = 'osmosis.pass_holds_workspace';

/** Null when the client cannot send one trip (a transaction client): the caller runs pickForRun. */
export async function pickInOneTrip(
  db: Db,
  runId: string,
  limits: DispatchLimits,
  options: { skipBusyWorkspace?: boolean } = {},
): Promise<OneTripPick | null> {
  const run = Prisma.sql`${runId}::uuid`;
  const holdsWorkspace = Prisma.sql`(current_setting(${WORKSPACE_LOCKED}, true) IS NOT DISTINCT FROM 'on')`;
  const rows = await queryInOneTrip<{
    status: string | null;
    common: boolean;
    busy: boolean;
    in_flight: number;
    take: number;
    ids: string[];
    unfit: boolean | null;
    next_due: Date | null;
  }>(db, [
    Prisma.sql`SELECT 1 FROM runs WHERE id = ${run} FOR NO KEY UPDATE`,
    // the setting is written only for a row the locking sub-select returned (locked, not skipped)
    Prisma.sql`SELECT set_config(${WORKSPACE_LOCKED}, 'on', true) FROM (
      SELECT 1 FROM workspaces w WHERE w.id = (
        SELECT r.workspace_id FROM runs r WHERE r.id = ${run} AND ${RUN_NEEDS_ONLY_A_HAND_OUT})
      FOR NO KEY UPDATE ${options.skipBusyWorkspace ? Prisma.sql`SKIP LOCKED` : Prisma.empty}) held`,
    Prisma.sql`
    WITH run AS (
      SELECT r.status::text AS status, r.workspace_id, r.max_concurrent_attempts, ${RUN_NEEDS_ONLY_A_HAND_OUT} AS common,
        ${runInFlightCount(Prisma.sql`r.id`)}::int AS in_flight
      FROM runs r WHERE r.id = ${run}
    ), workspace AS (
      -- the workspace's other runs counted, this one's count added: each in-flight row is read once
      -- (the rows of the run's own count were ~1/6 of a pass's blocks at 100 x 8). Only a common
      -- run's pass reads this, and a common run is active
      -- (a pass that skipped a busy workspace counts nothing: it hands out nothing)
      SELECT ${effectiveWorkspaceLimitSql(Prisma.sql`w.max_concurrent_attempts`, limits.workspaceMax)} AS lim,
        CASE WHEN ${holdsWorkspace}
          THEN ${workspaceInFlightCount(Prisma.sql`w.id`, ACTIVE_RUN_STATUSES, run)} + run.in_flight
          ELSE 0 END AS in_flight
      FROM workspaces w JOIN run ON w.id = run.workspace_id
    ), take AS (
      SELECT CASE WHEN run.common AND ${holdsWorkspace}
        THEN greatest(0, least(run.max_concurrent_attempts - run.in_flight, workspace.lim - workspace.in_flight))
        ELSE 0 END AS n
      FROM run, workspace
    ), picked AS (
      ${handOutAttempts(
        run,
        Prisma.sql`(SELECT n FROM take)`,
        Prisma.sql`(SELECT run.in_flight + workspace.in_flight FROM run, workspace)`,
      )}
    )
    SELECT run.status, run.common, (run.common AND NOT ${holdsWorkspace}) AS busy, run.in_flight,
      coalesce(take.n, 0) AS take,
      ARRAY(SELECT p.id FROM picked p ORDER BY p.index, p.created_at, p.id) AS ids,
      -- fewer handed out than there was room for: is any left because it fits no live worker?
      -- (then the full pass records the waiting reason); what is left of the backlog is small here
      (cardinality(ARRAY(SELECT id FROM picked)) < take.n AND EXISTS (
        SELECT 1 FROM attempts a JOIN tasks t ON t.id = a.task_id
        WHERE a.run_id = ${run} AND a.status = 'queued' AND a.dispatched_at IS NULL
          AND NOT ${FITS_SOME_WORKER})) AS unfit,
      ${nextDueAt(run)} AS next_due
    FROM run LEFT JOIN workspace ON TRUE LEFT JOIN take ON TRUE`,
  ]);
  if (rows === null) return null;
  const row = rows[0];
  if (!row)
    return { common: false, short: false, busy: false, ids: [], inFlight: 0, nextDueAt: null, status: null };
  const ids = row.ids;
  return {
    common: row.common,
    short: row.common && row.unfit === true,
    busy: row.busy,
    ids,
    inFlight: row.in_flight + ids.length,
    nextDueAt: row.next_due,
    status: row.status,
  };
}
