-- Resource-aware dispatch (issue 18): what each worker advertises, what each running attempt
-- reserves on the worker that holds its lease, and why a run's attempts cannot be placed.
ALTER TABLE "workers" ADD COLUMN "cpus" DOUBLE PRECISION,
  ADD COLUMN "memory_mb" INTEGER,
  ADD COLUMN "gpu_ids" TEXT[] NOT NULL DEFAULT ARRAY[]::TEXT[];

ALTER TABLE "attempts" ADD COLUMN "reserved_cpus" DOUBLE PRECISION,
  ADD COLUMN "reserved_memory_mb" INTEGER,
  ADD COLUMN "reserved_gpu_ids" TEXT[] NOT NULL DEFAULT ARRAY[]::TEXT[];

-- a worker sums the reservations of the attempts it holds (lease_owner, status running)
CREATE INDEX "attempts_lease_owner_status_idx" ON "attempts"("lease_owner", "status");

ALTER TABLE "runs" ADD COLUMN "waiting_reason" TEXT;
