// Proof of resource-aware dispatch on one machine (issue 18): three real worker processes with
// different capacities (OSMOSIS_WORKER_CPUS 2, 3 and 1) against the same Postgres and Redis, one
// workspace's big run and another's small one, and the largest worker killed with SIGKILL
// mid-run (a crashed host: its leases expire, nothing is released).
//
// The workers' executor is a stand-in that sleeps (test/helpers/sleeping-worker.ts): this test is
// about placement, reservations, fairness and crash recovery, not Docker, and not the object store
// (the S3 backend has its own tests; task files are not read by the stand-in).
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestDispatch, seedRun, waitFor } from '../apps/worker/src/testing/fixtures.ts';
import { createTestDatabase, type TestDatabase } from './helpers/db.ts';
import { TEST_REDIS_URL, testQueuePrefix } from './helpers/redis.ts';

const ROOT = path.join(import.meta.dirname, '..');
let tdb: TestDatabase;
let dataDir: string;
const prefix = testQueuePrefix();
const procs: ChildProcess[] = [];

const WORKERS = [
  { id: `${prefix}-two`, cpus: 2 },
  { id: `${prefix}-three`, cpus: 3 },
  { id: `${prefix}-one`, cpus: 1 },
];
const VICTIM = WORKERS[1]!.id;

function startWorkerProcess(id: string, cpus: number): ChildProcess {
  const proc = spawn(process.execPath, [path.join(ROOT, 'test/helpers/sleeping-worker.ts')], {
    cwd: ROOT,
    env: {
      ...process.env,
      DATABASE_URL: tdb.url,
      REDIS_URL: TEST_REDIS_URL,
      OSMOSIS_QUEUE_PREFIX: prefix,
      OSMOSIS_WORKER_ID: id,
      OSMOSIS_DATA_DIR: dataDir,
      // slots above the cpus: the reservation, not the slot count, is what limits the worker
      OSMOSIS_WORKER_CONCURRENCY: '4',
      OSMOSIS_WORKER_CPUS: String(cpus),
      OSMOSIS_WORKER_MEMORY_MB: '8000',
      OSMOSIS_LEASE_MS: '2000',
      OSMOSIS_HEARTBEAT_MS: '200',
      OSMOSIS_RECONCILE_MS: '500',
      OSMOSIS_WORKER_LIVENESS_MS: '3000',
      OSMOSIS_TEST_SLEEP_MS: '1200',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  procs.push(proc);
  return proc;
}

beforeAll(async () => {
  tdb = await createTestDatabase();
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'osmosis-three-workers-'));
});
afterAll(async () => {
  for (const proc of procs) if (proc.exitCode === null) proc.kill('SIGKILL');
  await tdb?.drop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

async function seedSized(tasks: number, maxConcurrentAttempts: number) {
  const seeded = await seedRun(tdb.db, { tasks, maxConcurrentAttempts });
  await tdb.db.task.updateMany({
    where: { benchmarkId: seeded.benchmarkId },
    data: { config: { environment: { cpus: 1, memory_mb: 1000, gpus: 0 } } },
  });
  return seeded;
}

describe('three workers of different capacities, one killed mid-run', () => {
  it('places every attempt within capacity, shares fairly, and finishes the dead worker’s attempts elsewhere', async () => {
    const big = await seedSized(24, 12);
    const small = await seedSized(4, 4); // another workspace
    const processes = new Map(WORKERS.map((w) => [w.id, startWorkerProcess(w.id, w.cpus)]));
    await waitFor(
      async () =>
        (await tdb.db.workerHeartbeat.count({ where: { id: { in: WORKERS.map((w) => w.id) } } })) === 3,
      120_000,
    );
    await requestDispatch(TEST_REDIS_URL, prefix, big.runId);
    await requestDispatch(TEST_REDIS_URL, prefix, small.runId);

    // sample the reservations Postgres holds per worker while the runs go
    const peak = new Map<string, number>();
    let samples = 0;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        const rows = await tdb.db.$queryRaw<{ owner: string; cpus: number; memory_mb: number }[]>`
          SELECT lease_owner AS owner, sum(reserved_cpus)::float8 AS cpus, sum(reserved_memory_mb)::int AS memory_mb
          FROM attempts WHERE status = 'running' AND lease_owner IS NOT NULL GROUP BY lease_owner`;
        for (const r of rows) {
          peak.set(r.owner, Math.max(peak.get(r.owner) ?? 0, r.cpus));
          expect(r.memory_mb).toBeLessThanOrEqual(8000);
        }
        if (rows.length) samples++;
        await new Promise((r) => setTimeout(r, 50));
      }
    })();

    // kill the largest worker once it holds attempts: no release, its leases must expire
    await waitFor(
      async () => (await tdb.db.attempt.count({ where: { leaseOwner: VICTIM, status: 'running' } })) >= 2,
      60_000,
    );
    const heldByVictim = (
      await tdb.db.attempt.findMany({
        where: { leaseOwner: VICTIM, status: 'running' },
        select: { id: true },
      })
    ).map((a) => a.id);
    processes.get(VICTIM)!.kill('SIGKILL');

    const ended = async (runId: string) =>
      ['finished', 'failed', 'stopped'].includes(
        (await tdb.db.run.findUniqueOrThrow({ where: { id: runId } })).status,
      );
    await waitFor(async () => (await ended(big.runId)) && (await ended(small.runId)), 120_000);
    sampling = false;
    await sampler;

    // every attempt counted once
    for (const run of [big, small]) {
      const attempts = await tdb.db.attempt.findMany({ where: { runId: run.runId } });
      expect(attempts.every((a) => a.status === 'finished' && a.outcome === 'passed')).toBe(true);
      const finishedEvents = await tdb.db.runEvent.groupBy({
        by: ['attemptId'],
        where: { runId: run.runId, step: 'attempt.finished' },
        _count: true,
      });
      expect(finishedEvents).toHaveLength(attempts.length);
      expect(finishedEvents.every((e) => e._count === 1)).toBe(true);
      expect((await tdb.db.run.findUniqueOrThrow({ where: { id: run.runId } })).status).toBe('finished');
    }

    // no worker over its capacity at any sampled moment
    expect(samples).toBeGreaterThan(0);
    for (const w of WORKERS) expect(peak.get(w.id) ?? 0).toBeLessThanOrEqual(w.cpus);
    expect([...peak.keys()].every((id) => WORKERS.some((w) => w.id === id))).toBe(true);

    // the killed worker's attempts finished on another worker
    expect(heldByVictim.length).toBeGreaterThanOrEqual(2);
    for (const id of heldByVictim) {
      const starts = await tdb.db.runEvent.findMany({
        where: { attemptId: id, step: 'attempt.started' },
        orderBy: { id: 'asc' },
      });
      const last = starts.at(-1)?.details as { worker?: string } | undefined;
      expect(last?.worker).not.toBe(VICTIM);
      expect(WORKERS.map((w) => w.id)).toContain(last?.worker);
    }

    // the small run was not starved behind the big one's backlog
    const finishedAt = async (runId: string) =>
      (await tdb.db.run.findUniqueOrThrow({ where: { id: runId } })).finishedAt!.getTime();
    expect(await finishedAt(small.runId)).toBeLessThan(await finishedAt(big.runId));
  }, 400_000);
});
