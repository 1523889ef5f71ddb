-- The commit a git benchmark's last completed sync checked out (the ref resolved), for run locks.
ALTER TABLE "benchmarks" ADD COLUMN "source_commit" TEXT;
