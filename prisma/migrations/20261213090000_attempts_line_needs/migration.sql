-- What a handed-out attempt needs of a worker (its task's [environment] cpus, memory_mb and gpus,
-- held to [0, 1e9]), written by the dispatcher's hand-out beside the place in line (in_line_at),
-- so a worker's claim walks the line reading attempts alone: it used to join every attempt it
-- passed to its task and parse the task's config (and to its run), and a claim passes many (the
-- ones other claims hold at that moment, and the just-claimed ones whose index entries are not
-- yet cleaned up). bench/dispatch-scale.ts at 100 x 8: ~145 shared blocks read a claim. NULL
-- (handed out before this migration, or marked handed out without the dispatcher): the claim
-- cannot tell whether it fits and leaves it to acquireLease, which reads the task's config.
-- Tasks are never updated in place (benchmark sync only inserts), so the copy cannot go stale.

-- AlterTable (no default: instant, no rewrite)
ALTER TABLE "attempts" ADD COLUMN "need_cpus" DOUBLE PRECISION,
ADD COLUMN "need_memory_mb" INTEGER,
ADD COLUMN "need_gpus" INTEGER;
