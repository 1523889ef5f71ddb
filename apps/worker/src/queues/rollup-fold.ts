// rollup-fold: a loop in every worker process (no queue). Results log their roll-up changes
// (migration 20261210090000_rollup_log) instead of writing the roll-ups in their own statement;
// this loop moves the log into the roll-ups once a second, so the log stays a second's results
// long. One fold runs at a time across all workers: a worker whose turn is taken skips. Readers
// fold before they read, so the results views never wait for this loop.
import { foldRollupsIfFree } from '@osmosis/db';
import { periodicLoop } from './periodic-loop.ts';
import type { QueueModule } from './types.ts';

export const ROLLUP_FOLD_INTERVAL_MS = 1000;

export const rollupFoldModule: QueueModule = {
  name: 'rollup-fold',
  create(ctx) {
    let failing = false;
    return periodicLoop(
      () =>
        foldRollupsIfFree(ctx.db)
          .then(() => {
            failing = false;
          })
          .catch((error) => {
            // the log waits for the next fold; nothing is lost
            if (!failing)
              ctx.logger.warn({ err: error instanceof Error ? error.message : error }, 'roll-up fold failed');
            failing = true;
          }),
      () => ROLLUP_FOLD_INTERVAL_MS,
    );
  },
};
