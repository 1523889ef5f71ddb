-- The digest of the task an attempt was planned with, so a retry of the run can refuse when the
-- benchmark's task changed since (the retried try would answer a different question). Filled by
-- the database on insert, so every writer of attempts records it without knowing about it.
ALTER TABLE "attempts" ADD COLUMN "task_digest" TEXT;

UPDATE "attempts" a SET "task_digest" = t."digest" FROM "tasks" t WHERE t."id" = a."task_id";

CREATE FUNCTION "attempts_record_task_digest"() RETURNS trigger AS $$
BEGIN
  IF NEW."task_digest" IS NULL THEN
    SELECT "digest" INTO NEW."task_digest" FROM "tasks" WHERE "id" = NEW."task_id";
  END IF;
  RETURN NEW;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER "attempts_record_task_digest"
  BEFORE INSERT ON "attempts"
  FOR EACH ROW EXECUTE FUNCTION "attempts_record_task_digest"();
