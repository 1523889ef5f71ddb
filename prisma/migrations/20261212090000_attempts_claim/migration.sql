-- Workers claim handed-out attempts from Postgres instead of taking a BullMQ job each (dispatch at
-- scale, issue 18; apps/worker/src/attempts/claim.ts). The dispatcher still decides what is handed
-- out (the run's and the workspace's limits); it now writes the attempt's place in line,
-- in_line_at: its hand-out time plus 100 ms for each slot of its number (the run's attempts in
-- flight plus its workspace's, plus 2 for each attempt of the pass up to this one: the number the
-- BullMQ job's priority was; LINE_MS_PER_SLOT in apps/worker/src/attempts/dispatch-sql.ts). So a run or a workspace with little in flight goes first, and an
-- attempt handed out long ago is not passed for ever by newer ones with smaller numbers: a plain
-- priority let a run's first batch, numbered behind its workspace's other runs, wait while those
-- runs' refills kept coming in ahead of it (bench/dispatch-scale.ts: workspaces' shares 3-3.6x
-- apart). A worker with a free slot takes the first attempt in line that fits what it has free,
-- FOR UPDATE SKIP LOCKED, through this partial index: an attempt has an entry from its hand-out
-- until it starts, so the index holds only the attempts waiting for a worker. An attempt handed
-- out before this migration has no place yet: it goes first (NULLS FIRST).

-- AlterTable (no default: instant, no rewrite)
ALTER TABLE "attempts" ADD COLUMN "in_line_at" TIMESTAMP(3);

-- CreateIndex
CREATE INDEX "attempts_claim_idx" ON "attempts"("in_line_at" NULLS FIRST) WHERE status = 'queued' AND dispatched_at IS NOT NULL;
