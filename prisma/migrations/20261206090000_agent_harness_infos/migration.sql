-- Per agent, the distinct harness infos of its scored attempts with their counts: the input of
-- "comparable with published terminus-2 scores" (issue 17: the results views at 300,000 attempts
-- read a few rows per agent instead of grouping every scored attempt). Kept like the roll-ups of
-- 20261205090000_results_rollups: one statement-level trigger applying the signed difference of
-- the transition tables. `info_key` tells the infos apart (a JSON null and no info at all
-- included, as the GROUP BY over attempts did); rows that fall to n = 0 stay and are not read.

-- CreateTable
CREATE TABLE "agent_harness_infos" (
    "agent_id" UUID NOT NULL,
    "info_key" TEXT NOT NULL,
    "run_id" UUID NOT NULL,
    "info" JSONB,
    "n" INTEGER NOT NULL,

    CONSTRAINT "agent_harness_infos_pkey" PRIMARY KEY ("agent_id","info_key")
);

-- CreateIndex
CREATE INDEX "agent_harness_infos_run_id_idx" ON "agent_harness_infos"("run_id");

-- AddForeignKey
ALTER TABLE "agent_harness_infos" ADD CONSTRAINT "agent_harness_infos_agent_id_fkey" FOREIGN KEY ("agent_id") REFERENCES "run_agents"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- One scored attempt's harness info with a sign: +1 as it is now, -1 as it was.
CREATE TYPE "attempts_harness_info_row" AS (sign INT, agent_id UUID, run_id UUID, info JSONB);

-- Applies signed rows. `upsert` false (a delete): only existing rows change, so a cascaded delete
-- of a run (its agents' rows already gone) inserts nothing.
CREATE FUNCTION "attempts_harness_infos_apply"(delta "attempts_harness_info_row"[], upsert BOOLEAN) RETURNS void AS $$
BEGIN
  IF upsert THEN
    INSERT INTO "agent_harness_infos" AS t
    SELECT agent_id, md5(coalesce(info::text, '')), run_id, info, sum(sign)::int
    FROM unnest(delta) GROUP BY agent_id, run_id, info HAVING sum(sign) <> 0 ORDER BY 1, 2
    ON CONFLICT (agent_id, info_key) DO UPDATE SET n = t.n + excluded.n;
  ELSE
    UPDATE "agent_harness_infos" AS t SET n = t.n + d.n
    FROM (SELECT agent_id, md5(coalesce(info::text, '')) AS info_key, sum(sign)::int AS n
      FROM unnest(delta) GROUP BY agent_id, info) d
    WHERE t.agent_id = d.agent_id AND t.info_key = d.info_key;
  END IF;
END;
$$ LANGUAGE plpgsql;

CREATE FUNCTION "attempts_harness_infos"() RETURNS trigger AS $$
DECLARE
  delta "attempts_harness_info_row"[];
BEGIN
  -- scored: finished with an outcome that counts (packages/db/src/queries/quality.ts)
  IF TG_OP = 'INSERT' THEN
    delta := ARRAY(SELECT ROW(1, a.agent_id, a.run_id, a.harness_info)::"attempts_harness_info_row" FROM new_rows a
      WHERE a.status = 'finished' AND a.outcome IN ('passed', 'failed', 'errored'));
  ELSIF TG_OP = 'UPDATE' THEN
    delta := ARRAY(
      SELECT r FROM old_rows o JOIN new_rows n ON n.id = o.id,
        LATERAL (SELECT ROW(-1, o.agent_id, o.run_id, o.harness_info)::"attempts_harness_info_row"
            WHERE o.status = 'finished' AND o.outcome IN ('passed', 'failed', 'errored')
          UNION ALL SELECT ROW(1, n.agent_id, n.run_id, n.harness_info)::"attempts_harness_info_row"
            WHERE n.status = 'finished' AND n.outcome IN ('passed', 'failed', 'errored')) v(r)
      WHERE (o.agent_id, o.run_id, o.status, o.outcome, o.harness_info)
        IS DISTINCT FROM (n.agent_id, n.run_id, n.status, n.outcome, n.harness_info));
  ELSE
    delta := ARRAY(SELECT ROW(-1, a.agent_id, a.run_id, a.harness_info)::"attempts_harness_info_row" FROM old_rows a
      WHERE a.status = 'finished' AND a.outcome IN ('passed', 'failed', 'errored'));
  END IF;
  IF cardinality(delta) > 0 THEN
    PERFORM "attempts_harness_infos_apply"(delta, TG_OP <> 'DELETE');
  END IF;
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER "attempts_harness_infos_insert" AFTER INSERT ON "attempts"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "attempts_harness_infos"();
CREATE TRIGGER "attempts_harness_infos_update" AFTER UPDATE ON "attempts"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "attempts_harness_infos"();
CREATE TRIGGER "attempts_harness_infos_delete" AFTER DELETE ON "attempts"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION "attempts_harness_infos"();

-- The infos of the attempts already there.
SELECT "attempts_harness_infos_apply"(ARRAY(
  SELECT ROW(1, a.agent_id, a.run_id, a.harness_info)::"attempts_harness_info_row" FROM "attempts" a
  WHERE a.status = 'finished' AND a.outcome IN ('passed', 'failed', 'errored')), TRUE);
