/**
 * A `syncing` benchmark with no progress for this long is considered abandoned: the API accepts
 * a retry of its sync and the worker's claim takes it over.
 */
export const SYNC_STALE_MS = 15 * 60_000;
