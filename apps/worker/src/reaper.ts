// Orphan sandboxes (ARCHITECTURE invariant 3) and worker liveness. A container labelled with an
// attempt is removed only when it is certainly orphaned: its attempt is no longer running under
// that container's worker (finished, re-queued, taken over by another worker, gone), or that
// worker has stopped, or both its lease has expired and its worker has missed its heartbeats
// (one stale signal alone may be a database blip, and the holder may still be alive). Run at
// worker start and on every reconciler pass.
import type { Db } from '@osmosis/db';

export interface SandboxLabels {
  run?: string;
  attempt?: string;
  worker?: string;
}

/** Removes every platform container for which `keep` answers false; returns how many went. */
export interface ContainerReaper {
  reap(keep: (labels: SandboxLabels) => Promise<boolean>): Promise<number>;
}

export function leaseKeeper(db: Db, livenessMs: number): (labels: SandboxLabels) => Promise<boolean> {
  return async (labels) => {
    if (!labels.attempt || !labels.worker) return false;
    if (!/^[0-9a-f-]{36}$/i.test(labels.attempt)) return false;
    const rows = await db.$queryRaw<{ ok: boolean }[]>`
      SELECT (a.status = 'running' AND a.lease_owner = ${labels.worker}
              AND NOT EXISTS (SELECT 1 FROM workers w WHERE w.id = ${labels.worker} AND w.stopped_at IS NOT NULL)
              AND (a.lease_expires_at > now()
                   OR EXISTS (SELECT 1 FROM workers w WHERE w.id = ${labels.worker}
                              AND w.heartbeat_at > now() - make_interval(secs => ${livenessMs / 1000})))) AS ok
      FROM attempts a WHERE a.id = ${labels.attempt}::uuid`;
    return rows[0]?.ok === true;
  };
}

/** What a worker reports about itself with each heartbeat (GET /v1/workers shows it). */
export interface WorkerPresence {
  id: string;
  hostname: string;
  pid: number;
  version: string;
  capacity: number;
  slotsInUse: number;
  livenessMs: number;
  scope: string;
  engine: { state: string; error: string | null; checkedAt: Date | null };
  /** what it advertises for attempts' reservations (attempts/reservation.ts) */
  resources: { cpus: number; memoryMb: number; gpuIds: string[] };
}

/** Records (or refreshes) this worker's liveness and state. */
export async function heartbeatWorker(db: Db, presence: WorkerPresence): Promise<void> {
  const state = {
    version: presence.version,
    capacity: presence.capacity,
    slotsInUse: presence.slotsInUse,
    livenessMs: presence.livenessMs,
    scope: presence.scope,
    engineState: presence.engine.state,
    engineError: presence.engine.error,
    engineCheckedAt: presence.engine.checkedAt,
    cpus: presence.resources.cpus,
    memoryMb: presence.resources.memoryMb,
    gpuIds: presence.resources.gpuIds,
  };
  await db.workerHeartbeat.upsert({
    where: { id: presence.id },
    create: { id: presence.id, hostname: presence.hostname, pid: presence.pid, ...state },
    update: {
      heartbeatAt: new Date(),
      stoppedAt: null,
      hostname: presence.hostname,
      pid: presence.pid,
      ...state,
    },
  });
}

export async function markWorkerStopped(db: Db, id: string): Promise<void> {
  await db.workerHeartbeat.updateMany({ where: { id }, data: { stoppedAt: new Date(), slotsInUse: 0 } });
}
