// A page of a run's lifecycle events (`runs logs`): keyset pages by id, the newest page first,
// oldest first within a page; `next_cursor` pages further back.
import type { RunEventsQuery } from '@osmosis/contracts';
import { type Db, type Prisma, runEventCount } from '@osmosis/db';
import { attemptFieldsOfEvents } from './event-attempts.ts';
import { iso } from './serialize.ts';

export async function runEventsPage(db: Db, runId: string, query: RunEventsQuery) {
  const { limit, cursor } = query;
  const where: Prisma.RunEventWhereInput = { runId };
  if (cursor) where.id = { lt: BigInt(cursor) };
  const [total, rows] = await Promise.all([
    runEventCount(db, runId),
    db.runEvent.findMany({ where, orderBy: { id: 'desc' }, take: limit + 1 }),
  ]);
  const hasMore = rows.length > limit;
  const pageRows = rows.slice(0, limit).reverse();
  const attemptFields = await attemptFieldsOfEvents(db, runId, pageRows);
  return {
    items: pageRows.map((e) => ({
      id: e.id.toString(),
      timestamp: iso(e.timestamp),
      level: e.level,
      step: e.step,
      message: e.message,
      details: e.details ?? null,
      attempt_id: e.attemptId,
      ...attemptFields.get(e.id),
    })),
    total_count: total,
    has_more: hasMore,
    next_offset: null,
    next_cursor: hasMore && pageRows[0] ? pageRows[0].id.toString() : null,
  };
}
