// When a benchmark's sync counts as abandoned: the worker claims such a benchmark again, and the
// API lets a member start a sync of it. One number for both, so they never disagree.

/** A `syncing` benchmark with no progress (updated_at) for this long is abandoned. */
export const SYNC_STALE_MS = 15 * 60_000;
