// The one way a run event is written. Callers pass the step from the contracts' vocabulary, so
// the history a run's log, stream and metrics read has one spelling per step.
import type { RunEventLevel, RunEventStep } from '@osmosis/contracts';
import { Prisma } from './generated/prisma/client.ts';

export interface NewRunEvent {
  runId: string;
  attemptId?: string | null;
  level: RunEventLevel;
  step: RunEventStep;
  message: string;
  details?: Prisma.InputJsonValue;
  timestamp?: Date;
}

/** The part of a Prisma client or transaction that writes events. */
export interface RunEventWriter {
  runEvent: { createMany(args: { data: Prisma.RunEventCreateManyInput[] }): Promise<unknown> };
}

function row(event: NewRunEvent): Prisma.RunEventCreateManyInput {
  return {
    runId: event.runId,
    attemptId: event.attemptId ?? null,
    level: event.level,
    step: event.step,
    message: event.message,
    ...(event.details !== undefined ? { details: event.details } : {}),
    ...(event.timestamp ? { timestamp: event.timestamp } : {}),
  };
}

export async function appendRunEvent(db: RunEventWriter, event: NewRunEvent): Promise<void> {
  await db.runEvent.createMany({ data: [row(event)] });
}

/** Several events in one statement (an attempt's pipeline events land together). */
export async function appendRunEvents(db: RunEventWriter, events: readonly NewRunEvent[]): Promise<void> {
  if (events.length === 0) return;
  await db.runEvent.createMany({ data: events.map(row) });
}

/**
 * The events as one INSERT, for a raw statement that writes them with the change they record (a
 * CTE); `onlyIf`: SQL that must hold for the rows to be written (the change happened).
 */
export function runEventsInsert(events: readonly NewRunEvent[], onlyIf?: Prisma.Sql): Prisma.Sql {
  const rows = events.map(row);
  return Prisma.sql`INSERT INTO run_events (run_id, attempt_id, "timestamp", level, step, message, details)
    SELECT e.run_id, e.attempt_id, coalesce(e.at, LOCALTIMESTAMP), e.level, e.step, e.message, e.details
    FROM unnest(${rows.map((r) => r.runId)}::uuid[], ${rows.map((r) => r.attemptId ?? null)}::uuid[],
      ${rows.map((r) => (r.timestamp instanceof Date ? r.timestamp.toISOString() : null))}::timestamp[],
      ${rows.map((r) => r.level)}::text[], ${rows.map((r) => r.step)}::text[], ${rows.map((r) => r.message)}::text[],
      ${rows.map((r) => (r.details === undefined ? null : JSON.stringify(r.details)))}::jsonb[])
      AS e(run_id, attempt_id, at, level, step, message, details)
    ${onlyIf ? Prisma.sql`WHERE ${onlyIf}` : Prisma.empty}`;
}
