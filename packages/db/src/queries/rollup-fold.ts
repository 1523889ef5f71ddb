// The roll-ups' pending changes (migration 20261210090000_rollup_log). A statement that changes a
// few attempts (a result) logs its rows instead of writing the roll-ups, and a fold moves the log
// into them in one pass: every reader of the roll-ups folds first, so it reads every change
// committed before it, and the workers fold every second so the log stays short.
import type { Db } from '../client.ts';
import type { Prisma } from '../generated/prisma/client.ts';

type Client = Db | Prisma.TransactionClient;

/**
 * Folds every committed change into the roll-ups, waiting for a fold already under way; returns
 * how many logged rows it moved. Readers call it before they read agent_outcome_totals,
 * agent_task_tallies, agent_task_buckets or agent_harness_infos.
 */
export async function foldRollups(db: Client): Promise<number> {
  const rows = await db.$queryRaw<{ n: number }[]>`SELECT "attempts_rollup_fold"(TRUE) AS n`;
  return Number(rows[0]?.n ?? 0);
}

/**
 * The periodic fold: returns null at once while another connection folds (that fold takes these
 * rows too), else how many rows it moved.
 */
export async function foldRollupsIfFree(db: Client): Promise<number | null> {
  const rows = await db.$queryRaw<{ n: number | null }[]>`SELECT "attempts_rollup_fold"(FALSE) AS n`;
  const n = rows[0]?.n;
  return n === null || n === undefined ? null : Number(n);
}
