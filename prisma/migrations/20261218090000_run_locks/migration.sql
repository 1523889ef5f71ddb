-- A run's lock as recorded at submit (contracts' RunLockRecord): its tasks and their digests, its
-- agents, judge, effective execution config and the platform's version. Image digests and harness
-- versions are added when the lock is read (run_image_pins, agent_harness_infos). Null for runs
-- submitted before locks were kept.
ALTER TABLE "runs" ADD COLUMN "lock" JSONB;
-- The run whose finished attempts this run took over (`[execution] reuse_from`).
ALTER TABLE "runs" ADD COLUMN "reused_from_run_id" UUID;
ALTER TABLE "runs" ADD CONSTRAINT "runs_reused_from_run_id_fkey" FOREIGN KEY ("reused_from_run_id") REFERENCES "runs"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- The attempt of an earlier run this attempt's result was taken over from (null: it ran here).
ALTER TABLE "attempts" ADD COLUMN "reused_from_attempt_id" UUID;
