// The fast start and result (real Postgres): they write exactly what lease.ts writes for the same
// attempt, and they decline (null) every case lease.ts must decide — a run's first start, a
// budget, a GPU, a worker it does not fit, an attempt not handed out, a stale lease, an error
// with retries, a stopped run and a run's last attempts. The reconciler's sweep ends a run whose
// attempts all ended.
import type { ExecutionResult } from '@osmosis/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../../test/helpers/db.ts';
import { seedRun } from '../testing/fixtures.ts';
import { loadExecutionRow } from './execution-row.ts';
import { fastAcquire, fastFinalize } from './fast-lease.ts';
import { acquireLease, finalizeAttempt } from './lease.ts';
import { completeEndedRuns } from './run-completion.ts';

let tdb: TestDatabase;
beforeAll(async () => {
  tdb = await createTestDatabase();
});
afterAll(async () => {
  await tdb?.drop();
});

const holder = { workerId: 'w-fast', leaseMs: 60_000, capacity: { cpus: 8, memoryMb: 8192, gpuIds: [] } };
const roomy = { cpus: 8, memoryMb: 8192 };
const opts = { ...holder, retryBackoffMs: 0, startedAt: new Date() };

async function dispatchedRun(tasks: number, status: 'queued' | 'running' = 'running') {
  const run = await seedRun(tdb.db, { tasks, maxConcurrentAttempts: tasks, status: 'queued' });
  if (status === 'running') await tdb.db.run.update({ where: { id: run.runId }, data: { status } });
  await tdb.db.attempt.updateMany({ where: { runId: run.runId }, data: { dispatchedAt: new Date() } });
  return run;
}

const RESULT: ExecutionResult = {
  outcome: 'passed',
  reward: 1,
  rewards: { reward: 1, style: 0.5 },
  costUsd: 0.25,
  inputTokens: 120,
  outputTokens: 30,
  cacheTokens: 7,
  envMs: 100,
  agentSetupMs: 20,
  agentMs: 900,
  verifierMs: 40,
  agentExitCode: 0,
  agentTimedOut: false,
  harnessInfo: { harness: 'nop', version: '1' },
  artifacts: [
    { path: 'agent/log.txt', size: 12, storageKey: 'artifacts/x/agent/log.txt' },
    { path: 'verifier/reward.txt', size: 2, storageKey: 'artifacts/x/verifier/reward.txt' },
  ],
  events: [{ level: 'info', step: 'verifier', message: 'verifier exited 0' }],
};

/** What an attempt row and its events and artifacts hold, without ids and times. */
async function written(attemptId: string) {
  const row = await tdb.db.attempt.findUniqueOrThrow({ where: { id: attemptId } });
  const events = await tdb.db.runEvent.findMany({ where: { attemptId }, orderBy: { id: 'asc' } });
  const artifacts = await tdb.db.artifact.findMany({ where: { attemptId }, orderBy: { path: 'asc' } });
  const {
    id: _id,
    taskId: _task,
    index: _index,
    createdAt: _c,
    startedAt,
    finishedAt,
    dispatchedAt: _d,
    leaseExpiresAt,
    taskDigest: _digest,
    ...columns
  } = row;
  return {
    columns,
    started: startedAt !== null,
    leased: leaseExpiresAt !== null,
    finished: finishedAt !== null,
    events: events.map((e) => ({ level: e.level, step: e.step, message: e.message, details: e.details })),
    artifacts: artifacts.map((a) => ({ path: a.path, size: a.size, storageKey: a.storageKey })),
  };
}

describe('fast start and result', () => {
  it('write the same rows, events and artifacts as lease.ts', async () => {
    const { runId, attemptIds } = await dispatchedRun(4, 'queued');
    const [slow, fast] = attemptIds as [string, string];
    // the run's first start is lease.ts's (it marks the run running)
    expect(await fastAcquire(tdb.db, slow, holder, roomy)).toBeNull();
    const slowLease = await acquireLease(tdb.db, slow, holder);
    expect(slowLease).toMatchObject({ kind: 'acquired', tryNumber: 1 });
    const fastLease = await fastAcquire(tdb.db, fast, holder, roomy);
    expect(fastLease).toEqual({
      runId,
      token: 1,
      tryNumber: 1,
      needs: { cpus: 0, memoryMb: 0, gpus: 0 },
      // the execution's rows, read by the start's own statement: what loadExecutionRow reads
      execution: await loadExecutionRow(tdb.db, fast),
    });
    const startedSlow = await written(slow);
    const startedFast = await written(fast);
    expect(startedFast).toEqual(startedSlow);
    expect(startedFast.columns).toMatchObject({
      status: 'running',
      leaseOwner: holder.workerId,
      tryCount: 1,
    });

    if (slowLease.kind !== 'acquired') throw new Error('not acquired');
    await finalizeAttempt(tdb.db, slow, slowLease.token, RESULT, opts);
    const fastWrite = await fastFinalize(tdb.db, fast, runId, fastLease!.token, 1, RESULT, holder.workerId);
    const stored = await tdb.db.attempt.findUniqueOrThrow({ where: { id: fast } });
    expect(fastWrite).toEqual({
      runId,
      outcome: 'passed',
      backlog: 2,
      refill: false,
      // the stored times, returned for the metrics (which then read nothing)
      times: { startedAt: stored.startedAt, dispatchedAt: stored.dispatchedAt, notBefore: stored.notBefore },
    });
    expect(stored.startedAt).toBeInstanceOf(Date);
    const doneSlow = await written(slow);
    const doneFast = await written(fast);
    expect(doneFast).toEqual(doneSlow);
    expect(doneFast.columns).toMatchObject({ status: 'finished', outcome: 'passed', leaseOwner: null });
    expect(doneFast.artifacts).toHaveLength(2);
    expect(doneFast.events.map((e) => e.step)).toEqual(['attempt.started', 'verifier', 'attempt.finished']);
  });

  it('decline what lease.ts must decide at the start', async () => {
    const { runId, attemptIds } = await dispatchedRun(6);
    const [notHandedOut, big, gpu, budgeted, fits] = attemptIds as [string, string, string, string, string];
    await tdb.db.attempt.update({ where: { id: notHandedOut }, data: { dispatchedAt: null } });
    expect(await fastAcquire(tdb.db, notHandedOut, holder, roomy)).toBeNull();

    const taskOf = async (id: string) =>
      (await tdb.db.attempt.findUniqueOrThrow({ where: { id }, select: { taskId: true } })).taskId;
    await tdb.db.task.update({
      where: { id: await taskOf(big) },
      data: { config: { environment: { cpus: 2, memory_mb: 1024 } } },
    });
    expect(await fastAcquire(tdb.db, big, holder, { cpus: 1.5, memoryMb: 8192 })).toBeNull();
    expect(await fastAcquire(tdb.db, big, holder, { cpus: 8, memoryMb: 512 })).toBeNull();
    expect(await fastAcquire(tdb.db, big, holder, { cpus: 2, memoryMb: 1024 })).toMatchObject({
      needs: { cpus: 2, memoryMb: 1024, gpus: 0 },
    });

    await tdb.db.task.update({
      where: { id: await taskOf(gpu) },
      data: { config: { environment: { gpus: 1 } } },
    });
    expect(await fastAcquire(tdb.db, gpu, holder, roomy)).toBeNull();

    await tdb.db.run.update({ where: { id: runId }, data: { maxCostUsd: 5 } });
    expect(await fastAcquire(tdb.db, budgeted, holder, roomy)).toBeNull();
    await tdb.db.run.update({ where: { id: runId }, data: { maxCostUsd: null, status: 'stopped' } });
    expect(await fastAcquire(tdb.db, fits, holder, roomy)).toBeNull();
    await tdb.db.run.update({ where: { id: runId }, data: { status: 'running' } });
    const started = await fastAcquire(tdb.db, fits, holder, roomy);
    expect(started).not.toBeNull();
    // taken once: a second start of the same attempt declines
    expect(await fastAcquire(tdb.db, fits, holder, roomy)).toBeNull();
    // nothing it declined was changed
    const untouched = await tdb.db.attempt.findMany({ where: { id: { in: [notHandedOut, gpu, budgeted] } } });
    expect(untouched.map((a) => a.status)).toEqual(['queued', 'queued', 'queued']);
    expect(await tdb.db.runEvent.count({ where: { attemptId: { in: [notHandedOut, gpu, budgeted] } } })).toBe(
      0,
    );
  });

  it('decline what lease.ts must decide for a result, and say when the run wants a refill', async () => {
    const { runId, attemptIds } = await dispatchedRun(5);
    const leases = new Map<string, number>();
    for (const id of attemptIds.slice(0, 4)) {
      const lease = await fastAcquire(tdb.db, id, holder, roomy);
      leases.set(id, lease!.token);
    }
    const [a, b, c, d] = attemptIds as [string, string, string, string];
    // a stale lease, another worker's lease, an error (retries are lease.ts's), a cancellation
    expect(await fastFinalize(tdb.db, a, runId, 99, 1, RESULT, holder.workerId)).toBeNull();
    expect(await fastFinalize(tdb.db, a, runId, leases.get(a)!, 1, RESULT, 'w-other')).toBeNull();
    const errored: ExecutionResult = { outcome: 'errored', errorClass: 'provider', errorMessage: 'down' };
    expect(await fastFinalize(tdb.db, a, runId, leases.get(a)!, 1, errored, holder.workerId)).toBeNull();
    expect(
      await fastFinalize(tdb.db, a, runId, leases.get(a)!, 1, { outcome: 'cancelled' }, holder.workerId),
    ).toBeNull();
    // an attempt id with another run's id: nothing is written under the wrong run
    const other = await dispatchedRun(2);
    expect(await fastFinalize(tdb.db, a, other.runId, leases.get(a)!, 1, RESULT, holder.workerId)).toBeNull();
    expect((await tdb.db.attempt.findUniqueOrThrow({ where: { id: a } })).status).toBe('running');

    // one attempt still queued (handed out, so backlog 1 ≤ 5 / 4): written, and the run wants a refill
    expect(await fastFinalize(tdb.db, a, runId, leases.get(a)!, 1, RESULT, holder.workerId)).toMatchObject({
      runId,
      outcome: 'passed',
      backlog: 1,
      refill: true,
    });
    // a stopped run's results are lease.ts's (it cancels them)
    await tdb.db.run.update({ where: { id: runId }, data: { status: 'stopped' } });
    expect(await fastFinalize(tdb.db, b, runId, leases.get(b)!, 1, RESULT, holder.workerId)).toBeNull();
    await tdb.db.run.update({ where: { id: runId }, data: { status: 'running' } });
    // no queued attempt left: these may be the run's last results, which end the run (lease.ts)
    await tdb.db.attempt.updateMany({ where: { runId, status: 'queued' }, data: { status: 'cancelled' } });
    expect(await fastFinalize(tdb.db, b, runId, leases.get(b)!, 1, RESULT, holder.workerId)).toBeNull();
    for (const id of [b, c, d]) {
      const result = await finalizeAttempt(tdb.db, id, leases.get(id)!, RESULT, opts);
      expect(result.kind).toBe('written');
    }
    expect((await tdb.db.run.findUniqueOrThrow({ where: { id: runId } })).status).toBe('finished');
  });

  it("the reconciler's sweep ends an active run whose attempts have all ended, and no other", async () => {
    const ended = await dispatchedRun(2);
    const open = await dispatchedRun(2);
    await tdb.db.attempt.updateMany({
      where: { runId: ended.runId },
      data: { status: 'finished', outcome: 'passed', reward: 1, finishedAt: new Date() },
    });
    await tdb.db.attempt.update({
      where: { id: open.attemptIds[0]! },
      data: { status: 'finished', outcome: 'failed', reward: 0, finishedAt: new Date() },
    });
    expect(await completeEndedRuns(tdb.db)).toBeGreaterThanOrEqual(1);
    const [endedRun, openRun] = await Promise.all([
      tdb.db.run.findUniqueOrThrow({ where: { id: ended.runId } }),
      tdb.db.run.findUniqueOrThrow({ where: { id: open.runId } }),
    ]);
    expect(endedRun.status).toBe('finished');
    expect(openRun.status).toBe('running');
    const finished = await tdb.db.runEvent.findMany({ where: { runId: ended.runId, step: 'run.finished' } });
    expect(finished).toHaveLength(1);
    expect(await completeEndedRuns(tdb.db)).toBe(0);
  });
});
