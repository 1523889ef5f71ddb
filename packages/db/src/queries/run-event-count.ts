// A run's event count from its tallies (migration 20261206090100_run_event_tallies): the sum of
// a few signed rows instead of a count of every event. Past FOLD_AT rows the reader folds them
// into one: the DELETE … RETURNING takes each row exactly once even beside another folder, and
// rows inserted meanwhile are left for the next fold, so the sum never changes.
import type { Db } from '../client.ts';

const FOLD_AT = 64;

export async function runEventCount(db: Db, runId: string): Promise<number> {
  const [row] = await db.$queryRaw<{ total: number; parts: number }[]>`
    SELECT coalesce(sum(n), 0)::int AS total, count(*)::int AS parts
    FROM run_event_tallies WHERE run_id = ${runId}::uuid`;
  if ((row?.parts ?? 0) > FOLD_AT) await foldRunEventTallies(db, runId);
  return row?.total ?? 0;
}

export async function foldRunEventTallies(db: Db, runId: string): Promise<void> {
  await db.$executeRaw`
    WITH gone AS (DELETE FROM run_event_tallies WHERE run_id = ${runId}::uuid RETURNING n)
    INSERT INTO run_event_tallies (run_id, n) SELECT ${runId}::uuid, sum(n) FROM gone HAVING count(*) > 0`;
}
