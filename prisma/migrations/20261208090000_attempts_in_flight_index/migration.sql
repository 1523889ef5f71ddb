-- Counting attempts in flight (dispatch at scale, issue 18). Every dispatcher pass counts a run's
-- attempts in flight (running, or queued and handed out) and its workspace's; with only
-- (run_id, status) indexes the planner read each run's whole queued backlog to find the few
-- handed-out rows (120 ms a workspace at 200,000 queued attempts, measured by
-- bench/dispatch-scale.ts). These partial indexes hold only the rows each count needs:
--   in flight: at most the sum of the active runs' max_concurrent_attempts;
--   in retry backoff: the dispatcher's next wake-up.
-- The (run_id, status) and (run_id, status, dispatched_at) indexes are prefixes of
-- attempts_dispatch_pick_idx and go: each index is written on every status change.

-- CreateIndex
CREATE INDEX "attempts_in_flight_idx" ON "attempts"("run_id")
  WHERE status = 'running' OR (status = 'queued' AND dispatched_at IS NOT NULL);

-- CreateIndex
CREATE INDEX "attempts_backoff_idx" ON "attempts"("run_id", "not_before")
  WHERE status = 'queued' AND dispatched_at IS NULL AND not_before IS NOT NULL;

-- DropIndex
DROP INDEX "attempts_run_id_not_before_idx";

-- DropIndex
DROP INDEX "attempts_run_id_status_idx";

-- DropIndex
DROP INDEX "attempts_run_id_status_dispatched_at_idx";
