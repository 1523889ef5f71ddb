-- The run page's task grid asks, task by task, whether the run has an attempt at it (with an
-- outcome when filtered) and then reads one page of tasks' attempts (issue 17: 300,000 attempts);
-- without this index each question scanned the run's attempts.

-- CreateIndex
CREATE INDEX "attempts_run_id_task_id_outcome_idx" ON "attempts"("run_id", "task_id", "outcome");
