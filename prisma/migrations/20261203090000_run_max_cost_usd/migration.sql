-- AlterTable: [execution] max_cost_usd, the run's budget in USD (issue 19 part 3)
ALTER TABLE "runs" ADD COLUMN "max_cost_usd" DOUBLE PRECISION;
