// The SQL both dispatcher passes share (pickForRun in dispatch.ts, pickInOneTrip in
// dispatch-one-trip.ts), written once: which runs a pass in one round trip may decide alone, the
// hand-out itself, and the earliest retry in backoff.
import { Prisma } from '@osmosis/db';
import { FITS_SOME_WORKER, NEED_CPUS, NEED_GPUS, NEED_MEMORY_MB } from './reservation.ts';

/**
 * SQL: run `r` needs no decision but the hand-out (queued or running, no budget, no waiting
 * reason). runBeforePass reads it first; the one-round-trip pass takes only these.
 */
export const RUN_NEEDS_ONLY_A_HAND_OUT = Prisma.sql`(r.status IN ('queued', 'running')
  AND r.waiting_reason IS NULL AND r.max_cost_usd IS NULL)`;

/**
 * How far back in line one slot of an attempt's number puts it (in_line_at). The number is the
 * run's attempts in flight plus its workspace's, plus 2 for each attempt of the pass up to it, so
 * a run or a workspace with little in flight goes first; as a time, not a plain priority, an
 * attempt handed out long ago is never passed for ever by newer ones with smaller numbers (a
 * workspace of 1 000 in flight is 100 s behind one with none). bench/dispatch-scale.ts at
 * 100 x 8: a plain priority let workspaces' shares drift 3-3.6x apart; 10 ms a slot held them
 * within 1.1x but put consecutive claims on one run's batch (its rows' locks) and started 280-360
 * attempts a second against 380-470; 100 ms: 1.7x, 383 a second.
 */
export const LINE_MS_PER_SLOT = 100;

/**
 * SQL: marks up to `take` of the run's due attempts that fit some live worker as handed out, in
 * dispatch order, each with its place in line for the workers' claims (in_line_at: now plus
 * LINE_MS_PER_SLOT for each slot of `slotBase` (the run's in-flight count plus its workspace's)
 * + 2 for each attempt up to it) and what it needs of a worker (need_*: the claim's walk reads
 * attempts alone); RETURNING id (text), index, created_at. dispatched_at is NULL in
 * every candidate: leading the order with it lets attempts_dispatch_pick_idx give the order, so
 * LIMIT stops after take rows instead of sorting the run's backlog.
 */
export function handOutAttempts(runId: Prisma.Sql, take: Prisma.Sql, slotBase: Prisma.Sql): Prisma.Sql {
  return Prisma.sql`UPDATE attempts u SET dispatched_at = now(),
      in_line_at = now() + make_interval(secs => p.slot * ${LINE_MS_PER_SLOT / 1000}::float8),
      need_cpus = p.cpus, need_memory_mb = p.memory_mb, need_gpus = p.gpus
    FROM (
      SELECT c.id, c.cpus, c.memory_mb, c.gpus,
        ${slotBase} + 2 * row_number() OVER (ORDER BY c.index, c.created_at, c.id) AS slot
      FROM (
        SELECT a.id, a.index, a.created_at,
          ${NEED_CPUS}::float8 AS cpus, ${NEED_MEMORY_MB} AS memory_mb, ${NEED_GPUS} AS gpus
        FROM attempts a JOIN tasks t ON t.id = a.task_id
        WHERE a.run_id = ${runId} AND a.status = 'queued' AND a.dispatched_at IS NULL
          AND (a.not_before IS NULL OR a.not_before <= now()) AND ${FITS_SOME_WORKER}
        ORDER BY a.dispatched_at, a.index, a.created_at, a.id
        LIMIT ${take}
        FOR UPDATE OF a SKIP LOCKED) c
    ) p
    WHERE u.id = p.id
    RETURNING u.id::text AS id, u.index, u.created_at`;
}

/** SQL: the earliest not_before of the run's attempts held back by retry backoff (a scalar). */
export function nextDueAt(runId: Prisma.Sql): Prisma.Sql {
  return Prisma.sql`(SELECT min(not_before) FROM attempts
    WHERE run_id = ${runId} AND status = 'queued' AND dispatched_at IS NULL
      AND not_before IS NOT NULL AND not_before > now())`;
}
