-- AlterTable
ALTER TABLE "secrets" ADD COLUMN     "created_by_id" UUID;

-- CreateTable
CREATE TABLE "workspace_git_links" (
    "id" UUID NOT NULL,
    "workspace_id" UUID NOT NULL,
    "identity" TEXT NOT NULL,
    "remote_url" TEXT,
    "added_by_id" UUID NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "workspace_git_links_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "run_secret_values" (
    "id" UUID NOT NULL,
    "run_id" UUID NOT NULL,
    "workspace_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "ciphertext" BYTEA NOT NULL,
    "iv" BYTEA NOT NULL,
    "auth_tag" BYTEA NOT NULL,
    "key_id" TEXT NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "run_secret_values_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "workspace_git_links_identity_idx" ON "workspace_git_links"("identity");

-- CreateIndex
CREATE UNIQUE INDEX "workspace_git_links_workspace_id_identity_key" ON "workspace_git_links"("workspace_id", "identity");

-- CreateIndex
CREATE UNIQUE INDEX "run_secret_values_run_id_name_key" ON "run_secret_values"("run_id", "name");

-- Records created before created_by_id was kept: their last setter is the best known creator.
UPDATE "secrets" SET "created_by_id" = "set_by_id" WHERE "created_by_id" IS NULL;

-- Values supplied at submit live only while their run does: gone when it ends or is deleted.
CREATE FUNCTION "run_secret_values_forget"() RETURNS trigger AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    DELETE FROM "run_secret_values" WHERE "run_id" = OLD."id";
    RETURN OLD;
  END IF;
  IF NEW."status" IN ('finished', 'failed', 'stopped') THEN
    DELETE FROM "run_secret_values" WHERE "run_id" = NEW."id";
  END IF;
  RETURN NEW;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER "runs_forget_secret_values_on_end"
  AFTER UPDATE OF "status" ON "runs"
  FOR EACH ROW EXECUTE FUNCTION "run_secret_values_forget"();

CREATE TRIGGER "runs_forget_secret_values_on_delete"
  AFTER DELETE ON "runs"
  FOR EACH ROW EXECUTE FUNCTION "run_secret_values_forget"();
