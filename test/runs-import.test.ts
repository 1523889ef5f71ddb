// `runs import`: a Harbor job directory through POST /v1/runs/import on a real server and
// database. Hostile directories first (links out, absolute and `..` names, a huge and a deeply
// nested JSON, wrong types, trial folders named like paths, another workspace's benchmark), then
// a hand-made job of the bundled sample benchmark's tasks: its rewards, usage, logs and
// trajectory as stored, its badge, the leaderboard with and without imported runs, and a
// comparison with a run made on the platform.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type SeededMember, startTestApi, type TestApi } from '@osmosis/api/testing';
import { fakeIO } from '@osmosis/cli/testing';
import { RunImportResponse } from '@osmosis/contracts';
import { packTarBuffer } from '@osmosis/tasks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBenchmarkCli } from './helpers/cli-runner.ts';
import { harborTrialResult, writeHarborJob } from './helpers/harbor-job.ts';
import { rawTar } from './helpers/raw-tar.ts';
import { seedRun } from './results-seed.ts';

const SAMPLE_DIR = path.resolve(import.meta.dirname, '../examples/benchmarks/sample');
const SAMPLE_TASKS = readdirSync(SAMPLE_DIR)
  .filter((n) => statSync(path.join(SAMPLE_DIR, n)).isDirectory())
  .sort();

let api: TestApi;
let owner: SeededMember;
let stranger: SeededMember;
let strangerBenchmarkId: string;
let work: string;

// biome-ignore lint/suspicious/noExplicitAny: tests read response bodies loosely
type Loose = any;

async function upload(body: Buffer, query: Record<string, string> = {}, token = owner.token) {
  const qs = new URLSearchParams(query).toString();
  const res = await fetch(`${api.url}/v1/runs/import${qs ? `?${qs}` : ''}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/gzip' },
    body,
  });
  return { status: res.status, body: (await res.json()) as Loose };
}

/** A benchmark named `key` in the workspace with the sample's task names (as a sync leaves them). */
async function seedSample(workspaceId: string, key = 'sample'): Promise<string> {
  const b = await api.db.benchmark.create({
    data: { workspaceId, key, name: key, sourceKind: 'archive', source: {}, syncStatus: 'ready' },
  });
  for (const name of SAMPLE_TASKS)
    await api.db.task.create({
      data: {
        benchmarkId: b.id,
        name,
        digest: `sha256:${name}`,
        envDigest: 'e',
        config: {},
        instruction: 'do it',
      },
    });
  return b.id;
}

function jobDir(): string {
  return mkdtempSync(path.join(work, 'job-'));
}

const pack = (dir: string) => packTarBuffer(dir, { gzip: true });

beforeAll(async () => {
  api = await startTestApi();
  owner = await api.seedWorkspace();
  stranger = await api.seedWorkspace();
  work = mkdtempSync(path.join(os.tmpdir(), 'osmosis-import-'));
  await seedSample(owner.workspaceId);
  strangerBenchmarkId = await seedSample(stranger.workspaceId, 'theirs');
});
afterAll(async () => {
  await api?.close();
  rmSync(work, { recursive: true, force: true });
});

describe('hostile job directories', () => {
  const oneTrial = () => {
    const dir = jobDir();
    const [trial] = writeHarborJob(dir, [{ task: SAMPLE_TASKS[0]!, reward: 1 }]);
    return { dir, trial: trial! };
  };

  it('refuses a link leaving the directory, naming the entry', async () => {
    const body = rawTar([
      { name: 'demo/t__1/', type: 'dir' },
      { name: 'demo/t__1/result.json', type: 'symlink', linkname: '../../../../etc/passwd' },
    ]);
    const res = await upload(body);
    expect(res.status).toBe(400);
    expect(res.body.error.message).toMatch(/link/i);
    expect(JSON.stringify(res.body.error.details)).toContain('demo/t__1/result.json');
  });

  it('refuses absolute and `..` names', async () => {
    for (const name of ['/etc/cron.d/x', 'demo/../../x', '../x']) {
      const res = await upload(rawTar([{ name, content: '{}' }]));
      expect(res.status, name).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
    }
  });

  it('refuses a huge result.json, naming the file and the limit', async () => {
    const { dir, trial } = oneTrial();
    const result = harborTrialResult({ task: SAMPLE_TASKS[0]!, reward: 1 }, trial);
    writeFileSync(
      path.join(dir, trial, 'result.json'),
      JSON.stringify({ ...result, padding: 'x'.repeat(5 * 1024 * 1024) }),
    );
    const res = await upload(await pack(dir));
    expect(res.status).toBe(400);
    expect(res.body.error.message).toContain(`${trial}/result.json`);
    expect(res.body.error.message).toMatch(/at most \d+ bytes/);
  });

  it('refuses a deeply nested JSON before parsing it', async () => {
    const { dir, trial } = oneTrial();
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    writeFileSync(path.join(dir, trial, 'result.json'), `{"task_name": ${deep}}`);
    const res = await upload(await pack(dir));
    expect(res.status).toBe(400);
    expect(res.body.error.message).toMatch(new RegExp(`${trial}/result.json: nests deeper than 32`));
  });

  it('refuses a result.json with wrong types, naming the file and the field', async () => {
    const { dir, trial } = oneTrial();
    const result = harborTrialResult({ task: SAMPLE_TASKS[0]!, reward: 1 }, trial);
    writeFileSync(
      path.join(dir, trial, 'result.json'),
      JSON.stringify({ ...result, verifier_result: { rewards: { reward: 'lots' } } }),
    );
    let res = await upload(await pack(dir));
    expect(res.status).toBe(400);
    expect(res.body.error.message).toContain(`${trial}/result.json: verifier_result.rewards.reward`);
    writeFileSync(path.join(dir, trial, 'result.json'), JSON.stringify({ ...result, task_name: 7 }));
    res = await upload(await pack(dir));
    expect(res.status).toBe(400);
    expect(res.body.error.details.issues[0].path).toBe(`${trial}/result.json:task_name`);
    writeFileSync(path.join(dir, 'result.json'), JSON.stringify({ id: 'x', n_total_trials: 'one' }));
    res = await upload(await pack(dir));
    expect(res.status).toBe(400);
    expect(res.body.error.message).toMatch(/^result\.json: /);
  });

  it('refuses a trial folder named like a path, and a result.json naming another trial', async () => {
    const dir = jobDir();
    writeHarborJob(dir, [{ task: SAMPLE_TASKS[0]!, reward: 1, trialName: 'a b;rm -rf' }]);
    let res = await upload(await pack(dir));
    expect(res.status).toBe(400);
    expect(res.body.error.message).toContain('a b;rm -rf: is not a trial folder name');
    const other = jobDir();
    const [trial] = writeHarborJob(other, [{ task: SAMPLE_TASKS[0]!, reward: 1 }]);
    const result = harborTrialResult({ task: SAMPLE_TASKS[0]!, reward: 1 }, '../../etc');
    writeFileSync(path.join(other, trial!, 'result.json'), JSON.stringify(result));
    res = await upload(await pack(other));
    expect(res.status).toBe(400);
    expect(res.body.error.message).toContain(`${trial}/result.json: trial_name`);
  });

  it('does not find a benchmark of another workspace, by key or id, nor match its tasks', async () => {
    const { dir } = oneTrial();
    const body = await pack(dir);
    for (const ref of ['theirs', strangerBenchmarkId]) {
      const res = await upload(body, { benchmark: ref });
      expect(res.status, ref).toBe(404);
      expect(res.body.error.code).toBe('NOT_FOUND');
    }
    // the stranger has no benchmark of the sample's task names under its own key either way
    const lonely = await api.seedWorkspace();
    const res = await upload(body, {}, lonely.token);
    expect(res.status).toBe(400);
    expect(res.body.error.message).toMatch(/no benchmark of this workspace/);
    expect(await api.db.run.count({ where: { imported: true, workspaceId: stranger.workspaceId } })).toBe(0);
  });
});

describe('a hand-made Harbor job of the sample benchmark', () => {
  const rewards = SAMPLE_TASKS.map((_, i) => (i % 3 === 0 ? 0 : 1));
  let imported: Loose;

  beforeAll(async () => {
    const dir = jobDir();
    writeHarborJob(dir, [
      ...SAMPLE_TASKS.map((task, i) => ({ task, reward: rewards[i]!, costUsd: 0.01 * (i + 1) })),
      { task: 'not-in-sample', reward: 1 },
      // Harbor verifies a trial whose agent timed out
      {
        task: SAMPLE_TASKS[1]!,
        reward: 0,
        exception: 'AgentTimeoutError',
        trialName: 'late__x',
        startedAt: '2026-11-02T12:00:00Z',
      },
    ]);
    const res = await upload(await pack(dir), { name: `harbor-${randomUUID().slice(0, 6)}` });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    imported = RunImportResponse.parse(res.body).data;
  });

  it('imports every matching trial with the file’s rewards and lists the mismatch', async () => {
    expect(imported.benchmark_key).toBe('sample');
    expect(imported.imported_attempts).toBe(SAMPLE_TASKS.length + 1);
    expect(imported.mismatches).toEqual([
      expect.objectContaining({
        task_name: 'not-in-sample',
        reason: expect.stringContaining('no task named'),
      }),
    ]);
    expect(imported.checksum_note).toMatch(/matched by name/);
    const info = (await api.request('GET', `/v1/runs/${imported.run_name}`, { token: owner.token })).body
      .data;
    expect(info.status).toBe('finished');
    expect(info.imported).toBe(true);
    expect(info.import_info.job_name).toBe('demo');
    for (const [i, task] of SAMPLE_TASKS.entries()) {
      const first = info.attempts.find((a: Loose) => a.task_name === task && a.index === 0);
      expect(first.reward, task).toBe(rewards[i]);
      expect(first.outcome).toBe(rewards[i] === 1 ? 'passed' : 'failed');
      expect(first.cost_usd).toBeCloseTo(0.01 * (i + 1));
      expect(first.input_tokens).toBe(1200);
      expect(first.agent_ms).toBe(42_000);
    }
    const late = info.attempts.find((a: Loose) => a.task_name === SAMPLE_TASKS[1] && a.index === 1);
    expect(late).toMatchObject({ outcome: 'failed', reward: 0, agent_timed_out: true });
  });

  it('imports a trial that raised before its verifier as errored, with Harbor’s exception', async () => {
    const dir = jobDir();
    writeHarborJob(dir, [
      {
        task: SAMPLE_TASKS[2]!,
        reward: null,
        exception: 'EnvironmentStartTimeoutError',
        agent: 'oracle',
        model: null,
      },
    ]);
    const res = await upload(await pack(dir));
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const info = (await api.request('GET', `/v1/runs/${res.body.data.run_name}`, { token: owner.token })).body
      .data;
    expect(info.agents[0]).toMatchObject({ harness: 'oracle', model: 'none' });
    expect(info.attempts[0]).toMatchObject({
      outcome: 'errored',
      reward: null,
      error_class: 'EnvironmentStartTimeoutError',
      error_message: expect.stringContaining('EnvironmentStartTimeoutError raised'),
    });
  });

  it('keeps logs and the trajectory as the attempt’s artifacts', async () => {
    const run = await api.db.run.findFirstOrThrow({ where: { name: imported.run_name } });
    const artifacts = await api.db.artifact.findMany({ where: { attempt: { runId: run.id } } });
    const paths = new Set(artifacts.map((a) => a.path));
    for (const p of [
      'agent/trajectory.json',
      'agent/terminus-2.txt',
      'verifier/reward.txt',
      'result.json',
      'trial.log',
    ])
      expect(paths.has(p), p).toBe(true);
    const attempt = await api.db.attempt.findFirstOrThrow({ where: { runId: run.id, index: 0 } });
    const detail = await api.request('GET', `/v1/runs/${imported.run_name}/attempts/${attempt.id}`, {
      token: owner.token,
    });
    expect(detail.status).toBe(200);
    expect(detail.body.data.trajectory).not.toBeNull();
  });

  it('is badged in the runs list and off the leaderboard unless asked, then apart', async () => {
    const list = await api.request('GET', '/v1/runs', { token: owner.token });
    expect(list.body.items.find((r: Loose) => r.name === imported.run_name).imported).toBe(true);
    const board = await api.request('GET', '/v1/benchmarks/sample/leaderboard', { token: owner.token });
    expect(board.body.data.entries.map((e: Loose) => e.run_name)).not.toContain(imported.run_name);
    expect(board.body.data.imported_entries).toEqual([]);
    const withImported = await api.request('GET', '/v1/benchmarks/sample/leaderboard?include_imported=1', {
      token: owner.token,
    });
    expect(withImported.body.data.entries.map((e: Loose) => e.run_name)).not.toContain(imported.run_name);
    const entry = withImported.body.data.imported_entries.find(
      (e: Loose) => e.run_name === imported.run_name,
    );
    expect(entry).toMatchObject({ imported: true, rank: 1, harness: 'terminus-2', model: 'openai/gpt-5' });
    // the benchmark's view (`benchmark info --include-imported`, the benchmark page) reads the same
    const detail = await api.request('GET', '/v1/benchmarks/sample?include_imported=true', {
      token: owner.token,
    });
    expect(detail.body.data.leaderboard_imported.map((e: Loose) => e.run_name)).toContain(imported.run_name);
    const plain = await api.request('GET', '/v1/benchmarks/sample', { token: owner.token });
    expect(plain.body.data.leaderboard_imported).toEqual([]);
  });

  it('compares with a run made on the platform', async () => {
    const benchmark = await api.db.benchmark.findFirstOrThrow({
      where: { workspaceId: owner.workspaceId, key: 'sample' },
    });
    const platform = await seedRun(api.db, {
      workspaceId: owner.workspaceId,
      userId: owner.userId,
      benchmarkId: benchmark.id,
      tasks: SAMPLE_TASKS.length,
      attemptsPerTask: 1,
      agents: [{ harness: 'oracle', model: 'none' }],
    });
    const res = await api.request('GET', `/v1/runs/${imported.run_name}/compare?other=${platform.runName}`, {
      token: owner.token,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const data = res.body.data;
    expect(data.a.run_name).toBe(imported.run_name);
    expect(data.b.run_name).toBe(platform.runName);
    expect(data.a.imported).toBe(true);
    expect(data.b.imported).toBe(false);
    const printed = await cli([
      '--plain',
      'benchmark',
      'runs',
      'compare',
      imported.run_name,
      platform.runName,
    ]);
    expect(printed.out).toContain(`of run ${imported.run_name} (imported from Harbor)`);
  });

  it('refuses a retry of an imported run: nothing of it is queued', async () => {
    const res = await api.request('POST', `/v1/runs/${imported.run_name}/retry`, { token: owner.token });
    expect(res.status).toBe(409);
    expect(res.body.error.message).toMatch(/imported from Harbor/);
  });
});

async function cli(argv: string[]) {
  const io = fakeIO({
    env: {
      OSMOSIS_CONFIG_DIR: path.join(work, 'cli-config'),
      OSMOSIS_TOKEN: owner.token,
      OSMOSIS_PLATFORM_URL: api.url,
    },
    stdin: '',
  });
  return runBenchmarkCli(io, argv);
}

describe('osmosis benchmark runs import (real API)', () => {
  it('refuses a link leaving DIR before sending anything', async () => {
    const dir = jobDir();
    const [trial] = writeHarborJob(dir, [{ task: SAMPLE_TASKS[0]!, reward: 1 }]);
    symlinkSync('../../../../etc/passwd', path.join(dir, trial!, 'agent', 'stolen.txt'));
    const before = await api.db.run.count({ where: { workspaceId: owner.workspaceId } });
    const res = await cli(['--json', 'benchmark', 'runs', 'import', dir]);
    expect(res.error?.message).toMatch(new RegExp(`${trial}/agent/stolen.txt is a link to .*outside`));
    expect(await api.db.run.count({ where: { workspaceId: owner.workspaceId } })).toBe(before);
  });

  it('imports DIR, lists the trials not imported, and badges the run in --json', async () => {
    const dir = jobDir();
    writeHarborJob(dir, [
      { task: SAMPLE_TASKS[0]!, reward: 1 },
      { task: 'elsewhere', reward: 0 },
    ]);
    const res = await cli([
      '--plain',
      'benchmark',
      'runs',
      'import',
      dir,
      '--benchmark',
      'sample',
      '--name',
      'from-cli',
    ]);
    expect(res.code, res.err).toBe(0);
    expect(res.out).toContain('as run "from-cli" of sample: 1 attempt(s)');
    expect(res.out).toMatch(
      /1 trial\(s\) not imported:\s+elsewhere__t000001: benchmark sample has no task named "elsewhere"/,
    );
    const list = await cli(['--json', 'benchmark', 'runs', 'list']);
    const item = JSON.parse(list.out).items.find((r: Loose) => r.name === 'from-cli');
    expect(item.imported).toBe(true);
  });
});
