-- AlterTable
ALTER TABLE "attempts" ADD COLUMN     "steps" JSONB;
