// Paired comparisons through the API and the CLI on a real server and database: two agents of
// one run, one agent of each of two runs, and the refusals (another benchmark, another pass
// threshold, unknown agents, a run of another workspace). Attempts are seeded directly.
//
// Reference values of the `duo` run, worked by hand: 8 tasks, one attempt each.
//   A passes t0–t5, B passes t0–t2 and t6 → pass@1 A = 6/8, B = 4/8, difference 0.25;
//   A better on t3, t4, t5 (wins 3), B better on t6 (losses 1), ties t0–t2, t7 (4).
//   McNemar's exact test: 2 · P(X ≤ 1), X ~ Binomial(4, 1/2) = 2 · (1 + 4) / 16 = 0.625.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type SeededMember, startTestApi, type TestApi } from '@osmosis/api/testing';
import { fakeIO } from '@osmosis/cli/testing';
import { CliObjectEnvelope, RunCompareResponse } from '@osmosis/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBenchmarkCli } from './helpers/cli-runner.ts';
import { seedBenchmark, seedRun } from './results-seed.ts';

let api: TestApi;
let owner: SeededMember;
let stranger: SeededMember;
let configDir: string;

const passesA = new Set([0, 1, 2, 3, 4, 5]);
const passesB = new Set([0, 1, 2, 6]);

beforeAll(async () => {
  api = await startTestApi();
  owner = await api.seedWorkspace();
  stranger = await api.seedWorkspace();
  configDir = mkdtempSync(path.join(os.tmpdir(), 'osmosis-compare-cli-'));
  const bench = await seedBenchmark(api.db, owner.workspaceId, 8, 'sample');
  const common = {
    workspaceId: owner.workspaceId,
    userId: owner.userId,
    benchmarkId: bench.benchmarkId,
    tasks: 8,
    attemptsPerTask: 1,
  };
  await seedRun(api.db, {
    ...common,
    runName: 'duo',
    agents: [
      { harness: 'terminus-2', model: 'openai/a' },
      { harness: 'terminus-2', model: 'openai/b' },
    ],
    attempt: (agent, task) => ({
      outcome: (agent === 0 ? passesA : passesB).has(task) ? 'passed' : 'failed',
    }),
  });
  await seedRun(api.db, {
    ...common,
    runName: 'solo-a',
    agents: [{ harness: 'codex', model: 'openai/a' }],
    attempt: (_agent, task) => ({ outcome: passesA.has(task) ? 'passed' : 'failed' }),
  });
  // two attempts per task, one unscored task (cancelled): paired on 7 tasks, sign-flip test
  await seedRun(api.db, {
    ...common,
    runName: 'solo-b',
    attemptsPerTask: 2,
    agents: [{ harness: 'codex', model: 'openai/b' }],
    attempt: (_agent, task, index) => ({
      outcome: task === 7 ? 'cancelled' : passesB.has(task) || index === 1 ? 'passed' : 'failed',
    }),
  });
  // the same tasks as solo-a, but task 2 was another version when its attempts were planned
  const moved = await seedRun(api.db, {
    ...common,
    runName: 'solo-moved',
    agents: [{ harness: 'codex', model: 'openai/m' }],
  });
  await api.db.attempt.updateMany({
    where: { runId: moved.runId, taskId: moved.taskIds[2]! },
    data: { taskDigest: 'sha256:an-earlier-version' },
  });
  // task 7 cancelled on both sides: scored by neither, left out and counted
  await seedRun(api.db, {
    ...common,
    runName: 'unfinished-duo',
    agents: [
      { harness: 'terminus-2', model: 'openai/a' },
      { harness: 'terminus-2', model: 'openai/b' },
    ],
    attempt: (agent, task) => ({
      outcome: task === 7 ? 'cancelled' : (agent === 0 ? passesA : passesB).has(task) ? 'passed' : 'failed',
    }),
  });
  // 520 tasks, two attempts: A passes everything; B passes none of the even tasks (A − B = 1)
  // and one of two of the odd ones (A − B = ½)
  const wide = await seedBenchmark(api.db, owner.workspaceId, 520, 'wide');
  await seedRun(api.db, {
    workspaceId: owner.workspaceId,
    userId: owner.userId,
    benchmarkId: wide.benchmarkId,
    tasks: 520,
    attemptsPerTask: 2,
    runName: 'wide-duo',
    agents: [
      { harness: 'terminus-2', model: 'openai/a' },
      { harness: 'terminus-2', model: 'openai/b' },
    ],
    attempt: (agent, task, index) => ({
      outcome: agent === 0 || (task % 2 === 1 && index === 0) ? 'passed' : 'failed',
    }),
  });
  const lenient = await seedRun(api.db, {
    ...common,
    runName: 'lenient',
    agents: [{ harness: 'codex', model: 'openai/c' }],
  });
  await api.db.run.update({ where: { id: lenient.runId }, data: { passThreshold: 0.5 } });
  await seedRun(api.db, {
    workspaceId: owner.workspaceId,
    userId: owner.userId,
    benchmarkKey: 'another',
    tasks: 8,
    attemptsPerTask: 1,
    runName: 'elsewhere',
    agents: [{ harness: 'codex', model: 'openai/d' }],
  });
  await seedRun(api.db, {
    workspaceId: stranger.workspaceId,
    userId: stranger.userId,
    benchmarkKey: 'sample',
    tasks: 8,
    attemptsPerTask: 1,
    runName: 'foreign',
    agents: [{ harness: 'codex', model: 'openai/e' }],
  });
});

afterAll(async () => {
  await api?.close();
  rmSync(configDir, { recursive: true, force: true });
});

function compare(path: string, token = owner.token) {
  return api.request(`GET`, `/v1/runs/${path}`, { token });
}

describe('GET /v1/runs/:name/compare', () => {
  it('compares the first two agents of a run with the reference values', async () => {
    const res = await compare('duo/compare');
    expect(res.status).toBe(200);
    const c = RunCompareResponse.parse(res.body).data;
    expect(c.a).toMatchObject({ run_name: 'duo', agent_index: 0, model: 'openai/a' });
    expect(c.b).toMatchObject({ run_name: 'duo', agent_index: 1, model: 'openai/b' });
    expect(c).toMatchObject({ tasks: 8, excluded: 0, wins: 3, losses: 1, ties: 4, benchmark_key: 'sample' });
    expect(c.pass_at_1_a).toBeCloseTo(0.75, 12);
    expect(c.pass_at_1_b).toBeCloseTo(0.5, 12);
    expect(c.difference).toBeCloseTo(0.25, 12);
    expect(c.p_value_method).toBe('mcnemar_exact');
    expect(c.p_value).toBeCloseTo(0.625, 12);
    expect(c.interval.low).toBeLessThanOrEqual(c.difference);
    expect(c.interval.high).toBeGreaterThanOrEqual(c.difference);
    expect(c.differing_tasks.map((t) => t.task).sort()).toEqual([
      'task-00003',
      'task-00004',
      'task-00005',
      'task-00006',
    ]);
    expect(c.differing_tasks.find((t) => t.task === 'task-00006')).toEqual({
      task: 'task-00006',
      a: { passed: 0, scored: 1 },
      b: { passed: 1, scored: 1 },
      difference: -1,
    });
    // the same data gives the same interval
    const again = RunCompareResponse.parse((await compare('duo/compare')).body).data;
    expect(again.interval).toEqual(c.interval);
  });

  it('selects agents by index, model or label, in either order', async () => {
    const swapped = RunCompareResponse.parse(
      (await compare(`duo/compare?agents=${encodeURIComponent('openai/b,openai/a (terminus-2)')}`)).body,
    ).data;
    expect(swapped.a.agent_index).toBe(1);
    expect(swapped.difference).toBeCloseTo(-0.25, 12);
    expect([swapped.wins, swapped.losses]).toEqual([1, 3]);
  });

  it('compares one agent of each of two runs on the same benchmark', async () => {
    const res = await compare('solo-a/compare?other=solo-b');
    expect(res.status).toBe(200);
    const c = RunCompareResponse.parse(res.body).data;
    expect(c.a.run_name).toBe('solo-a');
    expect(c.b.run_name).toBe('solo-b');
    // task 7 has no scored attempt in solo-b: left out of the pairing
    expect(c).toMatchObject({ tasks: 7, excluded: 1 });
    // solo-b passes t0–t2 and t6 twice, the others once in two: rates 1 or 0.5
    // A − B per task: 0,0,0, +0.5,+0.5,+0.5, −1 → mean 0.5/7
    expect(c.difference).toBeCloseTo(0.5 / 7, 12);
    expect(c.p_value_method).toBe('sign_flip_exact');
    // every sign pattern of (½, ½, ½, −1) sums to ±½ or further from 0 (±½·odd ± 1 is never
    // inside (−½, ½)), so all 16 are as extreme as the observed ½: p = 1
    expect(c.p_value).toBe(1);
  });

  it('refuses another benchmark and another pass threshold, naming what differs', async () => {
    const bench = await compare('solo-a/compare?other=elsewhere');
    expect(bench.status).toBe(409);
    expect(bench.body.error.code).toBe('CONFLICT');
    expect(bench.body.error.message).toMatch(/different benchmarks \(sample and another\)/);
    expect(bench.body.error.details.reason).toBe('different_benchmarks');
    const threshold = await compare('solo-a/compare?other=lenient');
    expect(threshold.status).toBe(409);
    expect(threshold.body.error.message).toMatch(/different pass thresholds \(1 and 0\.5\)/);
    expect(threshold.body.error.details.reason).toBe('different_pass_thresholds');
  });

  it('refuses two runs whose task was another version when planned, naming the task (409)', async () => {
    const res = await compare('solo-a/compare?other=solo-moved');
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('CONFLICT');
    expect(res.body.error.message).toMatch(
      /^1 task\(s\) changed between the two sides \(different task digests\): task-00002$/,
    );
    expect(res.body.error.details.reason).toBe('different_task_digests');
    expect(res.body.error.details.tasks).toEqual([
      { task: 'task-00002', a: expect.any(String), b: 'sha256:an-earlier-version' },
    ]);
  });

  it('counts the tasks neither agent has scored among those left out', async () => {
    const c = RunCompareResponse.parse((await compare('unfinished-duo/compare')).body).data;
    // t7 was A's loss-free tie in duo; without it: A better on t3–t5, B on t6, ties t0–t2
    expect(c).toMatchObject({ tasks: 7, excluded: 1, wins: 3, losses: 1, ties: 3 });
    expect(c.difference).toBeCloseTo(2 / 7, 12);
  });

  it('lists the 500 largest differences first, by name within a difference, and says the list is cut', async () => {
    const c = RunCompareResponse.parse((await compare('wide-duo/compare')).body).data;
    expect(c).toMatchObject({ tasks: 520, excluded: 0, wins: 520, losses: 0, ties: 0 });
    expect(c.difference).toBeCloseTo(0.75, 12);
    // two distinct differences: the sign patterns are enumerated exactly by their counts
    expect(c.p_value_method).toBe('sign_flip_exact');
    // every sign pattern but the two all-same ones is closer to 0
    expect(c.p_value).toBeLessThan(0.001);
    expect(c.interval.method).toBe('sign_flip_inversion');
    expect(c.interval.low).toBeLessThan(0.75);
    expect(c.interval.high).toBeGreaterThan(0.75);
    expect(c.interval.low).toBeGreaterThan(0.7);
    expect(c.differing_tasks).toHaveLength(500);
    expect(c.differing_tasks_truncated).toBe(true);
    const even = Array.from({ length: 260 }, (_, i) => `task-${String(2 * i).padStart(5, '0')}`);
    const odd = Array.from({ length: 240 }, (_, i) => `task-${String(2 * i + 1).padStart(5, '0')}`);
    expect(c.differing_tasks.map((t) => t.task)).toEqual([...even, ...odd]);
    expect(c.differing_tasks[0]).toEqual({
      task: 'task-00000',
      a: { passed: 2, scored: 2 },
      b: { passed: 0, scored: 2 },
      difference: 1,
    });
    expect(c.differing_tasks[260]?.difference).toBe(0.5);
  });

  it('refuses unknown, repeated or ambiguous agent choices with the field named', async () => {
    const unknown = await compare('duo/compare?agents=0,7');
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.code).toBe('VALIDATION_ERROR');
    expect(unknown.body.error.message).toContain('run duo has no agent "7"');
    expect(unknown.body.error.message).toContain('1 = openai/b (terminus-2)');
    expect(unknown.body.error.details.issues[0].path).toBe('query.agents');
    const same = await compare('duo/compare?agents=0,openai/a');
    expect(same.status).toBe(400);
    expect(same.body.error.message).toMatch(/same agent is named twice/);
    const one = await compare('duo/compare?agents=0');
    expect(one.status).toBe(400);
    const alone = await compare('solo-a/compare');
    expect(alone.status).toBe(400);
    expect(alone.body.error.message).toMatch(/has 1 agent\(s\): name another run/);
    const which = await compare('duo/compare?other=solo-a');
    expect(which.status).toBe(400);
    expect(which.body.error.message).toMatch(/run duo has 2 agents: name the two to compare/);
    // a harness name picks an agent when it is the only one on that harness
    const byHarness = await compare('duo/compare?other=solo-a&agents=openai/b,codex');
    expect(byHarness.status).toBe(200);
    expect(byHarness.body.data.b).toMatchObject({ run_name: 'solo-a', harness: 'codex' });
    const shared = await compare('duo/compare?agents=terminus-2,1');
    expect(shared.status).toBe(400);
    expect(shared.body.error.message).toContain('"terminus-2" names 2 agents of run duo; use the index');
    // no message suggests the API's query syntax
    for (const res of [unknown, same, one, alone, which, shared])
      expect(res.body.error.message).not.toMatch(/agents=|other=/);
    const picked = await compare('duo/compare?other=solo-a&agents=1,0');
    expect(picked.status).toBe(200);
    expect(picked.body.data.b.run_name).toBe('solo-a');
  });

  it("does not reveal another workspace's run (404), on either side", async () => {
    expect((await compare('foreign/compare')).status).toBe(404);
    expect((await compare('duo/compare?other=foreign&agents=0,0')).status).toBe(404);
    expect((await compare('foreign/compare', stranger.token)).status).toBe(400);
    expect((await compare('foreign/compare?other=duo&agents=0,0', stranger.token)).status).toBe(404);
  });
});

async function cli(argv: string[]) {
  const io = fakeIO({
    env: { OSMOSIS_CONFIG_DIR: configDir, OSMOSIS_TOKEN: owner.token, OSMOSIS_PLATFORM_URL: api.url },
    stdin: '',
  });
  return runBenchmarkCli(io, argv);
}

describe('osmosis benchmark runs compare (real API)', () => {
  it('prints the comparison and the tasks where the two differ', async () => {
    const res = await cli(['--plain', 'benchmark', 'runs', 'compare', 'duo']);
    expect(res.code).toBe(0);
    expect(res.out).toMatch(/A\s+openai\/a \(terminus-2\) — agent 0 of run duo/);
    expect(res.out).toMatch(/Pass@1\s+A 75\.0%, B 50\.0%/);
    expect(res.out).toMatch(/Difference\s+\+25\.0 pp \(A − B\)/);
    expect(res.out).toMatch(
      /95% CI\s+-33\.3 to \+100\.0 pp \(exact: the differences the paired sign-flip test does not reject, 8 paired tasks\)/,
    );
    expect(res.out).toMatch(/p-value\s+0\.6250 \(McNemar's exact test\)/);
    expect(res.out).toMatch(/A better on 3, B better on 1, tied on 4/);
    expect(res.out).toContain('Tasks where the two differ (4)');
    expect(res.out).toMatch(/task-00006\s+0\/1\s+1\/1\s+-100\.0 pp/);
    expect(res.out).not.toContain('task-00007');
    // --plain: no colour codes
    expect(res.out).not.toContain('\u001b[');
  });

  it('--json prints the envelope with the API data; OTHER_RUN and --agents pick the sides', async () => {
    const res = await cli(['--json', 'benchmark', 'runs', 'compare', 'duo', 'solo-a', '--agents', '1,0']);
    expect(res.code).toBe(0);
    // one JSON document (the envelope every object command prints)
    const env = CliObjectEnvelope.parse(JSON.parse(res.out));
    const c = RunCompareResponse.shape.data.parse(env.data);
    expect(c.a).toMatchObject({ run_name: 'duo', agent_index: 1 });
    expect(c.b).toMatchObject({ run_name: 'solo-a', agent_index: 0 });
    expect(c.difference).toBeCloseTo(-0.25, 12);
  });

  it('--agents takes harness names; a bad choice says how to fix it with the flag', async () => {
    const ok = await cli(['--json', 'benchmark', 'runs', 'compare', 'duo', 'solo-a', '--agents', '1,codex']);
    expect(ok.code).toBe(0);
    expect(CliObjectEnvelope.parse(JSON.parse(ok.out)).data).toMatchObject({ b: { harness: 'codex' } });
    const bad = await cli(['benchmark', 'runs', 'compare', 'duo', '--agents', '0,claude-code']);
    expect(bad.error?.code).toBe('VALIDATION_ERROR');
    expect(bad.error?.message).toContain('run duo has no agent "claude-code"');
    expect(bad.error?.hint).toContain('--agents A,B');
    expect(`${bad.error?.message} ${bad.error?.hint}`).not.toMatch(/agents=|other=/);
  });

  it('fails with the API message when the runs cannot be compared', async () => {
    const res = await cli(['benchmark', 'runs', 'compare', 'solo-a', 'elsewhere']);
    expect(res.error?.code).toBe('CONFLICT');
    expect(res.error?.message).toMatch(/different benchmarks/);
  });
});
