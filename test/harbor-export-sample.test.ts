// A real run exported as a Harbor job directory: three tasks of the bundled sample benchmark (one
// of them multi-step) run by the oracle in Docker sandboxes, then `runs export --format harbor`.
// Every JSON file is checked against Harbor 0.9's field lists (lock.json as JobLock), each trial
// folder holds the verifier's output where Harbor puts it, the rewards are those of the run, and
// osmosis-lock.json is the run's own lock (its fingerprint that of `GET /v1/runs/:name/lock`).
// Then the job directory is imported back: the same rewards, and it compares with the original.
import { mkdtempSync, rmSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { type SeededMember, startTestApi, type TestApi } from '@osmosis/api/testing';
import { buildContext, fakeIO, runsExportAction } from '@osmosis/cli/testing';
import { packTarBuffer } from '@osmosis/tasks';
import type { RunningWorker } from '@osmosis/worker/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { harborFieldErrors } from './helpers/harbor-fields.ts';
import { addBenchmark, submitAndWait } from './helpers/runs.ts';
import { startTestWorker } from './helpers/worker.ts';

const SAMPLE_DIR = path.resolve(import.meta.dirname, '../examples/benchmarks/sample');
const TASKS = ['create-greeting', 'build-greeter', 'count-log-errors'];

let api: TestApi;
let worker: RunningWorker;
let owner: SeededMember;
let dataDir: string;
let outDir: string;
let exported: { run: string; job: string } | undefined;

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'osmosis-export-sample-'));
  outDir = mkdtempSync(path.join(os.tmpdir(), 'osmosis-export-out-'));
  process.env.OSMOSIS_DATA_DIR = dataDir;
  api = await startTestApi();
  owner = await api.seedWorkspace();
  worker = await startTestWorker(api, dataDir, { concurrency: 3 });
});

afterAll(async () => {
  await worker?.close();
  await api?.close();
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(outDir, { recursive: true, force: true });
});

function modelOf(file: string): string {
  if (file === 'config.json') return 'JobConfig';
  if (file === 'result.json') return 'JobResult';
  if (file === 'lock.json') return 'JobLock';
  return file.endsWith('/config.json') ? 'TrialConfig' : 'TrialResult';
}

describe('a sample run exported as Harbor', { timeout: 900_000 }, () => {
  it('every file fits Harbor 0.9 and the trials hold the run', async () => {
    await addBenchmark(api, owner.token, SAMPLE_DIR);
    const run = await submitAndWait(
      api,
      owner.token,
      `[experiment]\nbenchmark = "sample"\n\n[tasks]\ntask_names = ${JSON.stringify(TASKS)}\n\n[[agents]]\nharness = "oracle"\n`,
    );
    expect(run.status).toBe('finished');

    const io = fakeIO({ env: { OSMOSIS_TOKEN: owner.token }, cwd: outDir });
    await runsExportAction(
      buildContext(io, { json: true, platform: api.url }, 'benchmark runs export'),
      run.name,
      {
        format: 'harbor',
        output: 'job',
      },
    );
    const job = path.join(outDir, 'job');
    const entries = await readdir(job, { recursive: true, withFileTypes: true });
    const files = entries
      .filter((e) => e.isFile())
      .map((e) => path.relative(job, path.join(e.parentPath, e.name)));
    const jsonFiles = files.filter((f) =>
      /^(config|result|lock)\.json$|^[^/]+\/(config|result)\.json$/.test(f),
    );
    expect(jsonFiles).toHaveLength(3 + 2 * TASKS.length);
    for (const f of jsonFiles) {
      const value = JSON.parse(await readFile(path.join(job, f), 'utf8'));
      expect(harborFieldErrors(modelOf(f), value, f)).toEqual([]);
    }

    const results = await Promise.all(
      jsonFiles
        .filter((f) => f.endsWith('/result.json'))
        .map(async (f) => ({
          dir: path.dirname(f),
          r: JSON.parse(await readFile(path.join(job, f), 'utf8')),
        })),
    );
    const byTask = new Map(results.map((x) => [x.r.task_name, x]));
    expect([...byTask.keys()].sort()).toEqual([...TASKS].sort());
    for (const { dir, r } of results) {
      expect(dir).toBe(r.trial_name);
      expect(dir).toMatch(/^[A-Za-z0-9._-]+__[A-Za-z0-9]{7}$/);
      expect(r.agent_info.name).toBe('oracle');
      expect(r.exception_info).toBeNull();
      // oracle passes every task: each reward is 1, as the run says
      expect(Object.values(r.verifier_result.rewards)).toContain(1);
    }
    // a one-step trial's verifier output is where Harbor puts it; a multi-step one's per step
    const single = byTask.get('create-greeting')!;
    expect(files).toContain(`${single.dir}/verifier/test-stdout.txt`);
    expect(files.some((f) => new RegExp(`^${single.dir}/verifier/reward\\.(txt|json)$`).test(f))).toBe(true);
    const multi = byTask.get('build-greeter')!;
    expect(multi.r.step_results.map((s: { step_name: string }) => s.step_name)).toEqual([
      'scaffold',
      'configure',
    ]);
    expect(files.some((f) => f.startsWith(`${multi.dir}/steps/scaffold/verifier/reward.`))).toBe(true);
    const jobResult = JSON.parse(await readFile(path.join(job, 'result.json'), 'utf8'));
    expect(jobResult.n_total_trials).toBe(TASKS.length);
    expect(jobResult.stats.n_completed_trials).toBe(TASKS.length);

    // lock.json: one TrialLock per trial, each task by its content digest in Harbor's form
    const jobLock = JSON.parse(await readFile(path.join(job, 'lock.json'), 'utf8'));
    expect(jobLock.trials.map((t: { task: { name: string } }) => t.task.name).sort()).toEqual(
      [...TASKS].sort(),
    );
    for (const t of jobLock.trials) {
      expect(t.task.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
      expect(t.task.type).toBe('local');
    }
    // osmosis-lock.json: the platform's lock, the same fingerprint the API gives for the run
    const ownLock = JSON.parse(await readFile(path.join(job, 'osmosis-lock.json'), 'utf8'));
    const res = await api.request('GET', `/v1/runs/${run.name}/lock`, { token: owner.token });
    expect(res.status, res.text).toBe(200);
    const apiLock = res.body.data as { fingerprint: string };
    expect(ownLock.fingerprint).toMatch(/^[0-9a-f]{64}$/);
    expect(ownLock.fingerprint).toBe(apiLock.fingerprint);
    expect(ownLock.tasks.map((t: { name: string }) => t.name).sort()).toEqual([...TASKS].sort());
    exported = { run: run.name, job };
  });

  it('imported back, the job is a run with the same rewards, and compares with the original', async () => {
    expect(exported, 'the export case ran first').toBeDefined();
    const { run, job } = exported!;
    const upload = await fetch(`${api.url}/v1/runs/import?benchmark=sample&name=round-trip`, {
      method: 'POST',
      headers: { authorization: `Bearer ${owner.token}`, 'content-type': 'application/gzip' },
      body: await packTarBuffer(job, { gzip: true }),
    });
    const imported = (await upload.json()) as { data: { run_name: string; mismatches: unknown[] } };
    expect(upload.status, JSON.stringify(imported)).toBe(201);
    expect(imported.data.run_name).toBe('round-trip');
    expect(imported.data.mismatches).toEqual([]);

    const rewardsOf = async (name: string) => {
      const rows = await api.db.attempt.findMany({
        where: { run: { name, workspaceId: owner.workspaceId } },
        select: { reward: true, outcome: true, task: { select: { name: true } } },
      });
      return rows.map((r) => `${r.task.name} ${r.outcome} ${r.reward}`).sort();
    };
    expect(await rewardsOf('round-trip')).toEqual(await rewardsOf(run));

    const res = await api.request('GET', `/v1/runs/round-trip/compare?other=${run}`, { token: owner.token });
    expect(res.status, res.text).toBe(200);
    const data = res.body.data as { a: { imported: boolean }; b: { imported: boolean } };
    expect(data.a.imported).toBe(true);
    expect(data.b.imported).toBe(false);
  });
});
