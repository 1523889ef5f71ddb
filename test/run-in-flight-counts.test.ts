// A run's attempts in flight as the triggers of migration 20261214090000_run_in_flight keep them in
// run_in_flight: after every kind of change an attempt goes through (hand-out, claim, renewal,
// result, retry, cancel, delete, a run's deletion), and under many connections changing one run's
// attempts at once, the run's count equals the attempts in flight counted row by row. A
// transaction that holds its counter row until commit makes no writer of another shard wait.
import { randomInt } from 'node:crypto';
import { Prisma, runInFlightCount, workspaceAttemptsInFlight } from '@osmosis/db';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from './helpers/db.ts';
import { seedRun } from './results-seed.ts';

let tdb: TestDatabase;

beforeAll(async () => {
  tdb = await createTestDatabase();
}, 120_000);

afterAll(async () => {
  await tdb?.drop();
});

/** A running run whose attempts are all queued and not handed out (seeded running: in flight). */
async function queuedRun(tasks: number, workspace?: { workspaceId: string; userId: string }) {
  const run = await seedRun(tdb.db, {
    tasks,
    attemptsPerTask: 1,
    status: 'running',
    agents: [{ harness: 'terminus-2', model: 'm' }],
    attempt: () => ({ outcome: null }),
    ...workspace,
  });
  expect(await counts(run.runId)).toEqual([tasks, tasks]);
  await tdb.db
    .$executeRaw`UPDATE attempts SET status = 'queued', started_at = NULL WHERE run_id = ${run.runId}::uuid`;
  return run;
}

/** [the run's count as kept, the attempts in flight counted row by row] */
async function counts(runId: string): Promise<[number, number]> {
  const rows = await tdb.db.$queryRaw<{ kept: number; counted: number }[]>`
    SELECT ${runInFlightCount(Prisma.sql`${runId}::uuid`)}::int AS kept,
      (SELECT count(*)::int FROM attempts a WHERE a.run_id = ${runId}::uuid
        AND (a.status = 'running' OR (a.status = 'queued' AND a.dispatched_at IS NOT NULL))) AS counted`;
  return [rows[0]!.kept, rows[0]!.counted];
}

async function counterRows(runId: string): Promise<number> {
  const rows = await tdb.db.$queryRaw<{ n: number }[]>`
    SELECT count(*)::int AS n FROM run_in_flight WHERE run_id = ${runId}::uuid`;
  return rows[0]!.n;
}

async function connect(): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: tdb.url });
  await client.connect();
  return client;
}

const HAND_OUT = `UPDATE attempts SET dispatched_at = now(), in_line_at = now() WHERE id = ANY($1::uuid[])`;
const CLAIM = `UPDATE attempts SET status = 'running', started_at = now(), lease_owner = 'w', lease_token = lease_token + 1,
  lease_expires_at = now() + interval '1 minute' WHERE id = ANY($1::uuid[])`;
const RENEW = `UPDATE attempts SET lease_expires_at = now() + interval '2 minutes' WHERE id = ANY($1::uuid[])`;
const FINISH = `UPDATE attempts SET status = 'finished', outcome = 'passed', reward = 1, finished_at = now(),
  lease_owner = NULL, lease_expires_at = NULL WHERE id = ANY($1::uuid[])`;
const REQUEUE = `UPDATE attempts SET status = 'queued', dispatched_at = NULL, in_line_at = NULL, lease_owner = NULL,
  lease_expires_at = NULL WHERE id = ANY($1::uuid[])`;
const CANCEL = `UPDATE attempts SET status = 'cancelled', outcome = 'cancelled', finished_at = now()
  WHERE id = ANY($1::uuid[])`;

describe('a run’s attempts in flight, kept by triggers', () => {
  it('follows every change an attempt goes through, and writes nothing for a claim or a renewal', async () => {
    const run = await queuedRun(8);
    const ids = run.attempts.map((a) => a.id);
    const step = async (sql: string, of: string[]) => {
      await tdb.db.$executeRawUnsafe(sql, of);
      return counts(run.runId);
    };
    expect(await counts(run.runId)).toEqual([0, 0]);
    expect(await step(HAND_OUT, ids.slice(0, 6))).toEqual([6, 6]);
    // handed out again (a second pass cannot, but a hand-written update can): still in flight once
    expect(await step(HAND_OUT, ids.slice(0, 2))).toEqual([6, 6]);
    const rowsBeforeClaim = await counterRows(run.runId);
    expect(await step(CLAIM, ids.slice(0, 4))).toEqual([6, 6]);
    expect(await step(RENEW, ids.slice(0, 4))).toEqual([6, 6]);
    expect(await counterRows(run.runId)).toBe(rowsBeforeClaim);
    expect(await step(FINISH, ids.slice(0, 2))).toEqual([4, 4]);
    expect(await step(REQUEUE, ids.slice(2, 3))).toEqual([3, 3]);
    expect(await step(CANCEL, ids.slice(3, 6))).toEqual([0, 0]);
    // a running attempt deleted on its own
    await tdb.db.$executeRawUnsafe(HAND_OUT, ids.slice(6, 8));
    expect(await step('DELETE FROM attempts WHERE id = ANY($1::uuid[])', ids.slice(7, 8))).toEqual([1, 1]);
    // an attempt inserted in flight (as a copy of one)
    await tdb.db.$executeRaw`
      INSERT INTO attempts (id, run_id, agent_id, task_id, index, status, dispatched_at)
      SELECT gen_random_uuid(), run_id, agent_id, task_id, index + 100, 'running', now() FROM attempts WHERE id = ${ids[0]}::uuid`;
    expect(await counts(run.runId)).toEqual([2, 2]);
  });

  it('moves an attempt’s count with its run when the run id changes', async () => {
    const from = await queuedRun(2);
    const to = await queuedRun(1);
    const [a] = from.attempts;
    await tdb.db.$executeRawUnsafe(HAND_OUT, [a!.id]);
    await tdb.db
      .$executeRaw`UPDATE attempts SET run_id = ${to.runId}::uuid, agent_id = ${to.agentIds[0]}::uuid
      WHERE id = ${a!.id}::uuid`;
    expect(await counts(from.runId)).toEqual([0, 0]);
    expect(await counts(to.runId)).toEqual([1, 1]);
  });

  it('goes with its run: a run deleted with attempts in flight leaves no counter row and fails nothing', async () => {
    const run = await queuedRun(5);
    await tdb.db.$executeRawUnsafe(
      HAND_OUT,
      run.attempts.map((a) => a.id),
    );
    await tdb.db.$executeRawUnsafe(CLAIM, [run.attempts[0]!.id]);
    expect(await counterRows(run.runId)).toBeGreaterThan(0);
    await tdb.db.$executeRaw`DELETE FROM runs WHERE id = ${run.runId}::uuid`;
    expect(await counterRows(run.runId)).toBe(0);
  });

  it('sums a workspace’s runs', async () => {
    const first = await queuedRun(3);
    const workspace = { workspaceId: first.workspaceId, userId: first.userId };
    const second = await queuedRun(4, workspace);
    await tdb.db.$executeRawUnsafe(
      HAND_OUT,
      first.attempts.map((a) => a.id),
    );
    await tdb.db.$executeRawUnsafe(
      HAND_OUT,
      second.attempts.slice(0, 2).map((a) => a.id),
    );
    expect(await workspaceAttemptsInFlight(tdb.db, first.workspaceId)).toBe(5);
  });

  it('stays exact under twelve connections changing one run’s attempts at once, and spreads them over shards', async () => {
    const run = await queuedRun(120);
    const ids = run.attempts.map((a) => a.id);
    const clients = await Promise.all(Array.from({ length: 12 }, connect));
    try {
      const transitions = [HAND_OUT, CLAIM, RENEW, FINISH, REQUEUE, CANCEL];
      await Promise.all(
        clients.map(async (client) => {
          for (let i = 0; i < 60; i++) {
            // a few attempts a statement, in random order: statements wait on each other's rows
            const some = Array.from({ length: 1 + randomInt(4) }, () => ids[randomInt(ids.length)]!);
            const sql = transitions[randomInt(transitions.length)]!;
            if (randomInt(3) === 0) {
              // a transaction of two statements, as a result written with finalizeAttempt
              await client.query('BEGIN');
              await client.query(sql, [some]);
              await client.query(transitions[randomInt(transitions.length)]!, [some]);
              await client.query('COMMIT');
            } else {
              await client.query(sql, [some]);
            }
          }
        }),
      );
    } finally {
      await Promise.all(clients.map((c) => c.end()));
    }
    const [kept, counted] = await counts(run.runId);
    expect(kept).toBe(counted);
    expect(await counterRows(run.runId)).toBeGreaterThan(1);
  }, 60_000);

  it('makes no writer of another shard wait on a transaction that holds its counter row', async () => {
    const run = await queuedRun(2);
    const [held, other] = run.attempts;
    await tdb.db.$executeRawUnsafe(HAND_OUT, [held!.id, other!.id]);
    const holder = await connect();
    const clients: pg.Client[] = [];
    try {
      const shardOf = async (c: pg.Client) =>
        (await c.query<{ s: number }>('SELECT pg_backend_pid() % 16 AS s')).rows[0]!.s;
      const holderShard = await shardOf(holder);
      let writer: pg.Client | undefined;
      while (!writer) {
        const c = await connect();
        clients.push(c);
        if ((await shardOf(c)) !== holderShard) writer = c;
      }
      await holder.query('BEGIN');
      await holder.query(FINISH, [[held!.id]]);
      // the holder keeps its counter row locked until it commits; the writer's row is another
      await writer.query(`SET lock_timeout = '2s'`);
      await writer.query(FINISH, [[other!.id]]);
      await holder.query('COMMIT');
    } finally {
      await holder.end();
      await Promise.all(clients.map((c) => c.end()));
    }
    expect(await counts(run.runId)).toEqual([0, 0]);
  });
});
