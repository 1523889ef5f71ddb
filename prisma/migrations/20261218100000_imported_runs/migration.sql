-- Runs imported from a Harbor job directory (`runs import`): never queued, their attempts
-- written once at import. `import_info` keeps where they came from (the job's name and id, the
-- Harbor version, how tasks were matched and what did not match); null for runs made here.
ALTER TABLE "runs" ADD COLUMN "imported" BOOLEAN NOT NULL DEFAULT false;
ALTER TABLE "runs" ADD COLUMN "import_info" JSONB;
