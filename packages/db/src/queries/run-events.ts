// A run's lifecycle events as read by logs.txt, the events pages and the live stream.
import type { Db } from '../client.ts';
import { Prisma } from '../generated/prisma/client.ts';

export interface EventRow {
  id: bigint;
  timestamp: Date;
  level: string;
  step: string;
  message: string;
  details: unknown;
  attempt_id: string | null;
}

/** Events of a run after id `afterId` (oldest first); `asOf`: only those stamped up to then. */
export async function eventsAfter(
  db: Db,
  runId: string,
  afterId: bigint,
  limit: number,
  asOf: Date | null = null,
): Promise<EventRow[]> {
  const upper = asOf === null ? Prisma.empty : Prisma.sql`AND timestamp <= ${asOf}`;
  return db.$queryRaw<EventRow[]>`
    SELECT id, timestamp, level, step, message, details, attempt_id::text AS attempt_id
    FROM run_events
    WHERE run_id = ${runId}::uuid AND id > ${afterId} ${upper}
    ORDER BY id
    LIMIT ${limit}`;
}

/** The id of a run's newest event (0 when none). */
export async function lastEventId(db: Db, runId: string): Promise<bigint> {
  const rows = await db.$queryRaw<{ id: bigint | null }[]>`
    SELECT max(id) AS id FROM run_events WHERE run_id = ${runId}::uuid`;
  return rows[0]?.id ?? 0n;
}
