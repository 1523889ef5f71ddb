-- The judge prompts a run's attempts were graded with (`kind:sha256hex`), for the run's lock: the
-- worker inserts one row per run and template when it writes a judged result (INSERT … ON
-- CONFLICT DO NOTHING), so reading them never scans the run's attempts.
CREATE TABLE "run_judge_templates" (
    "run_id" UUID NOT NULL,
    "template" TEXT NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "run_judge_templates_pkey" PRIMARY KEY ("run_id", "template")
);
ALTER TABLE "run_judge_templates" ADD CONSTRAINT "run_judge_templates_run_id_fkey" FOREIGN KEY ("run_id") REFERENCES "runs"("id") ON DELETE CASCADE ON UPDATE CASCADE;
