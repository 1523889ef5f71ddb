// The reconciler (ARCHITECTURE invariant 1): a loop in every worker process, not a repeatable job,
// so it survives Redis losing its data. Each pass:
//   - runs the dispatcher for every active run that has room or waits (re-creates lost
//     run-dispatch jobs and delayed retry wake-ups; a full run refills itself as slots free);
//   - re-enqueues attempts Postgres says are due but Redis does not hold: dispatched-but-queued
//     ones, and running ones whose lease expired (their worker died: its BullMQ job is either gone
//     or still "active" with its lock expired, which is removed first); running attempts of a
//     stopped run whose worker died are cancelled;
//   - reaps sandboxes no live lease accounts for (reaper.ts says when that is certain).
// So a dead worker's attempts are re-leased within OSMOSIS_LEASE_MS + OSMOSIS_RECONCILE_MS of its
// last heartbeat. After a database outage, expired leases and stale heartbeats are not trusted
// until the database has answered for one lease period (db-health.ts): live holders renew first.
// (The worker's own liveness row is written by the presence loop, queues/presence.ts.)
// Every step is idempotent, so any number of workers may reconcile at once.
import { attemptInFlight } from '@osmosis/db';
import { dispatchRun, enqueueAttempt, runsToDispatch } from '../attempts/dispatch.ts';
import { lockRunOfAttempt } from '../attempts/lease.ts';
import { ACTIVE_RUN_STATUSES } from '../attempts/placement.ts';
import { cancelAttemptTx, completeEndedRuns, completeRunIfDone } from '../attempts/run-completion.ts';
import { dispatchLimitsOf } from '../capacity-config.ts';
import { leaseKeeper } from '../reaper.ts';
import { periodicLoop } from './periodic-loop.ts';
import type { QueueModule, WorkerContext } from './types.ts';

export interface ReconcileReport {
  runsDispatched: number;
  requeued: number;
  cancelled: number;
  /** active runs found with every attempt ended, ended by this pass */
  completed: number;
  reaped: number;
}

export async function reconcileOnce(ctx: WorkerContext): Promise<ReconcileReport> {
  const { db, queues, logger } = ctx;
  const report: ReconcileReport = { runsDispatched: 0, requeued: 0, cancelled: 0, completed: 0, reaped: 0 };
  // expired leases and stale heartbeats mean "dead" only once the database has been back for a
  // lease period (after an outage every holder looks dead until it has renewed)
  const trustExpiry = ctx.database.settledFor(ctx.config.leaseMs);
  // liveness rows of workers gone for a day are of no use to the reaper any more
  await db.$executeRaw`DELETE FROM workers WHERE heartbeat_at < now() - interval '1 day'`;

  // Orphaned running attempts of runs that no longer accept work: cancel them.
  const deadStopped = await db.$queryRaw<{ id: string; run_id: string }[]>`
    SELECT a.id::text AS id, a.run_id::text AS run_id FROM attempts a JOIN runs r ON r.id = a.run_id
    WHERE a.status IN ('running', 'queued') AND r.status IN ('stopped', 'finished', 'failed')
      AND (a.status = 'queued' OR (${trustExpiry} AND (a.lease_expires_at IS NULL OR a.lease_expires_at <= now())))
    LIMIT 500`;
  for (const row of deadStopped) {
    await db.$transaction(async (tx) => {
      await lockRunOfAttempt(tx, row.id);
      const current = await tx.attempt.findUnique({ where: { id: row.id }, select: { status: true } });
      if (current?.status !== 'queued' && current?.status !== 'running') return;
      await cancelAttemptTx(tx, row.id, row.run_id, 'the run is no longer active');
      await completeRunIfDone(tx, row.run_id);
    });
    report.cancelled++;
  }

  report.completed = await completeEndedRuns(db);

  for (const runId of await runsToDispatch(db)) {
    await dispatchRun(db, queues, runId, logger, dispatchLimitsOf(ctx.config));
    report.runsDispatched++;
  }

  const due = await db.$queryRaw<{ id: string; run_id: string; slot: number; running: boolean }[]>`
    SELECT a.id::text AS id, a.run_id::text AS run_id, (a.status = 'running') AS running,
      row_number() OVER (PARTITION BY a.run_id ORDER BY a.index, a.id)::int AS slot
    FROM attempts a JOIN runs r ON r.id = a.run_id
    WHERE r.status::text = ANY(${ACTIVE_RUN_STATUSES}::text[])
      AND ${attemptInFlight('a')}
      AND (a.status = 'queued' OR (${trustExpiry} AND (a.lease_expires_at IS NULL OR a.lease_expires_at <= now())))`;
  // the queue's job ids in one read (not a lookup per attempt: thousands are dispatched and waiting)
  const onTheirWay = new Set(
    due.length
      ? await queues.attempt.getRanges(['waiting', 'prioritized', 'delayed', 'active', 'paused'], 0, -1)
      : [],
  );
  for (const row of due) {
    if (!row.running && onTheirWay.has(row.id)) continue;
    const before = await queues.attempt.getJob(row.id);
    let state = before ? await before.getState() : 'missing';
    if (before && state === 'active' && row.running) {
      // the holder died holding its BullMQ job: once the job's lock has expired too, nobody
      // works on it (BullMQ's own stalled check would take up to another lock period)
      const locked = await ctx.redis.exists(`${queues.attempt.toKey(row.id)}:lock`);
      if (!locked) {
        await before.remove().catch(() => undefined);
        state = 'missing';
      }
    }
    if (state === 'missing' || state === 'completed' || state === 'failed' || state === 'unknown') {
      await enqueueAttempt(queues, row.id, row.run_id, row.slot);
      report.requeued++;
    }
  }

  // not while the engine is down (nothing to ask), and an engine error is not a database one
  if (ctx.reaper && trustExpiry && ctx.engine?.available() !== false) {
    try {
      report.reaped = await ctx.reaper.reap(leaseKeeper(db, ctx.config.livenessMs));
    } catch (error) {
      logger.warn({ err: error instanceof Error ? error.message : error }, 'reaping failed');
    }
  }
  if (report.requeued || report.cancelled || report.completed || report.reaped)
    logger.info(report, 'reconciled');
  return report;
}

export const reconcilerModule: QueueModule = {
  name: 'reconciler',
  create(ctx) {
    return periodicLoop(
      () =>
        reconcileOnce(ctx)
          .then(() => ctx.database.succeeded())
          .catch((error) => {
            ctx.database.failed(error);
            ctx.logger.warn({ err: error instanceof Error ? error.message : error }, 'reconcile failed');
          }),
      () => ctx.config.reconcileMs,
    );
  },
};
