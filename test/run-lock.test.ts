// A run's lock end to end: the bundled sample benchmark synced and run by a real worker in Docker
// (oracle and nop, no model), then its lock read through the API and the CLI, and a reproduction
// submitted from it that ends with the same fingerprint.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type SeededMember, startTestApi, type TestApi } from '@osmosis/api/testing';
import {
  buildProgram,
  CliError,
  fakeIO,
  pendingExitCode,
  registerBenchmark,
  setCurrentIO,
  setExitCode,
} from '@osmosis/cli/testing';
import { RunLock } from '@osmosis/contracts';
import type { RunningWorker } from '@osmosis/worker/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addBenchmark, runEnded, submitRun } from './helpers/runs.ts';
import { startTestWorker } from './helpers/worker.ts';

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
  setCurrentIO(io);
  setExitCode(0);
  const program = buildProgram(io, (t) => io.stderr.write(t));
  registerBenchmark(program);
  let error: CliError | undefined;
  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (caught) {
    if (!(caught instanceof CliError)) throw caught;
    error = caught;
  }
  return { code: error ? -1 : pendingExitCode(), error, out: io.out(), err: io.err() };
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
  let first: { name: string; lock: RunLock };

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
    expect(lock.images.map((i) => i.reference)).toContain('docker.io/osmosis/base:bookworm');
    expect(lock.agents.map((a) => a.harness)).toEqual(['oracle', 'nop']);
    for (const agent of lock.agents) expect(agent.runs.length, agent.harness).toBeGreaterThan(0);
    expect(lock.agents[1]!.env).toEqual({ GREETING: 'hello' });
    expect(lock.platform.version).toMatch(/^\d+\.\d+\.\d+/);
    expect(lock.fingerprint).toMatch(/^[0-9a-f]{64}$/);
    expect(lock.fingerprint).not.toBe(atSubmit.fingerprint); // completed by what the attempts resolved

    const json = await cli(['--json', 'benchmark', 'runs', 'lock', name]);
    expect(json.error, json.err).toBeUndefined();
    expect(RunLock.parse(JSON.parse(json.out).data).fingerprint).toBe(lock.fingerprint);
    const text = await cli(['benchmark', 'runs', 'lock', name]);
    expect(text.out).toContain(lock.fingerprint);
    expect(text.out).toContain('create-greeting');
    first = { name, lock };
  });

  it('is not found for another workspace', async () => {
    const other = await api.seedWorkspace();
    const res = await api.request('GET', `/v1/runs/${first.name}/lock`, { token: other.token });
    expect(res.status).toBe(404);
  });
});
