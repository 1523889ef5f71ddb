// The roll-ups' log (migration 20261210090000_rollup_log): a statement that changes a few attempts
// logs its rows instead of writing the roll-ups, a fold moves them in, and readers fold first. Here:
// what is logged and what is written at once, that a reader sees a result the moment it is
// committed, that folds take turns, and that a run deleted before or while its rows fold neither
// fails the fold nor leaves rows behind.
import { foldRollups, foldRollupsIfFree, runOutcomeCounts } from '@osmosis/db';
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

async function logRows(): Promise<number> {
  const rows = await tdb.db.$queryRaw<{ n: number }[]>`SELECT count(*)::int AS n FROM attempts_rollup_log`;
  return rows[0]!.n;
}

async function passedInTotals(runId: string): Promise<number> {
  const rows = await tdb.db.$queryRaw<{ n: number }[]>`
    SELECT coalesce(sum(n), 0)::int AS n FROM agent_outcome_totals WHERE run_id = ${runId}::uuid AND outcome = 'passed'`;
  return rows[0]!.n;
}

async function connect(): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: tdb.url });
  await client.connect();
  return client;
}

function queuedRun(tasks: number) {
  return seedRun(tdb.db, {
    tasks,
    attemptsPerTask: 1,
    status: 'running',
    agents: [{ harness: 'terminus-2', model: 'm' }],
    attempt: () => ({ outcome: null }),
  });
}

const FINISH = `UPDATE attempts SET status = 'finished', outcome = 'passed', reward = 1, finished_at = now()
  WHERE id = ANY($1::uuid[])`;

describe('the roll-up log', () => {
  it('logs a result, not a start, and a reader sees the result at once', async () => {
    const run = await queuedRun(3);
    await foldRollups(tdb.db);
    const [a] = run.attempts;
    await tdb.db
      .$executeRaw`UPDATE attempts SET status = 'running', started_at = now() WHERE id = ${a!.id}::uuid`;
    expect(await logRows()).toBe(0);
    await tdb.db.$executeRaw`UPDATE attempts SET lease_expires_at = now() WHERE id = ${a!.id}::uuid`;
    expect(await logRows()).toBe(0);
    await tdb.db.$executeRaw`UPDATE attempts SET status = 'finished', outcome = 'passed', reward = 1,
      finished_at = now() WHERE id = ${a!.id}::uuid`;
    // the attempt leaves 'open' and joins 'passed': two signed rows, the roll-ups untouched
    expect(await logRows()).toBe(2);
    expect(await passedInTotals(run.runId)).toBe(0);
    // a reader folds before it reads
    const counts = await runOutcomeCounts(tdb.db, run.runId);
    expect(counts.passed).toBe(1);
    expect(counts.pending).toBe(2);
    expect(await logRows()).toBe(0);
    expect(await passedInTotals(run.runId)).toBe(1);
  });

  it('writes a statement of more than 64 changed rows (an update: two an attempt) into the roll-ups at once', async () => {
    const run = await queuedRun(65);
    expect(await logRows()).toBe(0);
    await tdb.db.$executeRawUnsafe(
      FINISH,
      run.attempts.map((a) => a.id),
    );
    expect(await logRows()).toBe(0);
    expect(await passedInTotals(run.runId)).toBe(65);
    const small = await queuedRun(64);
    expect(await logRows()).toBe(64);
    await foldRollups(tdb.db);
    expect((await runOutcomeCounts(tdb.db, small.runId)).pending).toBe(64);
  });

  it('takes folds one at a time: the periodic one and a live frame skip, a reader waits and then sees every change', async () => {
    const run = await queuedRun(4);
    await foldRollups(tdb.db);
    const first = await connect();
    try {
      await tdb.db.$executeRawUnsafe(FINISH, [run.attempts[0]!.id]);
      // a fold held open in a transaction (a reader's, say)
      await first.query('BEGIN');
      expect((await first.query('SELECT "attempts_rollup_fold"(TRUE) AS n')).rows[0].n).toBe(2);
      await tdb.db.$executeRawUnsafe(FINISH, [run.attempts[1]!.id]);
      expect(await foldRollupsIfFree(tdb.db)).toBeNull();
      // a live stream's frame does not wait: it reads what is committed (the open fold's rows not yet)
      expect((await runOutcomeCounts(tdb.db, run.runId, { exact: false })).passed).toBe(0);
      let waited = false;
      const reader = runOutcomeCounts(tdb.db, run.runId).then((c) => {
        waited = true;
        return c;
      });
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(waited).toBe(false);
      await first.query('COMMIT');
      const counts = await reader;
      expect(counts.passed).toBe(2);
      expect(await logRows()).toBe(0);
    } finally {
      await first.end();
    }
  });

  it("drops the rows of a run deleted before its rows are folded, and folds the others'", async () => {
    const gone = await queuedRun(3);
    const kept = await queuedRun(2);
    await foldRollups(tdb.db);
    await tdb.db.$executeRawUnsafe(
      FINISH,
      gone.attempts.map((a) => a.id),
    );
    await tdb.db.$executeRawUnsafe(
      FINISH,
      kept.attempts.map((a) => a.id),
    );
    expect(await logRows()).toBe(10);
    await tdb.db.run.delete({ where: { id: gone.runId } });
    expect(await foldRollups(tdb.db)).toBe(4);
    expect(await logRows()).toBe(0);
    expect(await passedInTotals(gone.runId)).toBe(0);
    expect(await passedInTotals(kept.runId)).toBe(2);
  });

  it('undoes and retries a fold whose run is deleted while it folds', async () => {
    const gone = await queuedRun(3);
    const kept = await queuedRun(2);
    await foldRollups(tdb.db);
    await tdb.db.$executeRawUnsafe(
      FINISH,
      [...gone.attempts, ...kept.attempts].map((a) => a.id),
    );
    const deleter = await connect();
    const folder = await connect();
    try {
      // the run's delete holds its rows (run_agents, roll-ups) until it commits; the fold, started
      // meanwhile, still sees the agent and waits on those rows
      await deleter.query('BEGIN');
      await deleter.query('DELETE FROM runs WHERE id = $1', [gone.runId]);
      const fold = folder.query('SELECT "attempts_rollup_fold"(TRUE) AS n');
      await new Promise((resolve) => setTimeout(resolve, 300));
      await deleter.query('COMMIT');
      // its first try fails the roll-up's foreign key; the second drops the deleted run's rows
      expect((await fold).rows[0].n).toBe(4);
    } finally {
      await Promise.all([deleter.end(), folder.end()]);
    }
    expect(await logRows()).toBe(0);
    expect(await passedInTotals(gone.runId)).toBe(0);
    expect(await passedInTotals(kept.runId)).toBe(2);
    expect((await runOutcomeCounts(tdb.db, kept.runId)).passed).toBe(2);
  });
});
