// The one way a run event is written. Callers pass the step from the contracts' vocabulary, so
// the history a run's log, stream and metrics read has one spelling per step.
import type { RunEventLevel, RunEventStep } from '@osmosis/contracts';
import type { Prisma } from './generated/prisma/client.ts';

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
