// The SQL aggregations (packages/db/src/queries/results.ts) fed to the pure scorers give exactly
// what the pure scorers give on the raw attempts, on a run with uneven attempts, every outcome,
// unknown costs and several agents.

import { bestPassAt1ByRun, findRunForResults, loadRunResults, resultsInput } from '@osmosis/api/testing';
import type { TaskBucket, UsageSums } from '@osmosis/contracts';
import { bucketsFromTasks, buildRunResults, emptyCounts, emptyUsageSums } from '@osmosis/core';
import { agentAggregates, runOutcomeCounts, taskBuckets } from '@osmosis/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from './helpers/db.ts';
import { type Outcome, type SeededRun, type SyntheticAttempt, seedRun } from './results-seed.ts';

function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The run as results.csv reads it: its id and its agents in index order. */
const rowsOf = (run: SeededRun) => ({
  id: run.runId,
  benchmarkId: run.benchmarkId,
  agents: run.agentIds.map((id, index) => ({ id, index })),
});

let tdb: TestDatabase;
let seeded: SeededRun;

beforeAll(async () => {
  tdb = await createTestDatabase();
  const r = rng(11);
  const skill = [0.8, 0.5, 0.2];
  seeded = await seedRun(tdb.db, {
    tasks: 40,
    attemptsPerTask: 3,
    status: 'stopped',
    agents: [
      { harness: 'terminus-2', model: 'openai/a' },
      { harness: 'terminus-2', model: 'openai/b' },
      { harness: 'nop', model: 'none' },
    ],
    attempt: (agent, task): Partial<SyntheticAttempt> => {
      const u = r();
      let outcome: Outcome;
      if (u < 0.06) outcome = 'cancelled';
      else if (u < 0.1) outcome = 'errored';
      else if (u < 0.13)
        outcome = null; // never finished
      else outcome = r() < (skill[agent] as number) * (task % 4 === 0 ? 0.3 : 1) ? 'passed' : 'failed';
      return {
        outcome,
        cost_usd: agent === 2 ? null : r() < 0.2 ? null : Math.round(r() * 1000) / 10_000,
        input_tokens: agent === 2 ? null : Math.floor(r() * 5000),
        output_tokens: agent === 2 ? null : Math.floor(r() * 500),
        cache_tokens: agent === 2 ? null : Math.floor(r() * 100),
        env_ms: Math.floor(r() * 1000),
        agent_ms: r() < 0.1 ? null : Math.floor(r() * 60_000),
        verifier_ms: Math.floor(r() * 3000),
        judge_cost_usd: null,
      };
    },
  });
});

afterAll(async () => {
  await tdb?.drop();
});

/** The same quantities straight from the attempt list, in JS. */
function reference(agent: number) {
  const mine = seeded.attempts.filter((a) => a.agent === agent);
  const perTask = new Map<number, { scored: number; passed: number }>();
  for (const a of mine) {
    const t = perTask.get(a.task) ?? { scored: 0, passed: 0 };
    if (a.outcome === 'passed' || a.outcome === 'failed' || a.outcome === 'errored') t.scored++;
    if (a.outcome === 'passed') t.passed++;
    perTask.set(a.task, t);
  }
  const buckets: TaskBucket[] = bucketsFromTasks([...perTask.values()]);
  const usage = (list: typeof mine): UsageSums => {
    const s = emptyUsageSums();
    for (const a of list) {
      if (a.cost_usd !== null) {
        s.cost_usd += a.cost_usd;
        s.cost_n++;
      }
      const phases = [a.env_ms, a.agent_ms, a.verifier_ms].filter((x): x is number => x !== null);
      if (phases.length) {
        s.time_ms += phases.reduce((x, y) => x + y, 0);
        s.time_n++;
      }
      if (a.input_tokens !== null || a.output_tokens !== null) {
        s.tokens += (a.input_tokens ?? 0) + (a.output_tokens ?? 0);
        s.tokens_n++;
      }
      s.input_tokens += a.input_tokens ?? 0;
      s.output_tokens += a.output_tokens ?? 0;
      s.cache_tokens += a.cache_tokens ?? 0;
    }
    return s;
  };
  const scored = mine.filter(
    (a) => a.outcome === 'passed' || a.outcome === 'failed' || a.outcome === 'errored',
  );
  const counts = emptyCounts();
  for (const a of mine) {
    counts.total++;
    if (a.outcome === null) counts.pending++;
    else counts[a.outcome]++;
  }
  return { buckets, scored_usage: usage(scored), all_usage: usage(mine), counts };
}

describe('results aggregations (SQL) vs the pure scorers on raw attempts', () => {
  it('task buckets equal the per-task histogram', async () => {
    const sql = await taskBuckets(tdb.db, { runIds: [seeded.runId] });
    for (const [i, id] of seeded.agentIds.entries()) {
      expect(sql.get(id)).toEqual(reference(i).buckets);
    }
  });

  it('counts and usage sums match', async () => {
    const sql = await agentAggregates(tdb.db, { runIds: [seeded.runId] });
    for (const [i, id] of seeded.agentIds.entries()) {
      const ref = reference(i);
      const row = sql.get(id);
      expect(row?.counts).toEqual(ref.counts);
      for (const key of Object.keys(ref.all_usage) as (keyof UsageSums)[]) {
        expect(row?.all_usage[key]).toBeCloseTo(ref.all_usage[key], 9);
        expect(row?.scored_usage[key]).toBeCloseTo(ref.scored_usage[key], 9);
      }
    }
  });

  it('loadRunResults equals buildRunResults on the raw attempts', async () => {
    const run = await findRunForResults(tdb.db, seeded.workspaceId, seeded.runName);
    if (!run) throw new Error('run not found');
    const now = new Date();
    const fromSql = await loadRunResults(tdb.db, run, now);
    const pending = seeded.attempts.filter((a) => a.outcome === null).length;
    const fromJs = buildRunResults(
      {
        // the run's own input, with the aggregates computed in JS from the raw attempts
        ...resultsInput(run, [], now),
        aggregates: seeded.agentIds.map((id, i) => ({ agent_id: id, ...reference(i) })),
      },
      { running: pending, queued: 0 },
    );
    // float sums differ in the last bits between SQL and JS: compare through JSON with rounding
    const round = (v: unknown): unknown =>
      JSON.parse(JSON.stringify(v, (_k, x) => (typeof x === 'number' ? Number(x.toPrecision(10)) : x)));
    // the scores beside pass@1 (services/quality.ts) come from other rows: compared elsewhere
    // (test/results-comparability.test.ts)
    const scoresOnly = (r: typeof fromSql) => ({
      ...r,
      agents: r.agents.map(
        ({ comparability: _c, calibration_error: _e, mean_score: _m, grader: _g, ...a }) => a,
      ),
    });
    expect(round(scoresOnly(fromSql))).toEqual(round(fromJs));
    // sanity: the strongest agent ranks first, the nop agent calls no model: $0
    expect(fromSql.agents[0]?.model).toBe('openai/a');
    expect(fromSql.agents.find((a) => a.harness === 'nop')?.per_task.cost_usd).toBe(0);
    expect(fromSql.interval_method).toBe('wilson-clustered');
    expect(fromSql.totals.cancelled).toBe(seeded.attempts.filter((a) => a.outcome === 'cancelled').length);
  });

  it('runOutcomeCounts and bestPassAt1ByRun', async () => {
    const c = await runOutcomeCounts(tdb.db, seeded.runId);
    expect(c.total).toBe(seeded.attempts.length);
    expect(c.running).toBe(seeded.attempts.filter((a) => a.outcome === null).length);
    const best = await bestPassAt1ByRun(tdb.db, [seeded.runId]);
    const run = await findRunForResults(tdb.db, seeded.workspaceId, seeded.runName);
    const res = await loadRunResults(tdb.db, run as NonNullable<typeof run>);
    expect(best.get(seeded.runId)).toBeCloseTo(Math.max(...res.agents.map((a) => a.pass_at_1 ?? 0)), 12);
  });

  it('an as-of snapshot hides outcomes recorded later', async () => {
    const before = new Date(Date.now() - 10 * 60_000);
    const sql = await agentAggregates(tdb.db, { runIds: [seeded.runId], asOf: before });
    for (const row of sql.values()) {
      expect(row.counts.passed + row.counts.failed + row.counts.errored).toBe(0);
      expect(row.buckets).toEqual([]);
      expect(row.all_usage.cost_n).toBe(0);
    }
  });
});

describe('results.csv built in SQL', () => {
  it('equals the same rows formatted by csvLine in JS (quoting, nulls, numbers, times)', async () => {
    const { csvLine, RESULTS_COLUMNS, resultsCsv } = await import('@osmosis/api/testing');
    const { resultRowsPage } = await import('@osmosis/db');
    const DIGEST = `sha256:${'ab'.repeat(32)}`;
    const tricky = await seedRun(tdb.db, {
      tasks: 3,
      attemptsPerTask: 2,
      agents: [
        { harness: 'a,b', model: 'say "hi"' },
        { harness: ' padded', model: 'multi\nline' },
      ],
      attempt: (agent, task, index) => ({
        outcome: index === 1 && task === 2 ? null : agent === 0 ? 'passed' : 'errored',
        cost_usd: agent === 0 ? 0.1 + 0.2 : null,
        input_tokens: 123,
        env_ms: task === 0 ? null : 10,
        agent_ms: 2000,
      }),
    });
    await tdb.db.attempt.updateMany({
      where: { runId: tricky.runId, outcome: 'errored' },
      data: { errorClass: 'provider, "timeout"' },
    });
    // a multi-step attempt among single-step ones
    const [multi] = tricky.attempts.filter((a) => a.outcome === 'passed');
    await tdb.db.attempt.update({
      where: { id: multi?.id },
      data: {
        steps: [step('one, "first"', 'passed', 1, 1200, 300), step('two', 'failed', 0.5, null, 40)],
        imageInfo: { reference: 'docker.io/library/x:1', digest: DIGEST, pulled: true },
      },
    });
    const rows = await resultRowsPage(tdb.db, tricky.runId, null, 1000);
    const js =
      csvLine([...RESULTS_COLUMNS]) +
      rows
        .map((r) => {
          const phases = [r.env_ms, r.agent_setup_ms, r.agent_ms, r.verifier_ms];
          const total = phases.every((p) => p === null)
            ? null
            : phases.reduce<number>((s, p) => s + (p ?? 0), 0);
          return csvLine([
            r.id,
            r.agent_index,
            r.harness,
            r.model,
            r.task_name,
            r.category,
            r.difficulty,
            r.attempt_index,
            r.try_count,
            r.status,
            r.outcome,
            r.reward,
            r.error_class,
            r.cost_usd,
            r.judge_cost_usd,
            r.input_tokens,
            r.output_tokens,
            r.cache_tokens,
            r.env_ms,
            r.agent_setup_ms,
            r.agent_ms,
            r.verifier_ms,
            total,
            r.agent_exit_code,
            r.agent_timed_out,
            r.started_at,
            r.finished_at,
            stepsCell(r.steps),
            r.id === multi?.id ? DIGEST : null,
            null, // reused_from: every attempt here ran in its run
          ]);
        })
        .join('');
    const sql = (await resultsCsv(tdb.db, rowsOf(tricky), null)).toString();
    expect(sql).toBe(js);
    expect(sql).toContain('"a,b","say ""hi"""');
    expect(sql).toContain('," padded",');
    // JSON in a CSV field: quoted, its quotes doubled
    expect(sql).toContain(',"[{""name"":""one, \\""first\\"""",""reward"":1,');
  });

  it("a multi-step attempt's row has its steps as JSON; single-step rows leave the column empty", async () => {
    const { RESULTS_COLUMNS, resultsCsv } = await import('@osmosis/api/testing');
    // finished a minute from now: a snapshot taken now has them unfinished
    const finishedAt = new Date(Date.now() + 60_000);
    const run = await seedRun(tdb.db, {
      tasks: 3,
      attemptsPerTask: 1,
      agents: [{ harness: 'oracle', model: 'm' }],
      attempt: () => ({ finished_at: finishedAt }),
    });
    const [multi, single, odd] = run.attempts;
    // step names are the task author's text: a comma, quotes, a line break, a backslash
    const hostile = 'fix, "then"\nrun \\ =1+1';
    await tdb.db.attempt.update({
      where: { id: multi?.id },
      data: {
        steps: [
          step('scaffold', 'passed', 1, 1500, 250),
          step(hostile, 'failed', 0, 800, null),
          step('deploy', 'skipped', null, null, null),
        ],
      },
    });
    // a value of the wrong shape (not the worker's) gives nulls in the JSON, never broken CSV
    await tdb.db.attempt.update({
      where: { id: odd?.id },
      data: { steps: [{ name: 7, reward: 'high', outcome: ['x'], agent_ms: '5', verifier_ms: 3 }, 'junk'] },
    });
    const table = parseCsv((await resultsCsv(tdb.db, rowsOf(run), null)).toString());
    expect(table[0]).toEqual([...RESULTS_COLUMNS]);
    const stepsAt = RESULTS_COLUMNS.indexOf('steps');
    expect(table[0]?.[stepsAt]).toBe('steps');
    expect(table).toHaveLength(4);
    expect(table.slice(1).every((row) => row.length === RESULTS_COLUMNS.length)).toBe(true);
    const byId = new Map(table.slice(1).map((row) => [row[0], row]));
    expect(JSON.parse(byId.get(multi?.id)?.[stepsAt] ?? '')).toEqual([
      { name: 'scaffold', reward: 1, outcome: 'passed', duration_ms: 1750 },
      { name: hostile, reward: 0, outcome: 'failed', duration_ms: 800 },
      { name: 'deploy', reward: null, outcome: 'skipped', duration_ms: null },
    ]);
    expect(byId.get(single?.id)?.[stepsAt]).toBe('');
    expect(JSON.parse(byId.get(odd?.id)?.[stepsAt] ?? '')).toEqual([
      { name: null, reward: null, outcome: null, duration_ms: 3 },
      { name: null, reward: null, outcome: null, duration_ms: null },
    ]);
    // a snapshot from before the attempt finished shows no steps yet
    const before = parseCsv((await resultsCsv(tdb.db, rowsOf(run), new Date())).toString());
    expect(before.slice(1).map((row) => [row[9], row[stepsAt]])).toEqual([
      ['pending', ''],
      ['pending', ''],
      ['pending', ''],
    ]);
  });
});

/** One stored AttemptStepResult. */
function step(
  name: string,
  outcome: 'passed' | 'failed' | 'errored' | 'skipped',
  reward: number | null,
  agentMs: number | null,
  verifierMs: number | null,
) {
  return {
    name,
    outcome,
    reward,
    rewards: reward === null ? null : { reward },
    error_class: null,
    error_message: null,
    agent_ms: agentMs,
    verifier_ms: verifierMs,
    agent_exit_code: agentMs === null ? null : 0,
    agent_timed_out: agentMs === null ? null : false,
  };
}

/** The `steps` cell as docs/downloads.md describes it, built in JS from the stored steps. */
function stepsCell(steps: unknown): string | null {
  if (!Array.isArray(steps)) return null;
  return JSON.stringify(
    steps.map((s: ReturnType<typeof step>) => ({
      name: s.name,
      reward: s.reward,
      outcome: s.outcome,
      duration_ms:
        s.agent_ms === null && s.verifier_ms === null ? null : (s.agent_ms ?? 0) + (s.verifier_ms ?? 0),
    })),
  );
}

/** RFC 4180 records (quoted fields may hold commas, doubled quotes and line breaks). */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\n') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
    } else field += c;
  }
  expect(quoted).toBe(false);
  expect(field).toBe('');
  return rows;
}
