-- A workspace's cap on attempts running at once across all its runs, set by its admins within
-- the operator's maximum (OSMOSIS_WORKSPACE_MAX_CONCURRENT_ATTEMPTS). NULL: the operator's maximum.
ALTER TABLE "workspaces" ADD COLUMN "max_concurrent_attempts" INTEGER;
