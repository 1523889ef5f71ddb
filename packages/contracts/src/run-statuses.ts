// The run statuses in which a run is still alive: it may be stopped, its attempts may start.
// One list for the API, the worker, the CLI and the pages (core's run-status.ts builds on it).
import type { RunStatusName } from './api/results.ts';

export const ACTIVE_RUN_STATUSES = [
  'pending',
  'queued',
  'running',
] as const satisfies readonly RunStatusName[];
export type ActiveRunStatus = (typeof ACTIVE_RUN_STATUSES)[number];

/** pending, queued or running (any string: statuses also arrive as text from raw SQL and the wire). */
export function isActiveRunStatus(status: string): status is ActiveRunStatus {
  return (ACTIVE_RUN_STATUSES as readonly string[]).includes(status);
}
