// What a run's event stream (routes/events-stream.ts, also the run page's stream) reads besides
// the shared queries of @osmosis/db (eventsAfter, runOutcomeCounts): where its backlog starts and
// the run's state between polls.
import type { RunStatusName } from '@osmosis/contracts';
import { type Db, lastEventId } from '@osmosis/db';

/** The cursor after which the last `backlog` events of the run follow (0 when it has fewer). */
export async function backlogCursor(db: Db, runId: string, backlog: number): Promise<bigint> {
  if (backlog === 0) return lastEventId(db, runId);
  const rows = await db.runEvent.findMany({
    where: { runId },
    orderBy: { id: 'desc' },
    take: backlog,
    select: { id: true },
  });
  const oldest = rows[rows.length - 1];
  return rows.length === backlog && oldest ? oldest.id - 1n : 0n;
}

/** The run's status now (null when it was deleted meanwhile). */
export async function currentRunStatus(db: Db, runId: string): Promise<RunStatusName | null> {
  const row = await db.run.findUnique({ where: { id: runId }, select: { status: true } });
  return (row?.status as RunStatusName | undefined) ?? null;
}

/** When the run started and finished, read again once it is terminal. */
export function runTimes(db: Db, runId: string) {
  return db.run.findUnique({ where: { id: runId }, select: { startedAt: true, finishedAt: true } });
}
