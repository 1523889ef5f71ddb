// GET /v1/runs/:name/stream — server-sent events of a run: its lifecycle events (`run-event`,
// with `id:` = the event id, so a reconnect with Last-Event-ID resumes), progress snapshots
// (`progress`, sent first and whenever the counts change) and, when the run is terminal, `end`
// with the final scores; then the stream closes. Postgres is polled (run_events by (run_id, id)
// and one GROUP BY for the counts), so any API instance can serve any run. A stream may stay
// open for hours: it ends when the run is deleted, and when the caller's token stops working
// (revoked, expired, member removed), checked again every STREAM_ACCESS_RECHECK_MS.
// serveRunStream is the whole stream; the run page's GET /runs/:name/stream (pages/index.ts) uses
// it too, with the session's workspace and only `progress` and `end`. The response is an
// SseConnection (sse-connection.ts); each user's streams are bounded by stream-slots.ts.
import {
  EventCursor,
  isEventId,
  type RunStatusName,
  STANDARD_ERROR_RESPONSES,
  type StreamEnd,
  type StreamProgress,
  type StreamRunEvent,
} from '@osmosis/contracts';
import { isTerminalRunStatus, runProgress } from '@osmosis/core';
import { type Db, type EventRow, eventsAfter, runOutcomeCounts } from '@osmosis/db';
import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ApiError } from '../errors.ts';
import { attemptFieldsOfEvents } from '../services/event-attempts.ts';
import { loadRunResults, runOr404 } from '../services/run-results.ts';
import { backlogCursor, currentRunStatus, runTimes } from '../services/run-stream.ts';
import { StreamLeases } from '../services/stream-leases.ts';
import { resolveApiTokenById } from '../services/tokens.ts';
import { RunNameParams } from './results.ts';
import { SseConnection, sseFrame } from './sse-connection.ts';
import { MAX_STREAMS_PER_USER, StreamSlot } from './stream-slots.ts';

export const STREAM_DEFAULT_INTERVAL_MS = 1000;
/** How often an open stream checks again that its caller may still read the run. */
export const STREAM_ACCESS_RECHECK_MS = 5_000;
const BACKLOG_DEFAULT = 20;
const PAGE = 500;
/** Polls that fail in a row before the stream closes (the client reconnects with Last-Event-ID). */
const MAX_POLL_FAILURES = 5;

export function streamEvent(e: EventRow): StreamRunEvent {
  return {
    id: e.id.toString(),
    timestamp: e.timestamp.toISOString(),
    level: e.level,
    step: e.step,
    message: e.message,
    details: e.details ?? null,
    attempt_id: e.attempt_id,
  };
}

export const StreamQuery = z.object({
  after: EventCursor.optional().describe('start after this event id (default: the last `backlog` events)'),
  backlog: z.coerce
    .number()
    .int()
    .min(0)
    .max(200)
    .optional()
    .describe('how many past events to send first when `after` is not given (0..200, default 20)'),
  interval_ms: z.coerce
    .number()
    .int()
    .min(100)
    .max(10_000)
    .optional()
    .describe('poll period, ms (100..10000)'),
});

/** Where a stream's events start: after Last-Event-ID, after `after`, or the last `backlog`. */
async function startCursor(
  db: Db,
  runId: string,
  lastHeader: string | string[] | undefined,
  query: z.infer<typeof StreamQuery>,
): Promise<bigint> {
  if (lastHeader !== undefined) {
    // a browser resends the id it was last sent; anything else is not a position in this log
    if (typeof lastHeader !== 'string' || !isEventId(lastHeader)) {
      throw ApiError.validation('Last-Event-ID is not an event id of this stream', [
        {
          path: 'headers.last-event-id',
          message:
            'an event id (digits, at most 9223372036854775807) sent as `id:` by this stream; omit it to start anew',
        },
      ]);
    }
    return BigInt(lastHeader);
  }
  if (query.after !== undefined) return BigInt(query.after);
  return backlogCursor(db, runId, query.backlog ?? BACKLOG_DEFAULT);
}

export interface RunStreamOptions {
  workspaceId: string;
  name: string;
  query: z.infer<typeof StreamQuery>;
  /** send `run-event` frames (default true); false: only `progress` and `end` */
  events?: boolean;
  /**
   * Whether the caller may still read the run (its token active, still a member): asked again
   * every STREAM_ACCESS_RECHECK_MS while the stream is open, which it may be for the hours a
   * run takes; the stream ends when it answers false.
   */
  stillAllowed?: () => Promise<boolean>;
  /** the caller's user id: counted against MAX_STREAMS_PER_USER */
  userId?: string;
}

/** The /v1 and page streams' access check: the token the stream was opened with, in `workspaceId`. */
export function tokenStillAllows(db: Db, tokenId: string, workspaceId: string): () => Promise<boolean> {
  return async () => {
    const resolved = await resolveApiTokenById(db, tokenId);
    return resolved.ok && resolved.value.workspace.id === workspaceId;
  };
}

export type ServeRunStream = (
  request: FastifyRequest,
  reply: FastifyReply,
  options: RunStreamOptions,
) => Promise<void>;

type StreamRun = Awaited<ReturnType<typeof runOr404>>;

/** One open stream: what it has sent, and when it last checked the caller's access. */
interface StreamState {
  db: Db;
  run: StreamRun;
  conn: SseConnection;
  events: boolean;
  cursor: bigint;
  lastProgress: string;
  accessCheckedAt: number;
  stillAllowed?: () => Promise<boolean>;
}

/** False (and the stream closed) once the caller lost access; checked when it is due. */
async function stillOpen(s: StreamState): Promise<boolean> {
  if (s.conn.closed) return false;
  if (s.stillAllowed && Date.now() - s.accessCheckedAt >= STREAM_ACCESS_RECHECK_MS) {
    if (!(await s.stillAllowed())) {
      s.conn.close();
      return false;
    }
    s.accessCheckedAt = Date.now();
  }
  return !s.conn.closed;
}

/** The run's events after the cursor, a page at a time; false when the stream closed meanwhile. */
async function sendEvents(s: StreamState): Promise<boolean> {
  while (s.events) {
    // a reader that does not read: nothing more is written until its socket drained (else
    // every event the run writes meanwhile would wait in this process's memory), and access
    // is checked again after the wait, which may have been long
    if (s.conn.needsDrain) {
      await s.conn.drained();
      if (!(await stillOpen(s))) return false;
    }
    const rows = await eventsAfter(s.db, s.run.id, s.cursor, PAGE);
    // the task, agent and try of attempt events, so a live warning says which attempt it is
    const attempts = await attemptFieldsOfEvents(
      s.db,
      s.run.id,
      rows.map((r) => ({ id: r.id, attemptId: r.attempt_id })),
    );
    for (const row of rows) {
      if (s.conn.closed) return false;
      s.conn.write(
        sseFrame('run-event', { ...streamEvent(row), ...attempts.get(row.id) }, row.id.toString()),
      );
      s.cursor = row.id;
    }
    if (rows.length < PAGE) break;
  }
  return true;
}

/** `end` with the final scores, then the close. */
async function sendEnd(s: StreamState, status: RunStatusName): Promise<void> {
  const { db, run } = s;
  const fresh = await runTimes(db, run.id);
  const results = await loadRunResults(db, {
    ...run,
    status,
    startedAt: fresh?.startedAt ?? run.startedAt,
    finishedAt: fresh?.finishedAt ?? run.finishedAt,
  });
  const end: StreamEnd = { run_name: run.name, status, results };
  s.conn.write(sseFrame('end', end));
  s.conn.close();
}

/** One poll: new events, the progress when it changed, and the end when the run is terminal. */
async function tick(s: StreamState): Promise<void> {
  if (!(await stillOpen(s))) return;
  // status first: events written before the run turned terminal are then all visible
  const status = await currentRunStatus(s.db, s.run.id);
  if (status === null) return s.conn.close(); // the run was deleted: nothing more will come
  if (!(await sendEvents(s))) return;
  // every watcher reads this every tick: no wait on a fold under way (the 'end' frame is exact)
  const counts = await runOutcomeCounts(s.db, s.run.id, { exact: false });
  const planned = s.run.agents.length * s.run.taskCount * s.run.attemptsPerTask;
  const progress: StreamProgress = {
    run_name: s.run.name,
    status,
    progress: runProgress(counts, planned, { running: counts.running, queued: counts.queued }),
  };
  const key = JSON.stringify(progress);
  if (key !== s.lastProgress && !s.conn.closed) {
    s.conn.write(sseFrame('progress', progress));
    s.lastProgress = key;
  }
  if (isTerminalRunStatus(status)) await sendEnd(s, status);
}

/** Polls every `intervalMs` until the stream closes. */
async function poll(s: StreamState, intervalMs: number, log: FastifyBaseLogger): Promise<void> {
  let failures = 0;
  const loop = async () => {
    try {
      await tick(s);
      failures = 0;
    } catch (error) {
      log.warn({ err: error }, 'run stream poll failed');
      // the client reconnects (with Last-Event-ID) and gets a proper error if it persists
      if (++failures >= MAX_POLL_FAILURES) s.conn.close();
    }
    s.conn.after(intervalMs, loop);
  };
  await loop();
}

/**
 * The stream of a run, for the routes of `app` (streams still open are closed before `app`
 * closes). An unknown run (or another workspace's) throws ApiError 404 before any byte is sent.
 */
export function runStreamServer(app: FastifyInstance): ServeRunStream {
  const open = new Set<SseConnection>();
  const leases = new StreamLeases(app.redis, app.config.queuePrefix, MAX_STREAMS_PER_USER);
  app.addHook('preClose', async () => {
    for (const conn of [...open]) conn.close();
  });

  return async (request, reply, { workspaceId, name, query, events = true, stillAllowed, userId }) => {
    const db = app.db;
    const run = await runOr404(db, workspaceId, name);
    const intervalMs = query.interval_ms ?? STREAM_DEFAULT_INTERVAL_MS;
    // checked even when no events are sent: a bad cursor is refused, never silently replaced
    const start = await startCursor(db, run.id, request.headers['last-event-id'], query);
    const cursor = events ? start : 0n;
    const slot = await StreamSlot.take(db, leases, userId, request.log);
    const conn = new SseConnection(request, reply, Math.max(1000, intervalMs), (closed) => {
      slot.release();
      open.delete(closed);
    });
    if (!conn.closed) open.add(conn);
    // the lease lives as long as the stream, whether or not its reader keeps up
    conn.keep(slot.renewEvery());
    const state: StreamState = {
      db,
      run,
      conn,
      events,
      cursor,
      lastProgress: '',
      accessCheckedAt: Date.now(),
      ...(stillAllowed ? { stillAllowed } : {}),
    };
    await poll(state, intervalMs, request.log);
  };
}

export const eventStreamRoutes: FastifyPluginAsyncZod = async (app) => {
  const serveRunStream = runStreamServer(app);
  app.get(
    '/runs/:name/stream',
    {
      schema: {
        tags: ['results'],
        summary: 'Follow a run (server-sent events)',
        description:
          'Server-sent events of a run: `run-event` (a lifecycle event), `progress` (counts of attempts), and `end` (final scores) once the run is terminal, then the stream closes. `after` resumes after an event id (the `Last-Event-ID` header does too).',
        params: RunNameParams,
        querystring: StreamQuery,
        response: STANDARD_ERROR_RESPONSES,
        otherResponses: {
          200: [
            'text/event-stream',
            'Frames `run-event`, `progress` and `end`; the stream closes after `end`.',
          ],
        },
      },
    },
    async (request, reply) =>
      serveRunStream(request, reply, {
        workspaceId: request.auth.workspace.id,
        name: request.params.name,
        query: request.query,
        stillAllowed: tokenStillAllows(app.db, request.auth.tokenId, request.auth.workspace.id),
        userId: request.auth.user.id,
      }),
  );
};
