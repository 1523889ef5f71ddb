// rollup-fold: a loop in every worker process (no queue). Results log their roll-up changes
// (migration 20261210090000_rollup_log) instead of writing the roll-ups in their own statement;
// one fold a second, across all workers, moves the log into the roll-ups so the log stays a
// second's results long. The turn is a Redis key set with NX for a second: a hundred workers send
// Redis one command a second each instead of Postgres one statement each (which scanned the log's
// dead rows). Postgres's own lock still keeps folds one at a time (a fold slower than a second, or
// Redis unreachable: then every worker tries, and all but one skip). Readers fold before they
// read, so the results views never wait for this loop.
import { foldRollupsIfFree } from '@osmosis/db';
import { periodicLoop } from './periodic-loop.ts';
import type { QueueModule, WorkerContext } from './types.ts';

export const ROLLUP_FOLD_INTERVAL_MS = 1000;

/** Whether this worker folds this second: the first to set the turn's key does. */
export async function takeFoldTurn(
  ctx: Pick<WorkerContext, 'redis' | 'config'>,
  intervalMs: number,
): Promise<boolean> {
  try {
    const set = await ctx.redis.set(
      `${ctx.config.queuePrefix}:rollup-fold-turn`,
      ctx.config.workerId,
      'PX',
      intervalMs,
      'NX',
    );
    return set === 'OK';
  } catch {
    return true;
  }
}

export const rollupFoldModule: QueueModule = {
  name: 'rollup-fold',
  create(ctx) {
    let failing = false;
    return periodicLoop(
      async () => {
        try {
          if (!(await takeFoldTurn(ctx, ROLLUP_FOLD_INTERVAL_MS))) return;
          await foldRollupsIfFree(ctx.db);
          failing = false;
        } catch (error) {
          // the log waits for the next fold; nothing is lost
          if (!failing)
            ctx.logger.warn({ err: error instanceof Error ? error.message : error }, 'roll-up fold failed');
          failing = true;
        }
      },
      () => ROLLUP_FOLD_INTERVAL_MS,
    );
  },
};
