// A git benchmark added at a branch keeps the commit each sync checked out (source_commit), and a
// run's lock records the commit whose tasks it used: against the real API, the real
// benchmark-sync worker and a repository served by `git daemon` on loopback, whose branch moves
// between syncs. Runs are submitted and stopped (this worker only syncs); their locks are written
// at submit. Reproduce goes by task digests: a new commit with the same tasks reproduces, one
// with changed tasks is refused naming them.
import { cp, mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { RunLock } from '@osmosis/contracts';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  type BenchmarkEnv,
  type GitDaemon,
  git,
  SAMPLE_DIR,
  startBenchmarkEnv,
  startGitDaemon,
  waitFor,
} from './benchmarks-support.ts';
import { submitRun } from './helpers/runs.ts';

// git fetches and imports are slow on a loaded 2-core machine
vi.setConfig({ testTimeout: 240_000 });

let env: BenchmarkEnv;
let daemon: GitDaemon;
let token: string;
let gitRoot: string;
/** the working copy whose `main` is pushed to moving.git, which the daemon serves */
let work: string;

const TOML = ['[experiment]', 'benchmark = "moving"', '', '[[agents]]', 'harness = "oracle"', ''].join('\n');

/** Commits everything in the working copy to main and pushes it; the new commit id. */
function commitAndPush(message: string): string {
  git(work, 'add', '-A');
  git(work, 'commit', '-q', '-m', message);
  git(work, 'push', '-q', path.join(gitRoot, 'moving.git'), 'main');
  return git(work, 'rev-parse', 'HEAD');
}

async function benchmark() {
  const res = await env.api.request('GET', '/v1/benchmarks/moving', { token });
  expect(res.status, res.text).toBe(200);
  return res.body.data;
}

async function settled() {
  return waitFor(async () => {
    const b = await benchmark();
    return b.sync_status === 'ready' || b.sync_status === 'failed' ? b : null;
  });
}

async function lockOf(name: string): Promise<RunLock> {
  const res = await env.api.request('GET', `/v1/runs/${name}/lock`, { token });
  expect(res.status, res.text).toBe(200);
  return RunLock.parse(res.body.data);
}

async function stop(name: string) {
  const res = await env.api.request('POST', `/v1/runs/${name}/stop`, { token });
  expect(res.status, res.text).toBe(200);
}

async function resync() {
  const res = await env.api.request('POST', '/v1/benchmarks/moving/sync', { token });
  expect(res.status, res.text).toBe(202);
  const b = await settled();
  expect(b.sync_error).toBeNull();
  return b;
}

const digestOf = (lock: RunLock, task: string) => lock.tasks.find((t) => t.name === task)?.digest;

beforeAll(async () => {
  env = await startBenchmarkEnv({ privateNetworkAllowlist: '127.0.0.1' });
  token = (await env.api.seedWorkspace()).token;
  gitRoot = path.join(env.root, 'git');
  work = path.join(env.root, 'work');
  await mkdir(work, { recursive: true });
  await mkdir(gitRoot, { recursive: true });
  daemon = await startGitDaemon(gitRoot);
});

afterAll(async () => {
  await daemon?.stop();
  await env?.close();
});

describe('a git benchmark synced from a branch', () => {
  const commits: string[] = [];
  const runs: string[] = [];

  it("keeps the branch's commit, and a run's lock records it with the ref", async () => {
    git(work, 'init', '-q');
    for (const task of ['create-greeting', 'count-log-errors'])
      await cp(path.join(SAMPLE_DIR, task), path.join(work, 'tasks', task), { recursive: true });
    await writeFile(path.join(work, 'README.md'), 'first\n');
    git(work, 'add', '-A');
    git(work, 'commit', '-q', '-m', 'first');
    git(gitRoot, 'clone', '-q', '--bare', work, 'moving.git');
    commits.push(git(work, 'rev-parse', 'HEAD'));

    const add = await env.api.request('POST', '/v1/benchmarks', {
      token,
      body: {
        kind: 'git',
        url: daemon.url('moving.git'),
        ref: 'main',
        path: 'tasks',
        metadata: { key: 'moving', default_harness: 'oracle' },
      },
    });
    expect(add.status, add.text).toBe(202);
    expect(add.body.data.source_commit).toBeNull(); // not synced yet
    const b = await settled();
    expect(b).toMatchObject({ sync_status: 'ready', task_count: 2, source_commit: commits[0] });
    expect(b.source).toMatchObject({ ref: 'main' });

    const run = await submitRun(env.api, token, TOML);
    runs.push(run.name);
    const lock = await lockOf(run.name);
    expect(lock.benchmark.source).toMatchObject({
      kind: 'git',
      url: daemon.url('moving.git'),
      ref: 'main',
      commit: commits[0],
      path: 'tasks',
    });
    // a git benchmark with an active run is not re-synced under it
    const busy = await env.api.request('POST', '/v1/benchmarks/moving/sync', { token });
    expect(busy.status).toBe(409);
    expect(busy.body.error.message).toContain(`${run.name}: `);
    expect(busy.body.error.message).toContain('stop them first');
    await stop(run.name);
  });

  it('a re-sync at a new commit with the same tasks: new runs record it, reproduce still works', async () => {
    await writeFile(path.join(work, 'README.md'), 'second: the tasks are unchanged\n');
    commits.push(commitAndPush('second'));
    const before = await env.api.db.task.findMany({ orderBy: { name: 'asc' } });
    const b = await resync();
    expect(b).toMatchObject({ task_count: 2, source_commit: commits[1] });
    // same content, same rows: nothing was imported again
    expect(await env.api.db.task.findMany({ orderBy: { name: 'asc' } })).toEqual(before);

    // the digests are what count: the benchmark moved on, its tasks did not
    const res = await env.api.request('POST', `/v1/runs/${runs[0]}/reproduce`, { token, body: {} });
    expect(res.status, res.text).toBe(201);
    runs.push(res.body.data.name);
    const first = await lockOf(runs[0]!);
    const again = await lockOf(runs[1]!);
    expect(again.benchmark.source).toMatchObject({ ref: 'main', commit: commits[1] });
    expect(first.benchmark.source.commit).toBe(commits[0]);
    expect(again.tasks).toEqual(first.tasks);
    await stop(runs[1]!);
  });

  it('a re-sync at a commit that changes and removes tasks: their rows follow, old locks do not', async () => {
    await writeFile(path.join(work, 'tasks/create-greeting/instruction.md'), 'Write hello to /app/out.txt\n');
    await rm(path.join(work, 'tasks/count-log-errors'), { recursive: true });
    commits.push(commitAndPush('third'));
    const b = await resync();
    expect(b).toMatchObject({ source_commit: commits[2], synced_task_count: 1, expected_task_count: 1 });
    const row = await env.api.db.task.findFirstOrThrow({ where: { name: 'create-greeting' } });
    expect(row.instruction).toContain('Write hello to /app/out.txt');
    // the removed task stays for the runs that ran it, and cannot run any more
    const gone = await env.api.db.task.findFirstOrThrow({ where: { name: 'count-log-errors' } });
    expect(gone.unsupportedReason).toBe(
      "no longer in the benchmark's source (kept for the runs that ran it)",
    );
    expect(b).toMatchObject({ task_count: 2, unsupported_task_count: 1 });

    const run = await submitRun(env.api, token, TOML);
    runs.push(run.name);
    const lock = await lockOf(run.name);
    expect(lock.benchmark.source.commit).toBe(commits[2]);
    expect(lock.tasks.map((t) => t.name)).toEqual(['create-greeting']);
    expect(digestOf(lock, 'create-greeting')).toBe(row.digest);
    await stop(run.name);

    const first = await lockOf(runs[0]!);
    expect(first.benchmark.source).toMatchObject({ ref: 'main', commit: commits[0] });
    expect(first.tasks.map((t) => t.name)).toEqual(['count-log-errors', 'create-greeting']);
    expect(digestOf(first, 'create-greeting')).not.toBe(row.digest);

    const refused = await env.api.request('POST', `/v1/runs/${runs[0]}/reproduce`, { token, body: {} });
    expect(refused.status).toBe(409);
    expect(refused.body.error.message).toContain('tasks.create-greeting.digest');
    expect(refused.body.error.message).toContain('tasks.count-log-errors (gone');
  });

  it('a task added and removed again before any run ran it leaves no row behind', async () => {
    await cp(path.join(SAMPLE_DIR, 'sum-csv-by-region'), path.join(work, 'tasks/sum-csv-by-region'), {
      recursive: true,
    });
    commits.push(commitAndPush('fourth'));
    expect(await resync()).toMatchObject({ source_commit: commits[3], synced_task_count: 2 });
    expect(await env.api.db.task.count({ where: { name: 'sum-csv-by-region' } })).toBe(1);

    await rm(path.join(work, 'tasks/sum-csv-by-region'), { recursive: true });
    commits.push(commitAndPush('fifth'));
    expect(await resync()).toMatchObject({ source_commit: commits[4], synced_task_count: 1 });
    expect(await env.api.db.task.count({ where: { name: 'sum-csv-by-region' } })).toBe(0);
    // the one a run ran is still there for it
    expect(await env.api.db.task.count({ where: { name: 'count-log-errors' } })).toBe(1);
  });

  it('a removed task put back unchanged can run again', async () => {
    await cp(path.join(SAMPLE_DIR, 'count-log-errors'), path.join(work, 'tasks/count-log-errors'), {
      recursive: true,
    });
    commits.push(commitAndPush('sixth'));
    expect(await resync()).toMatchObject({
      source_commit: commits[5],
      synced_task_count: 2,
      task_count: 2,
      unsupported_task_count: 0,
    });
    const run = await submitRun(env.api, token, TOML);
    const lock = await lockOf(run.name);
    expect(lock.tasks.map((t) => t.name)).toEqual(['count-log-errors', 'create-greeting']);
    const first = await lockOf(runs[0]!);
    expect(digestOf(lock, 'count-log-errors')).toBe(digestOf(first, 'count-log-errors'));
    expect(lock.benchmark.source.commit).toBe(commits[5]);
    await stop(run.name);
  });
});
