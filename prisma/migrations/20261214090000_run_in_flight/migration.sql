-- A run's attempts in flight (running, or queued and handed out: what max_concurrent_attempts and
-- the workspace limit count) kept as they change, not counted row by row at every read (dispatch
-- at scale, issue 18). Every dispatcher pass counted its run's and its workspace's other runs'
-- in-flight attempts through attempts_in_flight_idx and the heap: at 100 workers x 8 slots about
-- 800 of a pass's ~940 shared blocks, 20-35 ms a pass, and the largest part of Postgres's time
-- past the results themselves (bench/dispatch-scale.ts, auto_explain and pg_stat_statements).
--
-- A row trigger adds +1 or -1 when an attempt enters or leaves flight (its WHEN clause lets every
-- other update by without a call: a lease renewal, a claim, which stays in flight). The sum of a
-- run's rows is its count. Rows are sharded by the writing connection (pg_backend_pid() % 16), so
-- a transaction that holds its row until commit (a result written in several statements) makes
-- only writers on connections of the same shard wait, never every result of the run.

CREATE TABLE "run_in_flight" (
  "run_id" UUID NOT NULL,
  "shard" SMALLINT NOT NULL,
  "n" INTEGER NOT NULL,
  CONSTRAINT "run_in_flight_pkey" PRIMARY KEY ("run_id", "shard")
);

ALTER TABLE "run_in_flight" ADD CONSTRAINT "run_in_flight_run_id_fkey" FOREIGN KEY ("run_id")
  REFERENCES "runs"("id") ON DELETE CASCADE ON UPDATE CASCADE;

CREATE FUNCTION "run_in_flight_change"() RETURNS trigger AS $$
BEGIN
  IF TG_OP <> 'INSERT' AND (OLD.status = 'running' OR (OLD.status = 'queued' AND OLD.dispatched_at IS NOT NULL))
    -- an attempt deleted with its run (a cascade): the run's counts went with it
    AND (TG_OP = 'UPDATE' OR EXISTS (SELECT 1 FROM "runs" r WHERE r.id = OLD.run_id)) THEN
    INSERT INTO "run_in_flight" AS c (run_id, shard, n) VALUES (OLD.run_id, (pg_backend_pid() % 16)::smallint, -1)
    ON CONFLICT (run_id, shard) DO UPDATE SET n = c.n - 1;
  END IF;
  IF TG_OP <> 'DELETE' AND (NEW.status = 'running' OR (NEW.status = 'queued' AND NEW.dispatched_at IS NOT NULL)) THEN
    INSERT INTO "run_in_flight" AS c (run_id, shard, n) VALUES (NEW.run_id, (pg_backend_pid() % 16)::smallint, 1)
    ON CONFLICT (run_id, shard) DO UPDATE SET n = c.n + 1;
  END IF;
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;

-- CREATE TRIGGER locks attempts against writes until this migration commits, so the counts
-- below and the triggers see the same rows.
CREATE TRIGGER "attempts_in_flight_insert" AFTER INSERT ON "attempts" FOR EACH ROW
  WHEN (NEW.status = 'running' OR (NEW.status = 'queued' AND NEW.dispatched_at IS NOT NULL))
  EXECUTE FUNCTION "run_in_flight_change"();
CREATE TRIGGER "attempts_in_flight_update" AFTER UPDATE ON "attempts" FOR EACH ROW
  WHEN ((OLD.status = 'running' OR (OLD.status = 'queued' AND OLD.dispatched_at IS NOT NULL))
      IS DISTINCT FROM (NEW.status = 'running' OR (NEW.status = 'queued' AND NEW.dispatched_at IS NOT NULL))
    OR (OLD.run_id IS DISTINCT FROM NEW.run_id
      AND (OLD.status = 'running' OR (OLD.status = 'queued' AND OLD.dispatched_at IS NOT NULL)
        OR NEW.status = 'running' OR (NEW.status = 'queued' AND NEW.dispatched_at IS NOT NULL))))
  EXECUTE FUNCTION "run_in_flight_change"();
CREATE TRIGGER "attempts_in_flight_delete" AFTER DELETE ON "attempts" FOR EACH ROW
  WHEN (OLD.status = 'running' OR (OLD.status = 'queued' AND OLD.dispatched_at IS NOT NULL))
  EXECUTE FUNCTION "run_in_flight_change"();

-- The attempts already in flight.
LOCK TABLE "attempts" IN SHARE ROW EXCLUSIVE MODE;
INSERT INTO "run_in_flight" (run_id, shard, n)
SELECT run_id, 0, count(*) FROM "attempts"
WHERE status = 'running' OR (status = 'queued' AND dispatched_at IS NOT NULL)
GROUP BY run_id;
