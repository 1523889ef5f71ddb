-- The dispatcher's hot queries (issue 18, dispatch at scale), run under the run's row lock on
-- every finished attempt: without these, each scanned and sorted all of the run's attempts.
--   the pick: a run's undispatched queued attempts in hand-out order (the query orders by
--   dispatched_at first, always NULL there, so this index yields the order and LIMIT stops early);
--   the next retry wake-up: a run's attempts whose not_before is in the future.

-- CreateIndex
CREATE INDEX "attempts_dispatch_pick_idx" ON "attempts"("run_id", "status", "dispatched_at", "index", "created_at", "id");

-- CreateIndex
CREATE INDEX "attempts_run_id_not_before_idx" ON "attempts"("run_id", "not_before");
