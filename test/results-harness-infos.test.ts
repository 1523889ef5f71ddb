// The per-agent harness infos that a trigger on attempts keeps (migration
// 20261206090000_agent_harness_infos) equal a GROUP BY over the scored attempts themselves after
// every kind of write the platform makes: a bulk insert, infos recorded in bulk and one by one,
// a re-score, a retry's reset, a bulk cancel, deletes of attempts and of a whole run. The direct
// count is the snapshot path of the same query (`asOf` in the future reads the attempts).
import { agentQualityRows, Prisma } from '@osmosis/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from './helpers/db.ts';
import { type SeededRun, seedRun } from './results-seed.ts';

let tdb: TestDatabase;
let run: SeededRun;

const infoA = { version: 'a', max_turns: 10 };
const infoB = { version: 'b', templates: { kind: 'default' } };

beforeAll(async () => {
  tdb = await createTestDatabase();
  run = await seedRun(tdb.db, {
    tasks: 10,
    attemptsPerTask: 2,
    status: 'running',
    agents: [
      { harness: 'terminus-2', model: 'a' },
      { harness: 'terminus-2', model: 'b' },
    ],
    attempt: (agent, task, index) =>
      (task + index + agent) % 4 === 0
        ? { outcome: null }
        : { outcome: (task + index) % 5 === 0 ? 'errored' : (task + agent) % 3 === 0 ? 'failed' : 'passed' },
  });
}, 120_000);

afterAll(async () => {
  await tdb?.drop();
});

type Infos = [string, { info: unknown; attempts: number }[]][];

async function infosOf(runIds: string[], asOf?: Date): Promise<Infos> {
  const need = { infos: true, confidences: false, tasks: false };
  const rows = await agentQualityRows(tdb.db, { runIds, asOf, need });
  return [...rows.entries()]
    .map(([agent, r]): Infos[number] => [
      agent,
      [...r.infos].sort(
        (x, y) => JSON.stringify(x.info).localeCompare(JSON.stringify(y.info)) || x.attempts - y.attempts,
      ),
    ])
    .sort(([a], [b]) => a.localeCompare(b));
}

async function expectInfosMatch(runIds: string[]): Promise<Infos> {
  const roll = await infosOf(runIds);
  const raw = await infosOf(runIds, new Date(Date.now() + 3_600_000));
  expect(roll).toEqual(raw);
  return roll;
}

describe('harness infos of scored attempts', () => {
  it('match the attempts after a bulk insert (no info recorded)', async () => {
    const infos = await expectInfosMatch([run.runId]);
    const scored = run.attempts.filter((a) => a.outcome !== null).length;
    expect(infos.flatMap(([, i]) => i).reduce((n, i) => n + i.attempts, 0)).toBe(scored);
    expect(infos.flatMap(([, i]) => i.map((x) => x.info))).toEqual([null, null]);
  });

  it('follow recorded infos, re-scores, resets, cancels and deletes', async () => {
    const [a0, a1] = run.agentIds;
    await tdb.db.attempt.updateMany({ where: { agentId: a0 }, data: { harnessInfo: infoA } });
    await tdb.db.attempt.updateMany({
      where: { agentId: a1, taskId: { in: run.taskIds.slice(0, 4) } },
      data: { harnessInfo: infoB },
    });
    const infos = await expectInfosMatch([run.runId]);
    expect(infos.flatMap(([, i]) => i).length).toBe(3);
    // a JSON null is told apart from no info, as the GROUP BY over attempts does
    const one = run.attempts.find((a) => a.agent === 1 && a.outcome === 'passed');
    await tdb.db.attempt.update({ where: { id: one?.id }, data: { harnessInfo: Prisma.JsonNull } });
    await expectInfosMatch([run.runId]);
    // an unfinished attempt finishes with an info; a lease renewal changes nothing counted
    const [first, second] = run.attempts.filter((a) => a.outcome === null);
    await tdb.db.attempt.update({
      where: { id: first?.id },
      data: { status: 'finished', outcome: 'passed', harnessInfo: infoB, finishedAt: new Date() },
    });
    await tdb.db.attempt.update({ where: { id: second?.id }, data: { leaseExpiresAt: new Date() } });
    await expectInfosMatch([run.runId]);
    // a re-score, then a retry's reset out of the scored set
    await tdb.db.attempt.update({ where: { id: one?.id }, data: { outcome: 'failed' } });
    await expectInfosMatch([run.runId]);
    await tdb.db.attempt.update({
      where: { id: one?.id },
      data: { outcome: null, status: 'queued', harnessInfo: Prisma.DbNull, finishedAt: null },
    });
    await expectInfosMatch([run.runId]);
    // stop: every unfinished attempt cancelled in one statement (cancelled is not scored)
    await tdb.db.attempt.updateMany({
      where: { runId: run.runId, outcome: null },
      data: { status: 'cancelled', outcome: 'cancelled', finishedAt: new Date() },
    });
    await expectInfosMatch([run.runId]);
    await tdb.db.attempt.deleteMany({ where: { runId: run.runId, taskId: run.taskIds[0] } });
    await expectInfosMatch([run.runId]);
    // one agent's rows only
    const only = await agentQualityRows(tdb.db, { runIds: [run.runId], agentIds: [a0 as string] });
    expect([...only.keys()]).toEqual([a0]);
  });

  it('go with a deleted run', async () => {
    const other = await seedRun(tdb.db, {
      tasks: 3,
      attemptsPerTask: 1,
      agents: [{ harness: 'oracle', model: 'm' }],
    });
    expect((await infosOf([other.runId])).length).toBe(1);
    await tdb.db.run.delete({ where: { id: other.runId } });
    const left = await tdb.db.$queryRaw<{ n: number }[]>`
      SELECT count(*)::int AS n FROM agent_harness_infos WHERE run_id = ${other.runId}::uuid`;
    expect(left[0]?.n).toBe(0);
    await expectInfosMatch([run.runId]);
  });
});
