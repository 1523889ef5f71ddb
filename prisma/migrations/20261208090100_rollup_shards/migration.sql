-- Roll-up rows in shards (dispatch at scale, issue 18). The attempts trigger updates one
-- agent_outcome_totals row per (agent, outcome, status) at every start and every result, one
-- agent_task_buckets row pair per result and one agent_harness_infos row per scored result, and
-- holds each row's lock until its transaction commits: every start and result of one agent
-- queued behind the others (33 ms a row wait at 100 simulated workers, bench/dispatch-scale.ts).
-- Each of those rows is now one of up to 16 shards, the one of the writing connection
-- (pg_backend_pid() % 16): two connections collide only when they share a shard, and readers add
-- the shards up (every reader already sums or groups these rows; the two that read rows as they
-- are now group them). A shard's row may hold a negative count (an attempt started on one
-- connection and finished on another); only the sum over the shards means anything.
-- agent_task_tallies stays one row per (agent, task): its old and new value place the task in
-- its bucket, and two results of one task at the same moment are rare.

CREATE FUNCTION "rollup_shard"() RETURNS SMALLINT AS $$
  SELECT (pg_backend_pid() % 16)::smallint
$$ LANGUAGE sql STABLE;

ALTER TABLE "agent_outcome_totals" ADD COLUMN "shard" SMALLINT NOT NULL DEFAULT 0;
ALTER TABLE "agent_outcome_totals" DROP CONSTRAINT "agent_outcome_totals_pkey",
  ADD CONSTRAINT "agent_outcome_totals_pkey" PRIMARY KEY ("agent_id", "outcome", "status", "shard");

ALTER TABLE "agent_task_buckets" ADD COLUMN "shard" SMALLINT NOT NULL DEFAULT 0;
ALTER TABLE "agent_task_buckets" DROP CONSTRAINT "agent_task_buckets_pkey",
  ADD CONSTRAINT "agent_task_buckets_pkey" PRIMARY KEY ("agent_id", "scored", "passed", "shard");

ALTER TABLE "agent_harness_infos" ADD COLUMN "shard" SMALLINT NOT NULL DEFAULT 0;
ALTER TABLE "agent_harness_infos" DROP CONSTRAINT "agent_harness_infos_pkey",
  ADD CONSTRAINT "agent_harness_infos_pkey" PRIMARY KEY ("agent_id", "info_key", "shard");

-- The totals of signed rows, as agent_outcome_totals rows (shard 0: the writer sets its own).
CREATE OR REPLACE FUNCTION "attempts_rollup_totals"(delta "attempts_rollup_row"[]) RETURNS SETOF "agent_outcome_totals" AS $$
  SELECT agent_id, run_id, outcome, status, sum(sign)::int,
    coalesce(sum(sign * cost_usd::numeric), 0), sum(sign * (cost_usd IS NOT NULL)::int)::int,
    coalesce(sum(sign * judge_cost_usd::numeric), 0), sum(sign * (judge_cost_usd IS NOT NULL)::int)::int,
    coalesce(sum(sign * time_ms), 0), sum(sign * (time_ms IS NOT NULL)::int)::int,
    coalesce(sum(sign * tokens), 0), sum(sign * (tokens IS NOT NULL)::int)::int,
    coalesce(sum(sign * input_tokens), 0), coalesce(sum(sign * output_tokens), 0), coalesce(sum(sign * cache_tokens), 0),
    0::smallint
  FROM unnest(delta) GROUP BY agent_id, run_id, outcome, status
$$ LANGUAGE sql IMMUTABLE;

-- `upsert` false (a delete): a cascaded delete of a run has removed its agents and their rows
-- already, so only deltas of agents that still exist are written.
CREATE OR REPLACE FUNCTION "attempts_rollup_apply"(delta "attempts_rollup_row"[], upsert BOOLEAN) RETURNS void AS $$
DECLARE
  -- each changed task leaves its bucket (tasks -1) and joins its new one (tasks +1)
  moves "agent_task_buckets"[];
  my_shard SMALLINT := "rollup_shard"();
BEGIN
  INSERT INTO "agent_outcome_totals" AS t (agent_id, run_id, outcome, status, n, cost_usd, cost_n,
      judge_cost_usd, judge_cost_n, time_ms, time_n, tokens, tokens_n, input_tokens, output_tokens, cache_tokens, shard)
  SELECT d.agent_id, d.run_id, d.outcome, d.status, d.n, d.cost_usd, d.cost_n, d.judge_cost_usd, d.judge_cost_n,
    d.time_ms, d.time_n, d.tokens, d.tokens_n, d.input_tokens, d.output_tokens, d.cache_tokens, my_shard
  FROM "attempts_rollup_totals"(delta) d
  WHERE upsert OR EXISTS (SELECT 1 FROM "run_agents" ra WHERE ra.id = d.agent_id)
  ORDER BY d.agent_id, d.outcome, d.status
  ON CONFLICT (agent_id, outcome, status, shard) DO UPDATE SET
    n = t.n + excluded.n, cost_usd = t.cost_usd + excluded.cost_usd, cost_n = t.cost_n + excluded.cost_n,
    judge_cost_usd = t.judge_cost_usd + excluded.judge_cost_usd, judge_cost_n = t.judge_cost_n + excluded.judge_cost_n,
    time_ms = t.time_ms + excluded.time_ms, time_n = t.time_n + excluded.time_n,
    tokens = t.tokens + excluded.tokens, tokens_n = t.tokens_n + excluded.tokens_n,
    input_tokens = t.input_tokens + excluded.input_tokens, output_tokens = t.output_tokens + excluded.output_tokens,
    cache_tokens = t.cache_tokens + excluded.cache_tokens;
  IF upsert THEN
    WITH d AS (SELECT * FROM "attempts_rollup_tallies"(delta)),
    c AS (
      INSERT INTO "agent_task_tallies" AS t SELECT * FROM d ORDER BY agent_id, task_id
      ON CONFLICT (agent_id, task_id) DO UPDATE SET scored = t.scored + excluded.scored, passed = t.passed + excluded.passed
      RETURNING t.*
    )
    SELECT array_agg(m) INTO moves FROM c JOIN d ON d.agent_id = c.agent_id AND d.task_id = c.task_id,
      LATERAL (VALUES (ROW(c.agent_id, c.run_id, c.scored - d.scored, c.passed - d.passed, -1, my_shard)::"agent_task_buckets"),
        (ROW(c.agent_id, c.run_id, c.scored, c.passed, 1, my_shard)::"agent_task_buckets")) v(m);
  ELSE
    WITH d AS (SELECT * FROM "attempts_rollup_tallies"(delta)),
    c AS (
      UPDATE "agent_task_tallies" AS t SET scored = t.scored + d.scored, passed = t.passed + d.passed
      FROM d WHERE t.agent_id = d.agent_id AND t.task_id = d.task_id
      RETURNING t.*
    )
    SELECT array_agg(m) INTO moves FROM c JOIN d ON d.agent_id = c.agent_id AND d.task_id = c.task_id,
      LATERAL (VALUES (ROW(c.agent_id, c.run_id, c.scored - d.scored, c.passed - d.passed, -1, my_shard)::"agent_task_buckets"),
        (ROW(c.agent_id, c.run_id, c.scored, c.passed, 1, my_shard)::"agent_task_buckets")) v(m);
  END IF;
  INSERT INTO "agent_task_buckets" AS t (agent_id, run_id, scored, passed, tasks, shard)
  SELECT agent_id, run_id, scored, passed, sum(tasks)::int, my_shard FROM unnest(moves)
  WHERE scored > 0 GROUP BY agent_id, run_id, scored, passed HAVING sum(tasks) <> 0
  ORDER BY agent_id, scored, passed
  ON CONFLICT (agent_id, scored, passed, shard) DO UPDATE SET tasks = t.tasks + excluded.tasks;
END;
$$ LANGUAGE plpgsql;

CREATE OR REPLACE FUNCTION "attempts_harness_infos_apply"(delta "attempts_harness_info_row"[], upsert BOOLEAN) RETURNS void AS $$
BEGIN
  INSERT INTO "agent_harness_infos" AS t (agent_id, info_key, run_id, info, n, shard)
  SELECT d.agent_id, md5(coalesce(d.info::text, '')), d.run_id, d.info, sum(d.sign)::int, "rollup_shard"()
  FROM unnest(delta) d
  WHERE upsert OR EXISTS (SELECT 1 FROM "run_agents" ra WHERE ra.id = d.agent_id)
  GROUP BY d.agent_id, d.run_id, d.info HAVING sum(d.sign) <> 0 ORDER BY 1, 2
  ON CONFLICT (agent_id, info_key, shard) DO UPDATE SET n = t.n + excluded.n;
END;
$$ LANGUAGE plpgsql;
