// A run's event count from its tallies (migrations 20261206090100_run_event_tallies and
// 20261214090100_run_event_tallies_sharded): the sum of at most 16 counter rows (one a shard of
// the writing connections) instead of a count of every event.
import type { Db } from '../client.ts';

export async function runEventCount(db: Db, runId: string): Promise<number> {
  const [row] = await db.$queryRaw<{ total: number }[]>`
    SELECT coalesce(sum(n), 0)::int AS total FROM run_event_tallies WHERE run_id = ${runId}::uuid`;
  return row?.total ?? 0;
}
