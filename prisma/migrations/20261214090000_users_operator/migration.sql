-- The deployment's operators: the people who run the platform (the host, the workers, the
-- engine), not any workspace's owner. The deployment-wide views (GET /v1/workers, GET /v1/queues,
-- the /operators and /queues pages) were open to any workspace's admins or owners, and any member
-- can make a workspace of their own and own it: every user saw every worker host and queue.
ALTER TABLE "users" ADD COLUMN "is_operator" BOOLEAN NOT NULL DEFAULT false;

-- An existing deployment keeps its views: the owners of its first workspace (the one bootstrap.ts
-- made on the host) become its operators.
UPDATE "users" SET "is_operator" = true
WHERE "id" IN (
  SELECT m."user_id" FROM "memberships" m
  WHERE m."role" = 'owner'
    AND m."workspace_id" = (SELECT w."id" FROM "workspaces" w ORDER BY w."created_at", w."id" LIMIT 1)
);
