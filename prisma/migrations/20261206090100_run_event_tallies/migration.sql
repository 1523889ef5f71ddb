-- How many events each run has, without counting 500,000 of them on every logs page (issue 17).
-- A statement-level trigger on run_events appends one signed row per statement: no row is ever
-- updated, so writers of a run's events never wait on one another (a single counter row per run
-- would be locked until each writer's commit, beside attempts rows in the same transactions).
-- A reader sums its run's rows, which sees exactly the events its snapshot sees; readers fold
-- many rows into one now and then (packages/db/src/queries/run-event-count.ts).

-- CreateTable
CREATE TABLE "run_event_tallies" (
    "id" BIGSERIAL NOT NULL,
    "run_id" UUID NOT NULL,
    "n" INTEGER NOT NULL,

    CONSTRAINT "run_event_tallies_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "run_event_tallies_run_id_idx" ON "run_event_tallies"("run_id");

-- AddForeignKey
ALTER TABLE "run_event_tallies" ADD CONSTRAINT "run_event_tallies_run_id_fkey" FOREIGN KEY ("run_id") REFERENCES "runs"("id") ON DELETE CASCADE ON UPDATE CASCADE;

CREATE FUNCTION "run_events_tally"() RETURNS trigger AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO "run_event_tallies" (run_id, n) SELECT run_id, count(*) FROM new_rows GROUP BY run_id;
  ELSE
    -- events deleted with their run need no tally (the run's tallies go with it)
    INSERT INTO "run_event_tallies" (run_id, n) SELECT o.run_id, -count(*) FROM old_rows o
    WHERE EXISTS (SELECT 1 FROM "runs" r WHERE r.id = o.run_id) GROUP BY o.run_id;
  END IF;
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER "run_events_tally_insert" AFTER INSERT ON "run_events"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "run_events_tally"();
CREATE TRIGGER "run_events_tally_delete" AFTER DELETE ON "run_events"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION "run_events_tally"();

-- The events already there.
INSERT INTO "run_event_tallies" (run_id, n) SELECT run_id, count(*) FROM "run_events" GROUP BY run_id;
