// The whole path with nothing faked: the bundled sample benchmark uploaded as an archive, synced
// by the worker into artifact storage, a run submitted through the API with the oracle harness,
// dispatched and executed in Docker sandboxes from the stored task tars, then read back through
// the run views. Every task passes; `nop` on the same tasks fails every one.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { getDocker, LABELS } from '@osmosis/sandbox';
import { packTarBuffer } from '@osmosis/tasks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SeededMember, startTestApi, type TestApi } from '../apps/api/src/testing.ts';
import { waitFor } from '../apps/worker/src/testing/fixtures.ts';
import type { RunningWorker } from '../apps/worker/src/worker.ts';
import { startTestWorker } from './helpers/worker.ts';

const SAMPLE_DIR = path.resolve(import.meta.dirname, '../examples/benchmarks/sample');

let api: TestApi;
let worker: RunningWorker;
let owner: SeededMember;
let dataDir: string;

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'osmosis-run-e2e-'));
  process.env.OSMOSIS_DATA_DIR = dataDir; // the API stores uploads where the worker reads them
  api = await startTestApi();
  owner = await api.seedWorkspace();
  worker = await startTestWorker(api, dataDir, { concurrency: 4 });
});

afterAll(async () => {
  await worker?.close();
  await api?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

async function submit(harness: string): Promise<string> {
  const toml = `[experiment]\nbenchmark = "sample"\n\n[execution]\nmax_concurrent_attempts = 4\n\n[[agents]]\nharness = "${harness}"\n`;
  const res = await api.request('POST', '/v1/runs', {
    token: owner.token,
    body: { config_toml: toml, file_name: `${harness}.toml` },
  });
  expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
  return res.body.data.name as string;
}

async function finished(name: string) {
  return waitFor(
    async () => {
      const info = await api.request('GET', `/v1/runs/${name}`, { token: owner.token });
      return ['finished', 'failed', 'stopped'].includes(info.body.data.status) ? info.body.data : null;
    },
    600_000,
    500,
  );
}

describe('sample benchmark end to end', { timeout: 900_000 }, () => {
  it('oracle passes every task, nop fails every task, no sandbox is left', async () => {
    const add = await fetch(`${api.url}/v1/benchmarks/archive`, {
      method: 'POST',
      headers: { authorization: `Bearer ${owner.token}`, 'content-type': 'application/gzip' },
      body: await packTarBuffer(SAMPLE_DIR, { gzip: true }),
    });
    expect(add.status).toBe(202);
    await waitFor(
      async () =>
        (await api.request('GET', '/v1/benchmarks/sample', { token: owner.token })).body.data?.sync_status ===
        'ready',
      300_000,
      500,
    );

    const oracle = await finished(await submit('oracle'));
    expect(oracle.status).toBe('finished');
    expect(oracle.attempts.length).toBeGreaterThan(0);
    expect(oracle.attempts.map((a: { outcome: string }) => a.outcome)).toEqual(
      oracle.attempts.map(() => 'passed'),
    );
    expect(oracle.results.agents[0].pass_at_1).toBe(1);
    // a multi-step task's steps come back with the attempt; a single-step task has none
    type Step = { name: string; outcome: string; reward: number | null };
    const byTask = new Map(
      oracle.attempts.map((a: { task_name: string; steps: Step[] | null }) => [a.task_name, a.steps]),
    );
    expect((byTask.get('build-greeter') as Step[]).map((s) => [s.name, s.outcome, s.reward])).toEqual([
      ['scaffold', 'passed', 1],
      ['configure', 'passed', 1],
    ]);
    expect(byTask.get('create-greeting')).toBeNull();

    const nop = await finished(await submit('nop'));
    expect(nop.status).toBe('finished');
    expect(new Set(nop.attempts.map((a: { outcome: string }) => a.outcome))).toEqual(new Set(['failed']));

    const logs = await api.request('GET', `/v1/runs/${oracle.name}/events?limit=200`, { token: owner.token });
    const steps = logs.body.items.map((e: { step: string }) => e.step);
    expect(steps).toContain('attempt.started');
    expect(steps).toContain('attempt.finished');
    expect(steps.at(-1)).toBe('run.finished');

    for (const id of [oracle.id, nop.id]) {
      const left = await getDocker().listContainers({
        all: true,
        filters: JSON.stringify({ label: [`${LABELS.run}=${id}`] }),
      });
      expect(left).toHaveLength(0);
    }
  });
});
