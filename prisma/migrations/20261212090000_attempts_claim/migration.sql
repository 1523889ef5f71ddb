-- Workers claim handed-out attempts from Postgres instead of taking a BullMQ job each (dispatch at
-- scale, issue 18; apps/worker/src/attempts/claim.ts). The dispatcher still decides what is handed
-- out (the run's and the workspace's limits, the fairness); it now writes the attempt's place in
-- line, the slot it gave the BullMQ job as its priority before (the run's in-flight count plus the
-- workspace's, so a run or a workspace with little in flight goes first). A worker with a free
-- slot takes the first handed-out attempt in that order that fits what it has free, FOR UPDATE
-- SKIP LOCKED, through this partial index: an attempt has an entry from its hand-out until it
-- starts, so the index holds only the attempts waiting for a worker.

-- AlterTable (no default: instant, no rewrite)
ALTER TABLE "attempts" ADD COLUMN "dispatch_slot" INTEGER;

-- CreateIndex
CREATE INDEX "attempts_claim_idx" ON "attempts"("dispatch_slot", "dispatched_at") WHERE status = 'queued' AND dispatched_at IS NOT NULL;
