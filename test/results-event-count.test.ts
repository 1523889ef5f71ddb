// A run's event count from its tallies (migration 20261206090100_run_event_tallies) equals a
// count(*) of its events after every kind of write: the bulk insert of a seed, single and
// multi-row appends, appends from concurrent transactions, one rolled back, a direct delete of
// events, folds of many tallies into one, and the delete of a whole run.
import { appendRunEvent, appendRunEvents, foldRunEventTallies, runEventCount } from '@osmosis/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from './helpers/db.ts';
import { type SeededRun, seedRun } from './results-seed.ts';

let tdb: TestDatabase;
let run: SeededRun;
let other: SeededRun;

beforeAll(async () => {
  tdb = await createTestDatabase();
  run = await seedRun(tdb.db, {
    tasks: 4,
    attemptsPerTask: 1,
    agents: [{ harness: 'oracle', model: 'a' }],
    events: 30,
  });
  other = await seedRun(tdb.db, {
    tasks: 2,
    attemptsPerTask: 1,
    agents: [{ harness: 'oracle', model: 'b' }],
    events: 6,
  });
}, 120_000);

afterAll(async () => {
  await tdb?.drop();
});

async function counted(runId: string): Promise<number> {
  const [row] = await tdb.db.$queryRaw<{ n: number }[]>`
    SELECT count(*)::int AS n FROM run_events WHERE run_id = ${runId}::uuid`;
  return row?.n ?? -1;
}

async function expectCountMatches(runId: string): Promise<number> {
  const n = await counted(runId);
  expect(await runEventCount(tdb.db, runId)).toBe(n);
  return n;
}

const event = (runId: string, i: number) => ({
  runId,
  level: 'info' as const,
  step: 'run.queued' as const,
  message: `event ${i}`,
});

describe('run event count', () => {
  it('equals the events after a bulk insert, per run', async () => {
    expect(await expectCountMatches(run.runId)).toBeGreaterThan(0);
    expect(await expectCountMatches(other.runId)).toBeGreaterThan(0);
  });

  it('follows appends, concurrent and rolled back ones, and deletes', async () => {
    const before = await expectCountMatches(run.runId);
    await appendRunEvent(tdb.db, event(run.runId, 1));
    await appendRunEvents(tdb.db, [event(run.runId, 2), event(run.runId, 3), event(other.runId, 4)]);
    expect(await expectCountMatches(run.runId)).toBe(before + 3);
    await expectCountMatches(other.runId);
    await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        tdb.db.$transaction(async (tx) => {
          await appendRunEvent(tx, event(run.runId, 10 + i));
          await appendRunEvents(tx, [event(run.runId, 20 + i), event(run.runId, 30 + i)]);
        }),
      ),
    );
    await expect(
      tdb.db.$transaction(async (tx) => {
        await appendRunEvent(tx, event(run.runId, 99));
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    expect(await expectCountMatches(run.runId)).toBe(before + 3 + 24);
    await tdb.db.runEvent.deleteMany({ where: { runId: run.runId, message: { startsWith: 'event 2' } } });
    expect(await expectCountMatches(run.runId)).toBe(before + 3 + 24 - 9);
  });

  it('folds many tallies into one without changing the sum', async () => {
    for (let i = 0; i < 70; i++) await appendRunEvent(tdb.db, event(run.runId, 100 + i));
    const parts = async () =>
      (
        await tdb.db.$queryRaw<{ n: number }[]>`
          SELECT count(*)::int AS n FROM run_event_tallies WHERE run_id = ${run.runId}::uuid`
      )[0]?.n;
    expect(await parts()).toBeGreaterThan(64);
    await expectCountMatches(run.runId); // the read folds past 64 rows
    expect(await parts()).toBe(1);
    // folds beside appends
    await Promise.all([
      foldRunEventTallies(tdb.db, run.runId),
      appendRunEvent(tdb.db, event(run.runId, 200)),
      foldRunEventTallies(tdb.db, run.runId),
      appendRunEvents(tdb.db, [event(run.runId, 201), event(run.runId, 202)]),
    ]);
    await expectCountMatches(run.runId);
    await expectCountMatches(other.runId);
  });

  it('goes with a deleted run', async () => {
    await tdb.db.run.delete({ where: { id: other.runId } });
    const left = await tdb.db.$queryRaw<{ n: number }[]>`
      SELECT count(*)::int AS n FROM run_event_tallies WHERE run_id = ${other.runId}::uuid`;
    expect(left[0]?.n).toBe(0);
    expect(await runEventCount(tdb.db, other.runId)).toBe(0);
    await expectCountMatches(run.runId);
  });
});
