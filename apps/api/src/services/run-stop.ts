// Stopping a run: POST /v1/runs/:name/stop and the run page's stop form both call stopRun.
import { type RunStatusName, runStopChannel } from '@osmosis/contracts';
import { isStoppableRunStatus } from '@osmosis/core';
import { appendRunEvent, type Db } from '@osmosis/db';
import type { FastifyBaseLogger } from 'fastify';
import type { Redis } from 'ioredis';
import { ApiError } from '../errors.ts';
import type { ServiceDeps } from './deps.ts';
import { runOr404 } from './run-results.ts';

export interface StopOutcome {
  id: string;
  name: string;
  previousStatus: RunStatusName;
  cancelled: number;
  aborting: number;
}

/**
 * Stops a run in one transaction (the run row locked first, as every worker writer does):
 * queued attempts are cancelled, the run becomes `stopped`; workers see it on their next lease
 * heartbeat and abort the running attempts. 409 unless the run is pending, queued or running.
 */
export async function stopRun(db: Db, runId: string, by: string): Promise<StopOutcome> {
  return db.$transaction(async (tx) => {
    const rows = await tx.$queryRaw<{ name: string; status: RunStatusName }[]>`
      SELECT name, status::text AS status FROM runs WHERE id = ${runId}::uuid FOR NO KEY UPDATE`;
    const run = rows[0];
    if (!run) throw ApiError.notFound('run');
    if (!isStoppableRunStatus(run.status)) {
      throw ApiError.conflict(
        `run ${run.name} is ${run.status}: only pending, queued or running runs can be stopped`,
        {
          status: run.status,
        },
      );
    }
    const cancelled = await tx.$executeRaw`
      UPDATE attempts SET status = 'cancelled', outcome = 'cancelled', finished_at = now(),
        lease_owner = NULL, lease_expires_at = NULL
      WHERE run_id = ${runId}::uuid AND status = 'queued'`;
    const aborting = await tx.attempt.count({ where: { runId, status: 'running' } });
    await tx.run.update({ where: { id: runId }, data: { status: 'stopped', finishedAt: new Date() } });
    await appendRunEvent(tx, {
      runId,
      level: 'warn',
      step: 'run.stopped',
      message: `run stopped by ${by}: ${cancelled} queued attempt(s) cancelled, ${aborting} running attempt(s) aborting`,
      details: {
        by,
        cancelled_attempts: cancelled,
        aborting_attempts: aborting,
        previous_status: run.status,
      },
    });
    return { id: runId, name: run.name, previousStatus: run.status, cancelled, aborting };
  });
}

/**
 * Stops run `name` of the workspace and tells the workers at once (they abort the run's
 * sandboxes on the message, and on their next heartbeat anyway).
 */
export async function stopRunByName(
  deps: ServiceDeps & { redis: Redis; log: FastifyBaseLogger },
  workspaceId: string,
  name: string,
  by: string,
): Promise<StopOutcome> {
  const run = await runOr404(deps.db, workspaceId, name);
  const stopped = await stopRun(deps.db, run.id, by);
  await deps.redis.publish(runStopChannel(deps.config.queuePrefix), run.id).catch((error: Error) => {
    deps.log.warn({ err: error.message, run: run.id }, 'could not announce the stop');
  });
  return stopped;
}
