// A worker's heartbeat row against real Postgres: what GET /v1/workers, /readyz, the reaper and
// the dispatcher's reservations read of it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../test/helpers/db.ts';
import { heartbeatWorker, markWorkerStopped, type WorkerPresence } from './reaper.ts';

let tdb: TestDatabase;
beforeAll(async () => {
  tdb = await createTestDatabase();
});
afterAll(async () => {
  await tdb?.drop();
});

function presence(overrides: Partial<WorkerPresence> = {}): WorkerPresence {
  return {
    id: 'worker-a',
    hostname: 'host-a',
    pid: 4242,
    version: '1.2.3',
    capacity: 8,
    slotsInUse: 3,
    livenessMs: 30_000,
    scope: 'scope-a',
    engine: { state: 'up', error: null, checkedAt: new Date('2026-12-02T10:11:12.345Z') },
    resources: { cpus: 7.5, memoryMb: 16_384, gpuIds: ['0', '1'] },
    ...overrides,
  };
}

async function row(id: string) {
  return tdb.db.workerHeartbeat.findUniqueOrThrow({ where: { id } });
}

async function databaseNow(): Promise<Date> {
  const rows = await tdb.db.$queryRaw<{ now: Date }[]>`SELECT now()::timestamp(3) AS now`;
  return rows[0]?.now ?? new Date(Number.NaN);
}

describe('heartbeatWorker', () => {
  it('writes every field of a new worker, times as the database clock and UTC wall time', async () => {
    const before = await databaseNow();
    await heartbeatWorker(tdb.db, presence());
    const w = await row('worker-a');
    expect(w).toMatchObject({
      hostname: 'host-a',
      pid: 4242,
      version: '1.2.3',
      capacity: 8,
      slotsInUse: 3,
      livenessMs: 30_000,
      scope: 'scope-a',
      engineState: 'up',
      engineError: null,
      cpus: 7.5,
      memoryMb: 16_384,
      gpuIds: ['0', '1'],
      stoppedAt: null,
    });
    expect(w.engineCheckedAt?.toISOString()).toBe('2026-12-02T10:11:12.345Z');
    expect(w.heartbeatAt.getTime()).toBeGreaterThanOrEqual(before.getTime());
    expect(w.startedAt.getTime()).toBe(w.heartbeatAt.getTime());
  });

  it('refreshes the row: a later heartbeat, the new state, a stopped worker alive again', async () => {
    await heartbeatWorker(tdb.db, presence({ id: 'worker-b' }));
    const first = await row('worker-b');
    await markWorkerStopped(tdb.db, 'worker-b');
    expect((await row('worker-b')).stoppedAt).not.toBeNull();
    await new Promise((resolve) => setTimeout(resolve, 20));
    await heartbeatWorker(
      tdb.db,
      presence({
        id: 'worker-b',
        pid: 7,
        slotsInUse: 0,
        engine: { state: 'down', error: 'connect ENOENT /var/run/docker.sock', checkedAt: null },
        resources: { cpus: 2, memoryMb: 512, gpuIds: [] },
      }),
    );
    const second = await row('worker-b');
    expect(second).toMatchObject({
      pid: 7,
      slotsInUse: 0,
      engineState: 'down',
      engineError: 'connect ENOENT /var/run/docker.sock',
      engineCheckedAt: null,
      cpus: 2,
      memoryMb: 512,
      gpuIds: [],
      stoppedAt: null,
    });
    expect(second.heartbeatAt.getTime()).toBeGreaterThan(first.heartbeatAt.getTime());
    expect(second.startedAt.getTime()).toBe(first.startedAt.getTime());
  });

  it('stores whatever text the host and engine report as values, quotes and newlines included', async () => {
    const hostile = `x'); DROP TABLE workers; --\n"é☃`;
    await heartbeatWorker(
      tdb.db,
      presence({
        id: `worker-${hostile}`,
        hostname: hostile,
        engine: { state: 'down', error: hostile, checkedAt: null },
      }),
    );
    const w = await row(`worker-${hostile}`);
    expect(w.hostname).toBe(hostile);
    expect(w.engineError).toBe(hostile);
    expect(await tdb.db.workerHeartbeat.count()).toBeGreaterThanOrEqual(1);
  });
});
