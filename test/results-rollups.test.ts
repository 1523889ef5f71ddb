// The per-agent roll-ups that a trigger on attempts keeps (migration 20261205090000_results_rollups;
// logged and folded since 20261210090000_rollup_log) equal a count of the attempts themselves after every kind of write the platform makes: a bulk
// insert, single-attempt outcomes, a bulk cancel, a retry's reset, a delete of attempts and of a
// whole run. The count of the attempts is the snapshot path of the same queries (`asOf` in the
// future reads the attempts, not the roll-ups; it shows an attempt without finished_at as
// unfinished, so the data here finishes every attempt it gives an outcome).
import { agentAggregates, runOutcomeCounts, taskBuckets } from '@osmosis/db';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from './helpers/db.ts';
import { type SeededRun, seedRun } from './results-seed.ts';

let tdb: TestDatabase;
let run: SeededRun;

beforeAll(async () => {
  tdb = await createTestDatabase();
  run = await seedRun(tdb.db, {
    tasks: 12,
    attemptsPerTask: 3,
    status: 'running',
    agents: [
      { harness: 'terminus-2', model: 'a' },
      { harness: 'terminus-2', model: 'b' },
    ],
    // usage only on finished attempts: the snapshot path (the reference) hides it on the others
    attempt: (agent, task, index) =>
      (task + index + agent) % 5 === 0
        ? { outcome: null }
        : {
            outcome: (task + index) % 3 === 0 ? 'failed' : 'passed',
            cost_usd: task % 4 === 0 ? null : 0.001 * (task + 1),
            input_tokens: 100 * index,
            output_tokens: task % 3 === 0 ? null : 7,
            agent_ms: 1000 + task,
          },
  });
}, 120_000);

afterAll(async () => {
  await tdb?.drop();
});

/** The roll-ups and the count of the attempts, side by side. */
async function both(runIds: string[]) {
  const future = new Date(Date.now() + 3_600_000);
  const [aggRoll, aggRaw, bucketsRoll, bucketsRaw] = await Promise.all([
    agentAggregates(tdb.db, { runIds }),
    agentAggregates(tdb.db, { runIds, asOf: future }),
    taskBuckets(tdb.db, { runIds }),
    taskBuckets(tdb.db, { runIds, asOf: future }),
  ]);
  return { aggRoll, aggRaw, bucketsRoll, bucketsRaw };
}

async function expectRollupsMatch(runIds: string[]): Promise<void> {
  const { aggRoll, aggRaw, bucketsRoll, bucketsRaw } = await both(runIds);
  expect([...bucketsRoll.entries()].sort()).toEqual([...bucketsRaw.entries()].sort());
  expect([...aggRoll.keys()].sort()).toEqual([...aggRaw.keys()].sort());
  for (const [agent, raw] of aggRaw) {
    const roll = aggRoll.get(agent);
    expect(roll?.counts).toEqual(raw.counts);
    expect([roll?.running, roll?.queued]).toEqual([raw.running, raw.queued]);
    for (const key of Object.keys(raw.all_usage) as (keyof typeof raw.all_usage)[]) {
      expect(roll?.all_usage[key]).toBeCloseTo(raw.all_usage[key], 9);
      expect(roll?.scored_usage[key]).toBeCloseTo(raw.scored_usage[key], 9);
    }
  }
}

describe('roll-ups of attempts', () => {
  it('match the attempts after a bulk insert', async () => {
    await expectRollupsMatch([run.runId]);
    const counts = await runOutcomeCounts(tdb.db, run.runId);
    expect(counts.total).toBe(72);
    expect(counts.passed + counts.failed + counts.pending).toBe(72);
  });

  it('follow single outcomes, a bulk cancel, a reset and deletes', async () => {
    const [first, second] = run.attempts.filter((a) => a.outcome === null);
    // an attempt finishes; another one is leased (a write that changes nothing counted)
    await tdb.db.attempt.update({
      where: { id: first?.id },
      data: { status: 'finished', outcome: 'errored', costUsd: 0.25, verifierMs: 40, finishedAt: new Date() },
    });
    await tdb.db.attempt.update({ where: { id: second?.id }, data: { leaseExpiresAt: new Date() } });
    await expectRollupsMatch([run.runId]);
    // a passed attempt turns failed (a re-score), then a retry resets it
    const passed = run.attempts.find((a) => a.outcome === 'passed');
    await tdb.db.attempt.update({ where: { id: passed?.id }, data: { outcome: 'failed', reward: 0 } });
    await expectRollupsMatch([run.runId]);
    await tdb.db.attempt.update({
      where: { id: passed?.id },
      data: {
        outcome: null,
        status: 'queued',
        costUsd: null,
        inputTokens: null,
        outputTokens: null,
        agentMs: null,
        startedAt: null,
        finishedAt: null,
      },
    });
    await expectRollupsMatch([run.runId]);
    // stop: every unfinished attempt cancelled in one statement
    await tdb.db.attempt.updateMany({
      where: { runId: run.runId, outcome: null },
      data: { status: 'cancelled', outcome: 'cancelled', finishedAt: new Date() },
    });
    await expectRollupsMatch([run.runId]);
    // attempts deleted
    await tdb.db.attempt.deleteMany({ where: { runId: run.runId, taskId: run.taskIds[0] } });
    await expectRollupsMatch([run.runId]);
    expect((await runOutcomeCounts(tdb.db, run.runId)).total).toBe(72 - 6);
  });

  it('add up over the shards and the folds while many connections write at once (migrations 20261208090100, 20261210090000)', async () => {
    // more attempts than a statement logs (64): the seed's insert writes the roll-ups at once, in
    // its connection's shard
    const sharded = await seedRun(tdb.db, {
      tasks: 40,
      attemptsPerTask: 4,
      status: 'running',
      agents: [{ harness: 'terminus-2', model: 'sharded' }],
      attempt: () => ({ outcome: null }),
    });
    const ids = sharded.attempts.map((a) => a.id);
    // eight connections: each starts an eighth of the attempts and then finishes another
    // connection's eighth one by one (each result logged), while a ninth folds over and over,
    // both as the workers do (skipping while another folds) and as readers do (waiting)
    const clients = await Promise.all(
      Array.from({ length: 9 }, async () => {
        const client = new pg.Client({ connectionString: tdb.url });
        await client.connect();
        return client;
      }),
    );
    const folder = clients.pop()!;
    let writing = true;
    let folds = 0;
    const folding = (async () => {
      while (writing) {
        const r = await folder.query('SELECT "attempts_rollup_fold"($1) AS n', [folds % 2 === 0]);
        if (r.rows[0].n !== null) folds++;
      }
    })();
    try {
      const eighth = (i: number) => ids.filter((_, j) => j % 8 === i);
      await Promise.all(
        clients.map((c, i) =>
          c.query(`UPDATE attempts SET status = 'running', started_at = now() WHERE id = ANY($1::uuid[])`, [
            eighth(i),
          ]),
        ),
      );
      await Promise.all(
        clients.map(async (c, i) => {
          for (const [k, id] of eighth((i + 3) % 8).entries()) {
            await c.query(
              `UPDATE attempts SET status = 'finished', outcome = $2::"AttemptOutcome", reward = $3,
                 cost_usd = 0.01, agent_ms = 500, harness_info = $4::jsonb, finished_at = now() WHERE id = $1`,
              [id, k % 2 ? 'failed' : 'passed', k % 2 ? 0 : 1, JSON.stringify({ v: k % 3 })],
            );
          }
        }),
      );
    } finally {
      writing = false;
      await folding;
      await Promise.all([...clients, folder].map((c) => c.end()));
    }
    expect(folds).toBeGreaterThan(0);
    await expectRollupsMatch([sharded.runId]);
    const left = await tdb.db.$queryRaw<{ n: number }[]>`SELECT count(*)::int AS n FROM attempts_rollup_log`;
    expect(left[0]!.n).toBe(0);
    // the seed's shard and the folds' shard (16)
    const shards = await tdb.db.$queryRaw<{ shard: number }[]>`
      SELECT DISTINCT shard::int AS shard FROM agent_outcome_totals WHERE run_id = ${sharded.runId}::uuid ORDER BY 1`;
    expect(shards.length).toBeGreaterThan(1);
    expect(shards.at(-1)!.shard).toBe(16);
    // the harness infos' shards add up to the count of the attempts that carry each
    const infos = await tdb.db.$queryRaw<{ info: string; rolled: number; counted: number }[]>`
      SELECT r.info::text AS info, r.n AS rolled, c.n AS counted
      FROM (SELECT info, sum(n)::int AS n FROM agent_harness_infos
            WHERE run_id = ${sharded.runId}::uuid GROUP BY info_key, info) r
      FULL JOIN (SELECT harness_info AS info, count(*)::int AS n FROM attempts
            WHERE run_id = ${sharded.runId}::uuid AND status = 'finished' GROUP BY harness_info) c
        ON c.info = r.info`;
    expect(infos).toHaveLength(3);
    for (const row of infos) expect(row.rolled).toBe(row.counted);
  });

  it('go with a deleted run', async () => {
    const other = await seedRun(tdb.db, {
      tasks: 3,
      attemptsPerTask: 1,
      agents: [{ harness: 'oracle', model: 'm' }],
    });
    expect((await runOutcomeCounts(tdb.db, other.runId)).passed).toBe(3);
    await tdb.db.run.delete({ where: { id: other.runId } });
    const left = await tdb.db.$queryRaw<{ n: number }[]>`
      SELECT count(*)::int AS n FROM agent_outcome_totals WHERE run_id = ${other.runId}::uuid`;
    expect(left[0]?.n).toBe(0);
    expect((await runOutcomeCounts(tdb.db, other.runId)).total).toBe(0);
    await expectRollupsMatch([run.runId]);
  });
});
