-- Fewer index entries a start (dispatch at scale, issue 18). An attempt's row is updated three
-- times on its way (handed out, started, ended) and each update changes an indexed column, so none
-- is HOT: each wrote an entry into every index of attempts, 23 index entries an attempt over nine
-- indexes. Three of them served only lookups of open attempts, and held every attempt:
--
--   (lease_owner, status): a worker's running attempts (its leases, reservations, the workers
--     page), always asked with status = 'running';
--   (status, lease_expires_at): the open attempts across runs (the reconciler's orphans of ended
--     runs, the metrics' open count), always asked with status IN ('queued', 'running'); the
--     expired leases are found through attempts_in_flight_idx;
--   (run_id, agent_id, outcome): no query reads it since the results come from the roll-ups
--     (bench/dispatch-scale.ts: not one scan in a run).
--
-- They become one partial index of the open attempts: an attempt gets an entry when it is handed
-- out and when it starts, none when it ends; 16 index entries an attempt. Queries must name the
-- predicate with literals (status = 'running', status IN ('queued', 'running')), which they do.
--
-- Tried and not taken: attempts_dispatch_pick_idx partial (only queued attempts not handed out).
-- Its entries for handed-out attempts then stay at the front of each run's range until a vacuum
-- (no insertion lands there to clear them), and every probe for the next queued attempt walked
-- them: the fast result read 351 shared blocks instead of 167.

-- DropIndex
DROP INDEX "attempts_lease_owner_status_idx";

-- DropIndex
DROP INDEX "attempts_status_lease_expires_at_idx";

-- DropIndex
DROP INDEX "attempts_run_id_agent_id_outcome_idx";

-- CreateIndex
CREATE INDEX "attempts_open_idx" ON "attempts"("status", "lease_owner") WHERE status IN ('queued', 'running');
