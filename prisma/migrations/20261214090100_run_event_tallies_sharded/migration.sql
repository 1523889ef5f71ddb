-- A run's event tallies as counters updated in place, sharded by the writing connection, instead
-- of a row appended for every statement that inserts events (dispatch at scale, issue 18). The
-- append was a heap row, two index entries, a sequence value and a foreign-key check on the run
-- (a lock on its row) for every result: at 100 workers x 8 slots ~0.26 ms a result, the costliest
-- statement inside a result's (pg_stat_statements, bench/dispatch-scale.ts), and the rows piled up
-- until a reader folded them. An update of a (run, shard) row touches no index (a HOT update) and
-- checks no key. Sharded by pg_backend_pid() % 16 as run_in_flight is: a transaction holds its row
-- until it commits, and only writers on connections of the same shard wait on it.

-- one row per run: the existing rows folded, with no event written meanwhile
LOCK TABLE "run_events" IN SHARE ROW EXCLUSIVE MODE;
LOCK TABLE "run_event_tallies" IN ACCESS EXCLUSIVE MODE;
CREATE TEMP TABLE "run_event_tallies_folded" ON COMMIT DROP AS
  SELECT run_id, sum(n)::int AS n FROM "run_event_tallies" GROUP BY run_id;
DELETE FROM "run_event_tallies";
ALTER TABLE "run_event_tallies" DROP CONSTRAINT "run_event_tallies_pkey";
ALTER TABLE "run_event_tallies" DROP COLUMN "id";
DROP INDEX "run_event_tallies_run_id_idx";
ALTER TABLE "run_event_tallies" ADD COLUMN "shard" SMALLINT NOT NULL DEFAULT 0;
ALTER TABLE "run_event_tallies" ADD CONSTRAINT "run_event_tallies_pkey" PRIMARY KEY ("run_id", "shard");
ALTER TABLE "run_event_tallies" ALTER COLUMN "shard" DROP DEFAULT;
INSERT INTO "run_event_tallies" (run_id, shard, n) SELECT run_id, 0, n FROM "run_event_tallies_folded";

CREATE OR REPLACE FUNCTION "run_events_tally"() RETURNS trigger AS $$
BEGIN
  -- No ORDER BY: the hot path's connections disable sorts (enable_sort=off, packages/db client.ts),
  -- and the penalty of a sort there put the statement past jit_above_cost: an LLVM compile, ~140 ms
  -- a result. A statement counting events of several runs (rare: most write one run's) takes their
  -- rows in hash order; two such statements on connections of one shard could deadlock, and
  -- Postgres then fails one of them (its writer sees a failed write, as for any other fault).
  IF TG_OP = 'INSERT' THEN
    INSERT INTO "run_event_tallies" AS t (run_id, shard, n)
    SELECT run_id, (pg_backend_pid() % 16)::smallint, count(*) FROM new_rows GROUP BY run_id
    ON CONFLICT (run_id, shard) DO UPDATE SET n = t.n + excluded.n;
  ELSE
    -- events deleted with their run need no tally (the run's tallies go with it)
    INSERT INTO "run_event_tallies" AS t (run_id, shard, n)
    SELECT o.run_id, (pg_backend_pid() % 16)::smallint, -count(*) FROM old_rows o
    WHERE EXISTS (SELECT 1 FROM "runs" r WHERE r.id = o.run_id) GROUP BY o.run_id
    ON CONFLICT (run_id, shard) DO UPDATE SET n = t.n + excluded.n;
  END IF;
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;
