// The reconciler's pass against real Postgres and Redis: a dead worker's attempts go back in line
// before the dispatch sweep, whose passes may wait on their workspace's row.
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../../test/helpers/db.ts';
import { TEST_REDIS_URL, testQueuePrefix } from '../../../../test/helpers/redis.ts';
import { workerConfig } from '../config.ts';
import { fakeExecutor, holdRow, seedRun, waitFor } from '../testing/fixtures.ts';
import { type RunningWorker, startWorker } from '../worker.ts';
import { reconcileOnce } from './reconciler.ts';

let tdb: TestDatabase;
let worker: RunningWorker;
beforeAll(async () => {
  tdb = await createTestDatabase();
  worker = await startWorker(
    workerConfig({
      databaseUrl: tdb.url,
      redisUrl: TEST_REDIS_URL,
      queuePrefix: testQueuePrefix(),
      workerId: 'reconciling-worker',
      leaseMs: 3000,
    }),
    {
      // no modules: the test runs the reconciler's pass itself
      modules: [],
      executor: fakeExecutor().executor,
      reaper: null,
      db: tdb.db,
      logger: pino({ level: 'silent' }),
      taskFiles: async () => '/nonexistent',
    },
  );
});
afterAll(async () => {
  await worker?.close();
  await tdb?.drop();
});

describe('reconcileOnce', () => {
  it("puts a dead worker's attempt back in line while the sweep's passes wait on their workspace's row", async () => {
    const dead = await seedRun(tdb.db, { tasks: 1 });
    // another run of the workspace with work to hand out: the sweep passes it
    const other = await seedRun(tdb.db, { tasks: 3, workspaceId: dead.workspaceId });
    const [attemptId] = dead.attemptIds as [string];
    await tdb.db.$executeRaw`UPDATE runs SET status = 'running' WHERE id = ${dead.runId}::uuid`;
    await tdb.db.$executeRaw`
      UPDATE attempts SET status = 'running', lease_owner = 'a-dead-worker', lease_token = 1,
        lease_expires_at = now() - interval '1 minute', started_at = now() - interval '2 minutes',
        dispatched_at = now() - interval '2 minutes'
      WHERE id = ${attemptId}::uuid`;

    // an API update of the workspace, or a pass of one of its runs, holding its row
    const workspace = holdRow(tdb.db, 'workspaces', dead.workspaceId);
    await workspace.held;
    const pass = reconcileOnce(worker.context);
    try {
      await waitFor(async () => {
        const attempt = await tdb.db.attempt.findUniqueOrThrow({ where: { id: attemptId } });
        return attempt.status === 'queued' && attempt.leaseOwner === null;
      }, 15_000);
      // the sweep is still waiting for the workspace's row: nothing of the other run handed out
      expect(await tdb.db.attempt.count({ where: { runId: other.runId, dispatchedAt: { not: null } } })).toBe(
        0,
      );
    } finally {
      workspace.release();
      await workspace.done;
    }
    const report = await pass;
    expect(report.requeued).toBe(1);
    expect(report.runsDispatched).toBeGreaterThanOrEqual(1);
    expect(await tdb.db.attempt.count({ where: { runId: other.runId, dispatchedAt: { not: null } } })).toBe(
      3,
    );
    const events = await tdb.db.runEvent.findMany({ where: { attemptId, step: 'attempt.lease_expired' } });
    expect(events).toHaveLength(1);
    expect(events[0]?.message).toMatch(/a-dead-worker/);
  });
});
