// A run's lock end to end: the bundled sample benchmark synced and run by a real worker in Docker
// (oracle and nop, no model), then its lock read through the API and the CLI, and a reproduction
// submitted from it that ends with the same fingerprint; an HLE-style run graded by the worker's
// judge (the fake model server) lists the judge prompt it was graded with.
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type SeededMember, startTestApi, type TestApi } from '@osmosis/api/testing';
import { fakeIO } from '@osmosis/cli/testing';
import { RunLock } from '@osmosis/contracts';
import { countedLockFields } from '@osmosis/core';
import {
  defaultHleJudgeTemplate,
  HLE_JUDGE_TEMPLATE_ENV,
  HLE_REFERENCE,
  loadReferenceHleJudgeTemplate,
} from '@osmosis/harness';
import type { RunningWorker } from '@osmosis/worker/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBenchmarkCli } from './helpers/cli-runner.ts';
import { type FakeModelServer, startFakeModelServer } from './helpers/fake-model-server.ts';
import { harborReferenceRoot } from './helpers/harbor-reference.ts';
import { addBenchmark, runEnded, submitRun } from './helpers/runs.ts';
import { startTestWorker } from './helpers/worker.ts';
import { get, signIn } from './pages-support.ts';

const SAMPLE_DIR = path.resolve(import.meta.dirname, '../examples/benchmarks/sample');

let api: TestApi;
let worker: RunningWorker;
let owner: SeededMember;
let dataDir: string;
let configDir: string;

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'osmosis-lock-e2e-'));
  configDir = mkdtempSync(path.join(os.tmpdir(), 'osmosis-lock-cli-'));
  process.env.OSMOSIS_DATA_DIR = dataDir;
  process.env.OSMOSIS_SECRET_KEYS = `lock1:${Buffer.alloc(32, 5).toString('base64')}`; // the judge's key
  api = await startTestApi();
  owner = await api.seedWorkspace();
  worker = await startTestWorker(api, dataDir, { concurrency: 2 });
  await addBenchmark(api, owner.token, SAMPLE_DIR);
}, 300_000);

afterAll(async () => {
  await worker?.close();
  await api?.close();
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(configDir, { recursive: true, force: true });
});

async function cli(argv: string[]) {
  const io = fakeIO({
    env: { OSMOSIS_CONFIG_DIR: configDir, OSMOSIS_TOKEN: owner.token, OSMOSIS_PLATFORM_URL: api.url },
    stdin: '',
  });
  return runBenchmarkCli(io, argv);
}

const SAMPLE_TOML = [
  '[experiment]',
  'benchmark = "sample"',
  '',
  '[tasks]',
  'task_names = ["create-greeting", "count-log-errors"]',
  '',
  '[execution]',
  'max_concurrent_attempts = 2',
  '',
  '[[agents]]',
  'harness = "oracle"',
  '',
  '[[agents]]',
  'harness = "nop"',
  '[agents.env]',
  'GREETING = "hello"',
  '',
].join('\n');

async function lockOf(name: string): Promise<RunLock> {
  const res = await api.request('GET', `/v1/runs/${name}/lock`, { token: owner.token });
  expect(res.status, res.text).toBe(200);
  return RunLock.parse(res.body.data);
}

describe('the lock of a run', { timeout: 1_200_000 }, () => {
  let first: { name: string; lock: RunLock } = { name: '', lock: {} as RunLock };

  it('records task digests, images and harness versions, and the CLI prints it', async () => {
    const { name } = await submitRun(api, owner.token, SAMPLE_TOML, 'lock.toml');
    const atSubmit = await lockOf(name);
    expect(atSubmit.tasks.map((t) => t.name)).toEqual(['count-log-errors', 'create-greeting']);
    expect(atSubmit.tasks.every((t) => /^[0-9a-f]{64}$|^sha256:/.test(t.digest))).toBe(true);
    const run = await runEnded(api, owner.token, name);
    expect(run.status).toBe('finished');

    const lock = await lockOf(name);
    expect(lock.complete).toBe(true);
    expect(lock.tasks).toEqual(atSubmit.tasks);
    // the sample's images are built from each task's environment/ (env_digest is their identity)
    expect(lock.tasks.every((t) => t.image === null && t.env_digest.length > 0)).toBe(true);
    expect(lock.agents.map((a) => a.harness)).toEqual(['oracle', 'nop']);
    for (const agent of lock.agents) expect(agent.harness_version, agent.harness).toMatch(/^\d+\.\d+\.\d+/);
    expect(lock.agents[1]!.env).toEqual({ GREETING: 'hello' });
    expect(lock.platform.version).toMatch(/^\d+\.\d+\.\d+/);
    expect(lock.fingerprint).toMatch(/^[0-9a-f]{64}$/);

    const json = await cli(['--json', 'benchmark', 'runs', 'lock', name]);
    expect(json.error, json.err).toBeUndefined();
    expect(RunLock.parse(JSON.parse(json.out).data).fingerprint).toBe(lock.fingerprint);
    const text = await cli(['benchmark', 'runs', 'lock', name]);
    expect(text.out).toContain(lock.fingerprint);
    expect(text.out).toContain('create-greeting');
    first = { name, lock };

    // a registry image the worker pinned for the run (as the image supply writes it; the sample
    // itself builds): the lock lists its digest and the fingerprint counts it
    await api.db.runImagePin.create({
      data: { runId: run.id, reference: 'docker.io/example/tool:1', digest: `sha256:${'ab'.repeat(32)}` },
    });
    const pinned = await lockOf(name);
    expect(pinned.images).toContainEqual({
      reference: 'docker.io/example/tool:1',
      digest: `sha256:${'ab'.repeat(32)}`,
    });
    expect(pinned.fingerprint).not.toBe(lock.fingerprint);
    first = { name, lock: pinned };

    const manifest = await api.request('GET', `/v1/runs/${name}/downloads/manifest?types=lock`, {
      token: owner.token,
    });
    expect(manifest.body.data.files.map((f: { path: string }) => f.path)).toEqual(['lock.json']);
    const file = await api.request('GET', `/v1/runs/${name}/downloads/file?path=lock.json`, {
      token: owner.token,
    });
    expect(RunLock.parse(JSON.parse(file.text)).fingerprint).toBe(pinned.fingerprint);
  });

  it('reproduce gives a run with the same fingerprint', async () => {
    const res = await cli(['--json', 'benchmark', 'runs', 'reproduce', first.name]);
    expect(res.error, res.err).toBeUndefined();
    const again = JSON.parse(res.out).resource.name as string;
    expect(again).not.toBe(first.name);
    const run = await runEnded(api, owner.token, again);
    expect(run.status).toBe('finished');
    const lock = await lockOf(again);
    expect(lock.images).toEqual(first.lock.images); // the earlier run's pins were given to it
    expect(lock.fingerprint).toBe(first.lock.fingerprint);
  });

  it('reproduce refuses, naming the task, when a task changed since', async () => {
    // the benchmark re-synced with other content in one task (its stored digest is what sync wrote)
    const task = await api.db.task.findFirstOrThrow({ where: { name: 'create-greeting' } });
    await api.db.task.update({ where: { id: task.id }, data: { digest: `sha256:${'cd'.repeat(32)}` } });
    try {
      const res = await api.request('POST', `/v1/runs/${first.name}/reproduce`, {
        token: owner.token,
        body: {},
      });
      expect(res.status).toBe(409);
      expect(res.body.error.message).toContain('tasks.create-greeting.digest');
      expect(res.body.error.message).not.toContain('count-log-errors');
    } finally {
      await api.db.task.update({ where: { id: task.id }, data: { digest: task.digest } });
    }
  });

  it('is not found for another workspace', async () => {
    const other = await api.seedWorkspace();
    const res = await api.request('GET', `/v1/runs/${first.name}/lock`, { token: other.token });
    expect(res.status).toBe(404);
  });
});

const SWEEP_TOML = (extra = '') =>
  [
    '[experiment]',
    'benchmark = "sample"',
    '',
    '[tasks]',
    'task_names = ["create-greeting", "count-log-errors"]',
    '',
    '[execution]',
    'attempts_per_task = 2',
    'max_concurrent_attempts = 1',
    extra,
    '',
    '[[agents]]',
    'harness = "oracle"',
    '',
    '[[agents]]',
    'harness = "nop"',
    '',
  ].join('\n');

async function submitStatus(token: string, toml: string) {
  return api.request('POST', '/v1/runs', { token, body: { config_toml: toml, file_name: 'sweep.toml' } });
}

describe('reuse_from: completing a sweep stopped halfway', { timeout: 1_200_000 }, () => {
  it('refuses another workspace, a running run and a run that matches nothing; then runs only the missing attempts', async () => {
    const { name, id } = await submitRun(api, owner.token, SWEEP_TOML(), 'sweep.toml');

    // while it runs: refused, naming why
    const running = await submitStatus(owner.token, SWEEP_TOML(`reuse_from = "${name}"`));
    expect(running.status, running.text).toBe(409);
    expect(running.body.error.message).toContain(`run ${name} is`);

    // stop it once some attempts have ended
    const scored = async () =>
      api.db.attempt.count({
        where: { runId: id, status: 'finished', outcome: { in: ['passed', 'failed'] } },
      });
    const deadline = Date.now() + 600_000;
    while ((await scored()) < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 500));
    const stop = await api.request('POST', `/v1/runs/${name}/stop`, { token: owner.token });
    expect(stop.status, stop.text).toBe(200);
    const stopped = await runEnded(api, owner.token, name);
    expect(stopped.status).toBe('stopped');
    const before = await api.db.attempt.findMany({
      where: { runId: id },
      select: { id: true, status: true, outcome: true, reward: true },
    });
    const taken = before.filter((a) => a.outcome === 'passed' || a.outcome === 'failed');
    expect(taken.length).toBeGreaterThanOrEqual(2);
    expect(taken.length).toBeLessThan(8);

    // another workspace cannot name it: not found, as if it did not exist
    const other = await api.seedWorkspace();
    await addBenchmark(api, other.token, SAMPLE_DIR);
    const foreign = await submitStatus(other.token, SWEEP_TOML(`reuse_from = "${name}"`));
    expect(foreign.status, foreign.text).toBe(404);
    expect(await api.db.run.count({ where: { workspaceId: other.workspaceId } })).toBe(0);

    // another timeout matches no task and agent: refused naming the field
    const differs = await submitStatus(
      owner.token,
      SWEEP_TOML(`timeout_multiplier = 2\nreuse_from = "${name}"`),
    );
    expect(differs.status, differs.text).toBe(400);
    expect(differs.body.error.details.differing_fields).toEqual(['execution.timeout_multiplier']);

    // the preview counts what would be taken over and what still runs, and refuses as submit does
    const preview = await api.request('POST', '/v1/runs/preview', {
      token: owner.token,
      body: { config_toml: SWEEP_TOML(), file_name: 'sweep.toml', reuse_from: name },
    });
    expect(preview.status, preview.text).toBe(200);
    expect(preview.body.data.reuse).toEqual({ from: name, attempts: taken.length, to_run: 8 - taken.length });
    const previewDiffers = await api.request('POST', '/v1/runs/preview', {
      token: owner.token,
      body: {
        config_toml: SWEEP_TOML(`timeout_multiplier = 2\nreuse_from = "${name}"`),
        file_name: 'sweep.toml',
      },
    });
    expect(previewDiffers.status, previewDiffers.text).toBe(400);
    expect(previewDiffers.body.error.details.differing_fields).toEqual(['execution.timeout_multiplier']);
    const plain = await api.request('POST', '/v1/runs/preview', {
      token: owner.token,
      body: { config_toml: SWEEP_TOML(), file_name: 'sweep.toml' },
    });
    expect(plain.body.data.reuse).toBeNull();

    // the same sweep, completed from the stopped one (the CLI's flag)
    const submitted = await submitStatus(owner.token, SWEEP_TOML(`reuse_from = "${name}"`));
    expect(submitted.status, submitted.text).toBe(201);
    const { name: next, id: nextId } = submitted.body.data;
    expect(submitted.body.data.reuse).toEqual({
      from: name,
      attempts: taken.length,
      to_run: 8 - taken.length,
    });
    const ended = await runEnded(api, owner.token, next);
    expect(ended.status).toBe('finished');
    const after = await api.db.attempt.findMany({
      where: { runId: nextId },
      select: { outcome: true, reward: true, reusedFromAttemptId: true, startedAt: true },
    });
    expect(after).toHaveLength(8);
    const reused = after.filter((a) => a.reusedFromAttemptId !== null);
    expect(reused.map((a) => a.reusedFromAttemptId).sort()).toEqual(taken.map((a) => a.id).sort());
    for (const a of reused) {
      const was = taken.find((t) => t.id === a.reusedFromAttemptId)!;
      expect([a.outcome, a.reward]).toEqual([was.outcome, was.reward]);
    }
    // only the missing attempts ran in the new run
    const ran = after.filter((a) => a.reusedFromAttemptId === null);
    expect(ran).toHaveLength(8 - taken.length);
    expect(ran.every((a) => a.outcome === 'passed' || a.outcome === 'failed')).toBe(true);
    const lock = await lockOf(next);
    expect(lock.execution.reuse_from).toBe(name);

    // scored as one run of 8 attempts, and the reused ones are marked in results.csv
    const results = await api.request('GET', `/v1/runs/${next}/results`, { token: owner.token });
    expect(results.status).toBe(200);
    const totals = results.body.data.totals;
    expect(totals.passed + totals.failed).toBe(8);
    const csv = await api.request('GET', `/v1/runs/${next}/downloads/file?path=results.csv`, {
      token: owner.token,
    });
    const lines = csv.text.trim().split('\n');
    const header = lines[0]!.split(',');
    const col = header.indexOf('reused_from');
    expect(col).toBeGreaterThan(-1);
    expect(lines.slice(1).filter((l) => l.split(',')[col] !== '').length).toBe(taken.length);

    // the run page: its fingerprint, lock.json, the run it took over from, each reused attempt marked
    const who = await signIn(api.url, owner.token);
    const runPage = await get(api.url, `/runs/${next}`, who);
    expect(runPage.status).toBe(200);
    expect(runPage.text).toContain(lock.fingerprint);
    expect(runPage.text).toContain(`${taken.length} finished attempt(s) taken over from run`);
    expect(runPage.text.match(/reused from an earlier run'?"/g)?.length ?? 0).toBe(taken.length);
    const lockFile = await get(api.url, `/runs/${next}/files/lock.json`, who);
    expect(RunLock.parse(JSON.parse(lockFile.text)).fingerprint).toBe(lock.fingerprint);
    // runs info marks them too
    const info = await cli(['benchmark', 'runs', 'info', next]);
    expect(info.out).toContain(`${taken.length} finished attempt(s) taken over from run ${name}`);
    expect(info.out.match(/\(reused\)/g)?.length ?? 0).toBe(taken.length);
  });
});

describe("the judge's prompt in the lock", { timeout: 1_200_000 }, () => {
  let fake: FakeModelServer;
  const JUDGED_TOML = (extra = '') =>
    `[experiment]\nbenchmark = "judged"\n[execution]\njudge_api_key_secret = "JUDGE_KEY"\nattempts_per_task = 2\n${extra}\n[[agents]]\nharness = "oracle"\n`;
  let judged: { name: string; id: string; lock: RunLock } = { name: '', id: '', lock: {} as RunLock };

  beforeAll(async () => {
    fake = await startFakeModelServer();
    process.env.OSMOSIS_PROVIDER_OPENAI_BASE_URL = fake.openaiBaseUrl;
    const verdict = { extracted_final_answer: '41', reasoning: 'match', correct: 'yes', confidence: 90 };
    fake.setFallback({ kind: 'text', text: JSON.stringify(verdict) });
    const key = await api.request('PUT', '/v1/secrets/JUDGE_KEY', {
      token: owner.token,
      body: { value: 'sk-judge-lock' },
    });
    expect(key.status, key.text).toBe(201);
    // the bundled HLE-style task, as a benchmark the LLM judge grades
    const dir = mkdtempSync(path.join(os.tmpdir(), 'osmosis-lock-hle-'));
    cpSync(path.join(import.meta.dirname, 'fixtures/hle-mini'), path.join(dir, 'hle-mini'), {
      recursive: true,
    });
    await addBenchmark(api, owner.token, dir, 'judged', {
      judge_kind: 'hle',
      judge_model_default: 'openai/gpt-5.2',
    });
    rmSync(dir, { recursive: true, force: true });
  }, 300_000);
  afterAll(async () => {
    delete process.env.OSMOSIS_PROVIDER_OPENAI_BASE_URL;
    await fake?.close();
  });

  async function judgedRun(submit: () => Promise<string>) {
    const name = await submit();
    const run = await runEnded(api, owner.token, name);
    expect(run.status).toBe('finished');
    return { name, id: run.id as string, lock: await lockOf(name) };
  }
  const reproduce = async (name: string) => {
    const res = await api.request('POST', `/v1/runs/${name}/reproduce`, { token: owner.token, body: {} });
    expect(res.status, res.text).toBe(201);
    return res.body.data.name as string;
  };

  it('lists the prompt the HLE judge graded with; a run judged the same way has the same fingerprint', async () => {
    judged = await judgedRun(async () => (await submitRun(api, owner.token, JUDGED_TOML())).name);
    expect(judged.lock.judge).toMatchObject({ kind: 'hle', model: 'openai/gpt-5.2' });
    // two judged attempts, one template: recorded once for the run
    expect(judged.lock.judge.template_digests).toEqual([`default:${defaultHleJudgeTemplate().digest}`]);
    expect(await api.db.runJudgeTemplate.count({ where: { runId: judged.id } })).toBe(1);
    const text = await cli(['benchmark', 'runs', 'lock', judged.name]);
    expect(text.out).toContain(`prompt default:${defaultHleJudgeTemplate().digest.slice(0, 12)}`);

    const again = await judgedRun(() => reproduce(judged.name));
    expect(again.lock.judge).toEqual(judged.lock.judge);
    expect(again.lock.fingerprint).toBe(judged.lock.fingerprint);
  });

  it.runIf(harborReferenceRoot())(
    "the adapter's own prompt gives another fingerprint, and only the judge differs",
    async () => {
      const file = path.join(harborReferenceRoot()!, HLE_REFERENCE.path);
      process.env[HLE_JUDGE_TEMPLATE_ENV] = file;
      try {
        const other = await judgedRun(() => reproduce(judged.name));
        expect(other.lock.judge.template_digests).toEqual([
          `reference:${loadReferenceHleJudgeTemplate(file).digest}`,
        ]);
        expect(other.lock.fingerprint).not.toBe(judged.lock.fingerprint);
        const { judge: a, ...restA } = countedLockFields(other.lock);
        const { judge: b, ...restB } = countedLockFields(judged.lock);
        expect(restA).toEqual(restB);
        expect(a).not.toEqual(b);
      } finally {
        delete process.env[HLE_JUDGE_TEMPLATE_ENV];
      }
    },
  );

  it('a run reusing judged attempts lists their prompt; deleting a run deletes its templates', async () => {
    const toml = JUDGED_TOML(`reuse_from = "${judged.name}"`);
    const reused = await judgedRun(async () => (await submitRun(api, owner.token, toml)).name);
    expect(reused.lock.judge.template_digests).toEqual(judged.lock.judge.template_digests);
    await api.db.attempt.deleteMany({ where: { runId: reused.id } });
    await api.db.runEvent.deleteMany({ where: { runId: reused.id } });
    await api.db.runAgent.deleteMany({ where: { runId: reused.id } });
    await api.db.run.delete({ where: { id: reused.id } });
    expect(await api.db.runJudgeTemplate.count({ where: { runId: reused.id } })).toBe(0);
  });
});
