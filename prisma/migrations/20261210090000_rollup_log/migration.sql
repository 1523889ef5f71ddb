-- Roll-ups folded in batches (dispatch at scale, issue 18). Two statement triggers on attempts
-- (roll-ups, harness infos) upserted four roll-up tables inside every result's statement: about
-- eight statements of trigger work a result and two trigger calls for every other update of an
-- attempt (a start, a lease renewal), the largest part of a start's Postgres time
-- (bench/dispatch-scale.ts: 3.8 ms a start with them, 2.3 ms without).
--
-- Now one trigger reads the transition tables once. A statement whose changes come to at most 64
-- rows (a start changes no counted column; a result is two rows) appends its signed rows to
-- attempts_rollup_log; a bulk statement (a run's creation, a stop, a cascaded delete) applies its
-- rows at once, as before. attempts_rollup_fold(wait) moves the logged rows into the roll-ups in
-- one pass: one worker a second calls it (apps/worker/src/queues/rollup-fold.ts), and every
-- reader of the roll-ups calls it before it reads (packages/db/src/queries/rollup-fold.ts), so the
-- views stay exact. The roll-ups are sums,
-- and a task's bucket follows its tally whatever order the changes come in, so folding later
-- gives the same rows as applying at once.

-- Changed attempts as the roll-ups count them, waiting to be folded. No key and no index: rows are
-- only appended and deleted all together. No foreign key: rows of a deleted run are dropped at the
-- fold.
CREATE TABLE "attempts_rollup_log" (
  "sign" INT NOT NULL,
  "agent_id" UUID NOT NULL,
  "run_id" UUID NOT NULL,
  "task_id" UUID NOT NULL,
  "outcome" TEXT NOT NULL,
  "status" TEXT NOT NULL,
  "cost_usd" FLOAT8,
  "judge_cost_usd" FLOAT8,
  "time_ms" NUMERIC,
  "tokens" NUMERIC,
  "input_tokens" NUMERIC,
  "output_tokens" NUMERIC,
  "cache_tokens" NUMERIC,
  "scored" INT NOT NULL,
  "passed" INT NOT NULL,
  -- counted in agent_harness_infos: finished with an outcome that counts (queries/quality.ts)
  "info_counted" BOOLEAN NOT NULL,
  "harness_info" JSONB
);

-- One attempt as the log holds it: the roll-up row's columns and its harness info.
CREATE FUNCTION "attempts_rollup_log_row_of"(sign INT, a "attempts") RETURNS "attempts_rollup_log" AS $$
  SELECT ROW(sign, a.agent_id, a.run_id, a.task_id, coalesce(a.outcome::text, ''), "attempts_rollup_status"(a.status),
    a.cost_usd, a.judge_cost_usd,
    -- time and tokens of an attempt: the sum of the known parts, unknown when none is known
    CASE WHEN num_nonnulls(a.env_ms, a.agent_setup_ms, a.agent_ms, a.verifier_ms) = 0 THEN NULL
      ELSE coalesce(a.env_ms, 0)::numeric + coalesce(a.agent_setup_ms, 0) + coalesce(a.agent_ms, 0) + coalesce(a.verifier_ms, 0) END,
    CASE WHEN num_nonnulls(a.input_tokens, a.output_tokens) = 0 THEN NULL
      ELSE coalesce(a.input_tokens, 0)::numeric + coalesce(a.output_tokens, 0) END,
    a.input_tokens, a.output_tokens, a.cache_tokens,
    (coalesce(a.outcome::text, '') IN ('passed', 'failed', 'errored'))::int, (coalesce(a.outcome::text, '') = 'passed')::int,
    a.status = 'finished' AND coalesce(a.outcome::text, '') IN ('passed', 'failed', 'errored'),
    CASE WHEN a.status = 'finished' AND coalesce(a.outcome::text, '') IN ('passed', 'failed', 'errored') THEN a.harness_info END
  )::"attempts_rollup_log"
$$ LANGUAGE sql STABLE;

-- Applies logged rows to the four roll-ups. `upsert` false (a delete): only roll-up rows of agents
-- that still exist change, so a cascaded delete of a run inserts nothing.
CREATE FUNCTION "attempts_rollup_apply_log"(changes "attempts_rollup_log"[], upsert BOOLEAN) RETURNS void AS $$
DECLARE
  delta "attempts_rollup_row"[];
  infos "attempts_harness_info_row"[];
BEGIN
  SELECT array_agg(ROW(c.sign, c.agent_id, c.run_id, c.task_id, c.outcome, c.status, c.cost_usd, c.judge_cost_usd,
      c.time_ms, c.tokens, c.input_tokens, c.output_tokens, c.cache_tokens, c.scored, c.passed)::"attempts_rollup_row"),
    coalesce(array_agg(ROW(c.sign, c.agent_id, c.run_id, c.harness_info)::"attempts_harness_info_row")
      FILTER (WHERE c.info_counted), '{}')
  INTO delta, infos FROM unnest(changes) c;
  IF cardinality(delta) > 0 THEN
    PERFORM "attempts_rollup_apply"(delta, upsert);
  END IF;
  IF cardinality(infos) > 0 THEN
    PERFORM "attempts_harness_infos_apply"(infos, upsert);
  END IF;
END;
$$ LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan;

-- A statement whose changes come to more rows than this (an update: two an attempt) applies them
-- at once; fewer are logged.
CREATE FUNCTION "attempts_rollup_log_limit"() RETURNS INT AS $$ SELECT 64 $$ LANGUAGE sql IMMUTABLE;

CREATE FUNCTION "attempts_rollup_changes"() RETURNS trigger AS $$
DECLARE
  changes "attempts_rollup_log"[];
BEGIN
  IF TG_OP = 'INSERT' THEN
    changes := ARRAY(SELECT "attempts_rollup_log_row_of"(1, a) FROM new_rows a);
  ELSIF TG_OP = 'UPDATE' THEN
    -- only rows whose counted columns changed (a lease renewal and a start change none)
    changes := ARRAY(
      SELECT r FROM old_rows o JOIN new_rows n ON n.id = o.id,
        LATERAL (VALUES ("attempts_rollup_log_row_of"(-1, o)), ("attempts_rollup_log_row_of"(1, n))) v(r)
      WHERE (o.agent_id, o.run_id, o.task_id, o.outcome, "attempts_rollup_status"(o.status), o.cost_usd,
          o.judge_cost_usd, o.env_ms, o.agent_setup_ms, o.agent_ms, o.verifier_ms, o.input_tokens, o.output_tokens,
          o.cache_tokens, o.harness_info)
        IS DISTINCT FROM (n.agent_id, n.run_id, n.task_id, n.outcome, "attempts_rollup_status"(n.status), n.cost_usd,
          n.judge_cost_usd, n.env_ms, n.agent_setup_ms, n.agent_ms, n.verifier_ms, n.input_tokens, n.output_tokens,
          n.cache_tokens, n.harness_info));
  ELSE
    changes := ARRAY(SELECT "attempts_rollup_log_row_of"(-1, a) FROM old_rows a);
  END IF;
  IF cardinality(changes) = 0 THEN
    RETURN NULL;
  END IF;
  IF TG_OP <> 'DELETE' AND cardinality(changes) <= "attempts_rollup_log_limit"() THEN
    INSERT INTO "attempts_rollup_log" SELECT * FROM unnest(changes);
  ELSE
    PERFORM "attempts_rollup_apply_log"(changes, TG_OP <> 'DELETE');
  END IF;
  RETURN NULL;
END;
$$ LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan;

-- The shard a connection writes the roll-ups in: a fold writes shard 16, so it never waits on a
-- bulk statement's rows (shards 0-15, by connection), and folds wait on each other's lock instead.
CREATE OR REPLACE FUNCTION "rollup_shard"() RETURNS SMALLINT AS $$
  SELECT coalesce(nullif(current_setting('osmosis.rollup_shard', true), '')::smallint, (pg_backend_pid() % 16)::smallint)
$$ LANGUAGE sql STABLE;

-- Moves every logged row into the roll-ups; returns how many it moved. One fold at a time (a
-- transaction-scoped advisory lock): `wait` false returns NULL at once while another folds (the
-- workers' periodic fold), true waits for it (a reader, which must see every committed change).
-- Rows of agents deleted since are dropped. A run deleted while its rows are folded fails the
-- roll-up's foreign key: the fold is then undone and tried again, when the deleted agents' rows no
-- longer pass the filter. A deadlock with a bulk statement's tally rows is tried again too.
CREATE FUNCTION "attempts_rollup_fold"(wait BOOLEAN) RETURNS INT AS $$
DECLARE
  changes "attempts_rollup_log"[];
  tries INT := 0;
BEGIN
  -- nothing committed to fold: no lock (an uncommitted fold's rows still show as there)
  IF NOT EXISTS (SELECT 1 FROM "attempts_rollup_log") THEN
    RETURN 0;
  END IF;
  IF wait THEN
    PERFORM pg_advisory_xact_lock(hashtextextended('osmosis.attempts_rollup_fold', 0));
  ELSIF NOT pg_try_advisory_xact_lock(hashtextextended('osmosis.attempts_rollup_fold', 0)) THEN
    RETURN NULL;
  END IF;
  LOOP
    BEGIN
      WITH gone AS (DELETE FROM "attempts_rollup_log" l RETURNING l AS r)
      SELECT coalesce(array_agg(g.r) FILTER (
          WHERE EXISTS (SELECT 1 FROM "run_agents" ra WHERE ra.id = (g.r).agent_id)), '{}')
      INTO changes FROM gone g;
      IF cardinality(changes) > 0 THEN
        PERFORM set_config('osmosis.rollup_shard', '16', true);
        PERFORM "attempts_rollup_apply_log"(changes, TRUE);
        PERFORM set_config('osmosis.rollup_shard', '', true);
      END IF;
      RETURN cardinality(changes);
    EXCEPTION WHEN foreign_key_violation OR deadlock_detected THEN
      tries := tries + 1;
      IF tries >= 3 THEN
        RAISE;
      END IF;
    END;
  END LOOP;
END;
$$ LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan;

DROP TRIGGER "attempts_rollup_insert" ON "attempts";
DROP TRIGGER "attempts_rollup_update" ON "attempts";
DROP TRIGGER "attempts_rollup_delete" ON "attempts";
DROP TRIGGER "attempts_harness_infos_insert" ON "attempts";
DROP TRIGGER "attempts_harness_infos_update" ON "attempts";
DROP TRIGGER "attempts_harness_infos_delete" ON "attempts";
DROP FUNCTION "attempts_rollup"();
DROP FUNCTION "attempts_harness_infos"();
-- replaced by attempts_rollup_log_row_of
DROP FUNCTION "attempts_rollup_row_of"(INT, "attempts");

CREATE TRIGGER "attempts_rollup_insert" AFTER INSERT ON "attempts"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "attempts_rollup_changes"();
CREATE TRIGGER "attempts_rollup_update" AFTER UPDATE ON "attempts"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "attempts_rollup_changes"();
CREATE TRIGGER "attempts_rollup_delete" AFTER DELETE ON "attempts"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION "attempts_rollup_changes"();
