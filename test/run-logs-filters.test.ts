// `runs logs` does what its help says, on a real API and database: within a page oldest first by
// timestamp (ties by id) with the newest page first; task, agent and level filters on the server;
// --follow prints new events from the stream until the run ends; `submit --follow`'s live
// warnings name their task and agent, and its progress bar fits the terminal (COLUMNS).
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type SeededMember, startTestApi, type TestApi } from '@osmosis/api/testing';
import { ApiClient, buildContext, fakeIO, stripAnsi, watchRun } from '@osmosis/cli/testing';
import { RunEventsResponse } from '@osmosis/contracts';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runBenchmarkCli } from './helpers/cli-runner.ts';
import { type SeededRun, seedRun } from './results-seed.ts';

vi.setConfig({ testTimeout: 120_000 });

let api: TestApi;
let owner: SeededMember;
let run: SeededRun;
let live: SeededRun;
let configDir: string;
const T0 = Date.parse('2026-12-05T10:00:00.000Z');

function attemptOf(r: SeededRun, agent: number, task: number) {
  return r.attempts.find((a) => a.agent === agent && a.task === task && a.index === 0)!.id;
}

beforeAll(async () => {
  api = await startTestApi();
  owner = await api.seedWorkspace();
  configDir = mkdtempSync(path.join(os.tmpdir(), 'osmosis-logs-filters-'));
  const common = { workspaceId: owner.workspaceId, userId: owner.userId, tasks: 2, attemptsPerTask: 1 };
  const agents = [
    { harness: 'oracle', model: 'oracle' },
    { harness: 'nop', model: 'none' },
  ];
  run = await seedRun(api.db, { ...common, runName: 'logged', agents });
  live = await seedRun(api.db, {
    ...common,
    runName: 'live',
    agents,
    status: 'running',
    attempt: () => ({ outcome: null }),
  });
  // created one by one (ids in this order); stamps not in id order, two equal
  const rows: [number, string | null, string, string][] = [
    [5, null, 'info', 'e1 run started'],
    [1, attemptOf(run, 0, 0), 'info', 'e2 oracle task 0'],
    [3, attemptOf(run, 1, 0), 'warn', 'e3 nop task 0 warn'],
    [3, attemptOf(run, 1, 1), 'error', 'e4 nop task 1 error'],
    [2, attemptOf(run, 0, 1), 'debug', 'e5 oracle task 1 debug'],
    [9, attemptOf(run, 1, 1), 'info', 'e6 nop task 1 info'],
  ];
  for (const [second, attemptId, level, message] of rows) {
    await api.db.runEvent.create({
      data: {
        runId: run.runId,
        attemptId,
        level,
        step: 'attempt',
        message,
        timestamp: new Date(T0 + second * 1000),
      },
    });
  }
});

afterAll(async () => {
  await api?.close();
  rmSync(configDir, { recursive: true, force: true });
});

async function events(query: string) {
  const res = await api.request('GET', `/v1/runs/logged/events${query}`, { token: owner.token });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return RunEventsResponse.parse(res.body);
}

async function cli(argv: string[]) {
  const io = fakeIO({
    env: { OSMOSIS_CONFIG_DIR: configDir, OSMOSIS_TOKEN: owner.token, OSMOSIS_PLATFORM_URL: api.url },
    stdin: '',
  });
  return runBenchmarkCli(io, argv);
}

const tag = (m: string) => m.split(' ')[0];

describe('GET /v1/runs/:name/events', () => {
  it('oldest first within a page by timestamp, ties by id; the newest page first, next_cursor pages back', async () => {
    const all = await events('');
    expect(all.items.map((e) => tag(e.message))).toEqual(['e2', 'e5', 'e3', 'e4', 'e1', 'e6']);
    const newest = await events('?limit=3');
    // the three most recently recorded (e4, e5, e6), ordered by their stamps
    expect(newest.items.map((e) => tag(e.message))).toEqual(['e5', 'e4', 'e6']);
    const older = await events(`?limit=3&cursor=${newest.next_cursor}`);
    expect(older.items.map((e) => tag(e.message))).toEqual(['e2', 'e3', 'e1']);
    expect(older).toMatchObject({ has_more: false, next_cursor: null });
  });

  it('filters by task, agent and lowest level on the server', async () => {
    const task1 = await events('?task=task-00001');
    expect(task1.items.map((e) => tag(e.message))).toEqual(['e5', 'e4', 'e6']);
    expect(task1.total_count).toBe(3);
    const nop = await events('?agent=nop');
    expect(nop.items.map((e) => tag(e.message))).toEqual(['e3', 'e4', 'e6']);
    expect((await events('?agent=1&task=task-00000')).items.map((e) => tag(e.message))).toEqual(['e3']);
    expect((await events('?level=warn')).items.map((e) => tag(e.message))).toEqual(['e3', 'e4']);
    expect((await events('?level=info')).items.map((e) => tag(e.message))).not.toContain('e5');
    const paged = await events('?agent=nop&limit=2');
    const rest = await events(`?agent=nop&limit=2&cursor=${paged.next_cursor}`);
    expect([...rest.items, ...paged.items].map((e) => tag(e.message)).sort()).toEqual(['e3', 'e4', 'e6']);
  });

  it('refuses unknown levels and control characters; an unknown agent or task is a 404 with suggestions', async () => {
    for (const [query, field] of [
      ['level=loud', 'query.level'],
      ['task=a%00b', 'query.task'],
      ['agent=%1b', 'query.agent'],
    ]) {
      const res = await api.request('GET', `/v1/runs/logged/events?${query}`, { token: owner.token });
      expect(res.status).toBe(400);
      expect(res.body.error.details.issues[0].path).toBe(field);
    }
    const agent = await api.request('GET', '/v1/runs/logged/events?agent=orcale', { token: owner.token });
    expect(agent.status).toBe(404);
    expect(agent.body.error.details.did_you_mean).toContain('oracle');
    const stranger = await api.seedWorkspace();
    expect((await api.request('GET', '/v1/runs/logged/events', { token: stranger.token })).status).toBe(404);
  });
});

describe('osmosis benchmark runs logs', () => {
  it('--task, --agent and --level filter the lines, each naming its attempt', async () => {
    const res = await cli(['benchmark', 'runs', 'logs', 'logged', '--agent', 'nop', '--level', 'warn']);
    expect(res.code).toBe(0);
    const lines = res.out.trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toContain('[task-00000 · agent 1 none (nop)');
    expect(lines[0]).toContain('e3 nop task 0 warn');
    expect(lines[1]).toContain('e4 nop task 1 error');
    const bad = await cli(['benchmark', 'runs', 'logs', 'logged', '--level', 'loud']);
    expect(bad.error?.code).toBe('USAGE_ERROR');
    expect(bad.error?.hint).toContain('debug, info, warn, error');
  });

  it('--follow prints the new events that pass the filters until the run ends', async () => {
    const following = cli(['benchmark', 'runs', 'logs', 'live', '--follow', '--agent', 'oracle']);
    // the stream is open once the page was printed and a first poll went by
    await new Promise((r) => setTimeout(r, 3000));
    await api.db.runEvent.create({
      data: {
        runId: live.runId,
        attemptId: attemptOf(live, 1, 0),
        level: 'warn',
        step: 'attempt',
        message: 'nop news',
      },
    });
    await api.db.runEvent.create({
      data: {
        runId: live.runId,
        attemptId: attemptOf(live, 0, 1),
        level: 'info',
        step: 'attempt',
        message: 'oracle news',
      },
    });
    await api.db.run.update({
      where: { id: live.runId },
      data: { status: 'finished', finishedAt: new Date() },
    });
    const res = await following;
    expect(res.code, res.err).toBe(0);
    expect(res.out).toContain('[task-00001 · agent 0 oracle (oracle)');
    expect(res.out).toContain('oracle news');
    expect(res.out).not.toContain('nop news');
  });
});

describe('submit --follow (watchRun)', () => {
  it('live warnings name their task and agent; the progress bar fits COLUMNS', async () => {
    await api.db.run.update({ where: { id: live.runId }, data: { status: 'running', finishedAt: null } });
    const io = fakeIO({
      env: { COLUMNS: '30', OSMOSIS_TOKEN: owner.token },
      stderrTTY: true,
      stdoutTTY: true,
    });
    const ctx = buildContext(io, { platform: api.url }, 'benchmark submit');
    const client = new ApiClient({ baseUrl: api.url, token: owner.token });
    const watching = watchRun(client, 'live', { ctx, printScores: false, intervalMs: 200 });
    await new Promise((r) => setTimeout(r, 2000));
    await api.db.runEvent.create({
      data: {
        runId: live.runId,
        attemptId: attemptOf(live, 1, 1),
        level: 'warn',
        step: 'agent',
        message: 'agent is slow',
      },
    });
    await new Promise((r) => setTimeout(r, 1000));
    await api.db.run.update({
      where: { id: live.runId },
      data: { status: 'finished', finishedAt: new Date() },
    });
    await watching;
    const err = stripAnsi(io.err());
    expect(err).toContain('warn [agent] [task-00001 · agent 1 none (nop)');
    expect(err).toContain('agent is slow');
    // the bar's redraws (a warning line is written after a clear too, and ends with a newline)
    const bars = err
      .split('\r\u001b[2K')
      .map((b) => b.split('\n')[0]!)
      .filter((b) => /[░█]/.test(b));
    expect(bars.length).toBeGreaterThan(0);
    for (const bar of bars) expect([...bar].length).toBeLessThanOrEqual(29);
  });
});
