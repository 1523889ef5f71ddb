-- Roll-ups of attempts so the results views read a few rows per agent instead of every attempt
-- (issue 17: 300,000 attempts). Kept by one statement-level trigger on attempts that applies the
-- difference between the transition tables' old and new rows, so a bulk insert, a bulk update
-- (stop, retry) or a cascaded delete costs one pass over the rows it touched. Sums are DECIMAL:
-- adding and subtracting never drifts. The download snapshots of a running run (as of a past
-- time) still read the attempts themselves.

-- CreateTable
CREATE TABLE "agent_outcome_totals" (
    "agent_id" UUID NOT NULL,
    "run_id" UUID NOT NULL,
    "outcome" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "n" INTEGER NOT NULL,
    "cost_usd" DECIMAL(65,30) NOT NULL,
    "cost_n" INTEGER NOT NULL,
    "judge_cost_usd" DECIMAL(65,30) NOT NULL,
    "judge_cost_n" INTEGER NOT NULL,
    "time_ms" DECIMAL(65,30) NOT NULL,
    "time_n" INTEGER NOT NULL,
    "tokens" DECIMAL(65,30) NOT NULL,
    "tokens_n" INTEGER NOT NULL,
    "input_tokens" DECIMAL(65,30) NOT NULL,
    "output_tokens" DECIMAL(65,30) NOT NULL,
    "cache_tokens" DECIMAL(65,30) NOT NULL,

    CONSTRAINT "agent_outcome_totals_pkey" PRIMARY KEY ("agent_id","outcome","status")
);

-- CreateTable
CREATE TABLE "agent_task_tallies" (
    "agent_id" UUID NOT NULL,
    "task_id" UUID NOT NULL,
    "run_id" UUID NOT NULL,
    "scored" INTEGER NOT NULL,
    "passed" INTEGER NOT NULL,

    CONSTRAINT "agent_task_tallies_pkey" PRIMARY KEY ("agent_id","task_id")
);

-- CreateTable
CREATE TABLE "agent_task_buckets" (
    "agent_id" UUID NOT NULL,
    "run_id" UUID NOT NULL,
    "scored" INTEGER NOT NULL,
    "passed" INTEGER NOT NULL,
    "tasks" INTEGER NOT NULL,

    CONSTRAINT "agent_task_buckets_pkey" PRIMARY KEY ("agent_id","scored","passed")
);

-- CreateIndex
CREATE INDEX "agent_outcome_totals_run_id_idx" ON "agent_outcome_totals"("run_id");

-- CreateIndex
CREATE INDEX "agent_task_buckets_run_id_idx" ON "agent_task_buckets"("run_id");

-- AddForeignKey
ALTER TABLE "agent_outcome_totals" ADD CONSTRAINT "agent_outcome_totals_agent_id_fkey" FOREIGN KEY ("agent_id") REFERENCES "run_agents"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "agent_task_tallies" ADD CONSTRAINT "agent_task_tallies_agent_id_fkey" FOREIGN KEY ("agent_id") REFERENCES "run_agents"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "agent_task_buckets" ADD CONSTRAINT "agent_task_buckets_agent_id_fkey" FOREIGN KEY ("agent_id") REFERENCES "run_agents"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- One attempt row as the roll-ups count it, with a sign: +1 as it is now, -1 as it was.
CREATE TYPE "attempts_rollup_row" AS (
  sign INT, agent_id UUID, run_id UUID, task_id UUID, outcome TEXT, status TEXT, cost_usd FLOAT8,
  judge_cost_usd FLOAT8, time_ms NUMERIC, tokens NUMERIC, input_tokens NUMERIC, output_tokens NUMERIC,
  cache_tokens NUMERIC, scored INT, passed INT
);

CREATE FUNCTION "attempts_rollup_row_of"(sign INT, a "attempts") RETURNS "attempts_rollup_row" AS $$
  SELECT ROW(sign, a.agent_id, a.run_id, a.task_id, coalesce(a.outcome::text, ''), a.status::text, a.cost_usd,
    a.judge_cost_usd,
    -- time and tokens of an attempt: the sum of the known parts, unknown when none is known
    CASE WHEN num_nonnulls(a.env_ms, a.agent_setup_ms, a.agent_ms, a.verifier_ms) = 0 THEN NULL
      ELSE coalesce(a.env_ms, 0)::numeric + coalesce(a.agent_setup_ms, 0) + coalesce(a.agent_ms, 0) + coalesce(a.verifier_ms, 0) END,
    CASE WHEN num_nonnulls(a.input_tokens, a.output_tokens) = 0 THEN NULL
      ELSE coalesce(a.input_tokens, 0)::numeric + coalesce(a.output_tokens, 0) END,
    a.input_tokens, a.output_tokens, a.cache_tokens,
    (coalesce(a.outcome::text, '') IN ('passed', 'failed', 'errored'))::int, (coalesce(a.outcome::text, '') = 'passed')::int
  )::"attempts_rollup_row"
$$ LANGUAGE sql IMMUTABLE;

-- Signed rows summed per (agent, outcome, status), in the columns of agent_outcome_totals.
CREATE FUNCTION "attempts_rollup_totals"(delta "attempts_rollup_row"[]) RETURNS SETOF "agent_outcome_totals" AS $$
  SELECT agent_id, run_id, outcome, status, sum(sign)::int,
    coalesce(sum(sign * cost_usd::numeric), 0), sum(sign * (cost_usd IS NOT NULL)::int)::int,
    coalesce(sum(sign * judge_cost_usd::numeric), 0), sum(sign * (judge_cost_usd IS NOT NULL)::int)::int,
    coalesce(sum(sign * time_ms), 0), sum(sign * (time_ms IS NOT NULL)::int)::int,
    coalesce(sum(sign * tokens), 0), sum(sign * (tokens IS NOT NULL)::int)::int,
    coalesce(sum(sign * input_tokens), 0), coalesce(sum(sign * output_tokens), 0), coalesce(sum(sign * cache_tokens), 0)
  FROM unnest(delta) GROUP BY agent_id, run_id, outcome, status
$$ LANGUAGE sql IMMUTABLE;

-- Signed rows summed per (agent, task): the change of its scored and passed attempts.
CREATE FUNCTION "attempts_rollup_tallies"(delta "attempts_rollup_row"[]) RETURNS SETOF "agent_task_tallies" AS $$
  SELECT agent_id, task_id, run_id, sum(sign * scored)::int, sum(sign * passed)::int
  FROM unnest(delta) GROUP BY agent_id, task_id, run_id
  HAVING sum(sign * scored) <> 0 OR sum(sign * passed) <> 0
$$ LANGUAGE sql IMMUTABLE;

-- Applies signed rows to the roll-ups. `upsert` false (a delete): only existing roll-up rows
-- change, so a cascaded delete of a run (its agents' roll-ups already gone) inserts nothing.
CREATE FUNCTION "attempts_rollup_apply"(delta "attempts_rollup_row"[], upsert BOOLEAN) RETURNS void AS $$
DECLARE
  -- each changed task leaves its bucket (tasks -1) and joins its new one (tasks +1)
  moves "agent_task_buckets"[];
BEGIN
  IF upsert THEN
    INSERT INTO "agent_outcome_totals" AS t
    SELECT * FROM "attempts_rollup_totals"(delta) ORDER BY agent_id, outcome, status
    ON CONFLICT (agent_id, outcome, status) DO UPDATE SET
      n = t.n + excluded.n, cost_usd = t.cost_usd + excluded.cost_usd, cost_n = t.cost_n + excluded.cost_n,
      judge_cost_usd = t.judge_cost_usd + excluded.judge_cost_usd, judge_cost_n = t.judge_cost_n + excluded.judge_cost_n,
      time_ms = t.time_ms + excluded.time_ms, time_n = t.time_n + excluded.time_n,
      tokens = t.tokens + excluded.tokens, tokens_n = t.tokens_n + excluded.tokens_n,
      input_tokens = t.input_tokens + excluded.input_tokens, output_tokens = t.output_tokens + excluded.output_tokens,
      cache_tokens = t.cache_tokens + excluded.cache_tokens;
    WITH d AS (SELECT * FROM "attempts_rollup_tallies"(delta)),
    c AS (
      INSERT INTO "agent_task_tallies" AS t SELECT * FROM d ORDER BY agent_id, task_id
      ON CONFLICT (agent_id, task_id) DO UPDATE SET scored = t.scored + excluded.scored, passed = t.passed + excluded.passed
      RETURNING t.*
    )
    SELECT array_agg(m) INTO moves FROM c JOIN d ON d.agent_id = c.agent_id AND d.task_id = c.task_id,
      LATERAL (VALUES (ROW(c.agent_id, c.run_id, c.scored - d.scored, c.passed - d.passed, -1)::"agent_task_buckets"),
        (ROW(c.agent_id, c.run_id, c.scored, c.passed, 1)::"agent_task_buckets")) v(m);
  ELSE
    UPDATE "agent_outcome_totals" AS t SET
      n = t.n + d.n, cost_usd = t.cost_usd + d.cost_usd, cost_n = t.cost_n + d.cost_n,
      judge_cost_usd = t.judge_cost_usd + d.judge_cost_usd, judge_cost_n = t.judge_cost_n + d.judge_cost_n,
      time_ms = t.time_ms + d.time_ms, time_n = t.time_n + d.time_n, tokens = t.tokens + d.tokens,
      tokens_n = t.tokens_n + d.tokens_n, input_tokens = t.input_tokens + d.input_tokens,
      output_tokens = t.output_tokens + d.output_tokens, cache_tokens = t.cache_tokens + d.cache_tokens
    FROM "attempts_rollup_totals"(delta) d
    WHERE t.agent_id = d.agent_id AND t.outcome = d.outcome AND t.status = d.status;
    WITH d AS (SELECT * FROM "attempts_rollup_tallies"(delta)),
    c AS (
      UPDATE "agent_task_tallies" AS t SET scored = t.scored + d.scored, passed = t.passed + d.passed
      FROM d WHERE t.agent_id = d.agent_id AND t.task_id = d.task_id
      RETURNING t.*
    )
    SELECT array_agg(m) INTO moves FROM c JOIN d ON d.agent_id = c.agent_id AND d.task_id = c.task_id,
      LATERAL (VALUES (ROW(c.agent_id, c.run_id, c.scored - d.scored, c.passed - d.passed, -1)::"agent_task_buckets"),
        (ROW(c.agent_id, c.run_id, c.scored, c.passed, 1)::"agent_task_buckets")) v(m);
  END IF;
  INSERT INTO "agent_task_buckets" AS t
  SELECT agent_id, run_id, scored, passed, sum(tasks)::int FROM unnest(moves)
  WHERE scored > 0 GROUP BY agent_id, run_id, scored, passed HAVING sum(tasks) <> 0
  ORDER BY agent_id, scored, passed
  ON CONFLICT (agent_id, scored, passed) DO UPDATE SET tasks = t.tasks + excluded.tasks;
END;
$$ LANGUAGE plpgsql;

CREATE FUNCTION "attempts_rollup"() RETURNS trigger AS $$
DECLARE
  delta "attempts_rollup_row"[];
BEGIN
  IF TG_OP = 'INSERT' THEN
    delta := ARRAY(SELECT "attempts_rollup_row_of"(1, a) FROM new_rows a);
  ELSIF TG_OP = 'UPDATE' THEN
    -- only rows whose counted columns changed (a lease renewal changes none)
    delta := ARRAY(
      SELECT r FROM old_rows o JOIN new_rows n ON n.id = o.id,
        LATERAL (VALUES ("attempts_rollup_row_of"(-1, o)), ("attempts_rollup_row_of"(1, n))) v(r)
      WHERE (o.agent_id, o.run_id, o.task_id, o.outcome, o.status, o.cost_usd, o.judge_cost_usd, o.env_ms,
          o.agent_setup_ms, o.agent_ms, o.verifier_ms, o.input_tokens, o.output_tokens, o.cache_tokens)
        IS DISTINCT FROM (n.agent_id, n.run_id, n.task_id, n.outcome, n.status, n.cost_usd, n.judge_cost_usd, n.env_ms,
          n.agent_setup_ms, n.agent_ms, n.verifier_ms, n.input_tokens, n.output_tokens, n.cache_tokens));
  ELSE
    delta := ARRAY(SELECT "attempts_rollup_row_of"(-1, a) FROM old_rows a);
  END IF;
  IF cardinality(delta) > 0 THEN
    PERFORM "attempts_rollup_apply"(delta, TG_OP <> 'DELETE');
  END IF;
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER "attempts_rollup_insert" AFTER INSERT ON "attempts"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "attempts_rollup"();
CREATE TRIGGER "attempts_rollup_update" AFTER UPDATE ON "attempts"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "attempts_rollup"();
CREATE TRIGGER "attempts_rollup_delete" AFTER DELETE ON "attempts"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION "attempts_rollup"();

-- The roll-ups of the attempts already there.
SELECT "attempts_rollup_apply"(ARRAY(SELECT "attempts_rollup_row_of"(1, a) FROM "attempts" a), TRUE);
