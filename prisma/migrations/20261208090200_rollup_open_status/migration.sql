-- A start changes no roll-up row (dispatch at scale, issue 18). The roll-ups counted queued and
-- running attempts apart, so every start (queued -> running) and every hand-back moved an
-- agent_outcome_totals count from one row to another inside the start's transaction: most of the
-- Postgres time of a start (bench/dispatch-scale.ts). Both are now one status, 'open'; the
-- readers split it with the running attempts counted from attempts_in_flight_idx (at most the
-- runs' max_concurrent_attempts rows): packages/db/src/queries/open-attempts.ts.

CREATE FUNCTION "attempts_rollup_status"(status "AttemptStatus") RETURNS TEXT AS $$
  SELECT CASE WHEN status IN ('queued', 'running') THEN 'open' ELSE status::text END
$$ LANGUAGE sql IMMUTABLE;

CREATE OR REPLACE FUNCTION "attempts_rollup_row_of"(sign INT, a "attempts") RETURNS "attempts_rollup_row" AS $$
  SELECT ROW(sign, a.agent_id, a.run_id, a.task_id, coalesce(a.outcome::text, ''), "attempts_rollup_status"(a.status), a.cost_usd,
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

CREATE OR REPLACE FUNCTION "attempts_rollup"() RETURNS trigger AS $$
DECLARE
  delta "attempts_rollup_row"[];
BEGIN
  IF TG_OP = 'INSERT' THEN
    delta := ARRAY(SELECT "attempts_rollup_row_of"(1, a) FROM new_rows a);
  ELSIF TG_OP = 'UPDATE' THEN
    -- only rows whose counted columns changed (a lease renewal and a start change none)
    delta := ARRAY(
      SELECT r FROM old_rows o JOIN new_rows n ON n.id = o.id,
        LATERAL (VALUES ("attempts_rollup_row_of"(-1, o)), ("attempts_rollup_row_of"(1, n))) v(r)
      WHERE (o.agent_id, o.run_id, o.task_id, o.outcome, "attempts_rollup_status"(o.status), o.cost_usd,
          o.judge_cost_usd, o.env_ms, o.agent_setup_ms, o.agent_ms, o.verifier_ms, o.input_tokens, o.output_tokens,
          o.cache_tokens)
        IS DISTINCT FROM (n.agent_id, n.run_id, n.task_id, n.outcome, "attempts_rollup_status"(n.status), n.cost_usd,
          n.judge_cost_usd, n.env_ms,
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

-- the queued and running rows kept so far, folded into 'open'
INSERT INTO "agent_outcome_totals" AS t (agent_id, run_id, outcome, status, n, cost_usd, cost_n, judge_cost_usd,
    judge_cost_n, time_ms, time_n, tokens, tokens_n, input_tokens, output_tokens, cache_tokens, shard)
SELECT agent_id, run_id, outcome, 'open', sum(n)::int, sum(cost_usd), sum(cost_n)::int, sum(judge_cost_usd),
  sum(judge_cost_n)::int, sum(time_ms), sum(time_n)::int, sum(tokens), sum(tokens_n)::int, sum(input_tokens),
  sum(output_tokens), sum(cache_tokens), shard
FROM "agent_outcome_totals" WHERE status IN ('queued', 'running')
GROUP BY agent_id, run_id, outcome, shard
ON CONFLICT (agent_id, outcome, status, shard) DO UPDATE SET
  n = t.n + excluded.n, cost_usd = t.cost_usd + excluded.cost_usd, cost_n = t.cost_n + excluded.cost_n,
  judge_cost_usd = t.judge_cost_usd + excluded.judge_cost_usd, judge_cost_n = t.judge_cost_n + excluded.judge_cost_n,
  time_ms = t.time_ms + excluded.time_ms, time_n = t.time_n + excluded.time_n,
  tokens = t.tokens + excluded.tokens, tokens_n = t.tokens_n + excluded.tokens_n,
  input_tokens = t.input_tokens + excluded.input_tokens, output_tokens = t.output_tokens + excluded.output_tokens,
  cache_tokens = t.cache_tokens + excluded.cache_tokens;

DELETE FROM "agent_outcome_totals" WHERE status IN ('queued', 'running');
