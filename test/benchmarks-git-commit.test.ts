// A git benchmark added at a branch keeps the commit its sync checked out (source_commit), and a
// run's lock records the commit whose tasks it used: against the real API, the real
// benchmark-sync worker and a repository served by `git daemon` on loopback, whose branch moves
// after the first benchmark is synced. A synced benchmark is never synced again (its tasks stay
// what its runs ran); the newer commit is used by adding the repository again as a second
// benchmark. Runs are submitted and stopped (this worker only syncs); their locks are written at
// submit.
import { cp, mkdir, writeFile } from 'node:fs/promises';
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

const runToml = (benchmark: string) =>
  ['[experiment]', `benchmark = "${benchmark}"`, '', '[[agents]]', 'harness = "oracle"', ''].join('\n');

/** Commits everything in the working copy to main and pushes it; the new commit id. */
function commitAndPush(message: string): string {
  git(work, 'add', '-A');
  git(work, 'commit', '-q', '-m', message);
  git(work, 'push', '-q', path.join(gitRoot, 'moving.git'), 'main');
  return git(work, 'rev-parse', 'HEAD');
}

async function benchmark(key: string) {
  const res = await env.api.request('GET', `/v1/benchmarks/${key}`, { token });
  expect(res.status, res.text).toBe(200);
  return res.body.data;
}

/** Adds moving.git at main as benchmark `key` and waits for its sync to end. */
async function addAndSync(key: string) {
  const add = await env.api.request('POST', '/v1/benchmarks', {
    token,
    body: {
      kind: 'git',
      url: daemon.url('moving.git'),
      ref: 'main',
      path: 'tasks',
      metadata: { key, name: key, default_harness: 'oracle' },
    },
  });
  expect(add.status, add.text).toBe(202);
  expect(add.body.data.source_commit).toBeNull(); // not synced yet
  const b = await waitFor(async () => {
    const b = await benchmark(key);
    return b.sync_status === 'ready' || b.sync_status === 'failed' ? b : null;
  });
  expect(b.sync_error).toBeNull();
  return b;
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

const digestOf = (lock: RunLock, task: string) => lock.tasks.find((t) => t.name === task)?.digest;

/** The task rows of a benchmark, as stored. */
async function tasksOf(key: string) {
  return env.api.db.task.findMany({ where: { benchmark: { key } }, orderBy: { name: 'asc' } });
}

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
  let firstRun = '';

  it("keeps the branch's commit, and a run's lock records it with the ref", async () => {
    git(work, 'init', '-q');
    for (const task of ['create-greeting', 'count-log-errors'])
      await cp(path.join(SAMPLE_DIR, task), path.join(work, 'tasks', task), { recursive: true });
    git(work, 'add', '-A');
    git(work, 'commit', '-q', '-m', 'first');
    git(gitRoot, 'clone', '-q', '--bare', work, 'moving.git');
    commits.push(git(work, 'rev-parse', 'HEAD'));

    const b = await addAndSync('moving');
    expect(b).toMatchObject({ sync_status: 'ready', task_count: 2, source_commit: commits[0] });
    expect(b.source).toMatchObject({ ref: 'main' });

    firstRun = (await submitRun(env.api, token, runToml('moving'))).name;
    const lock = await lockOf(firstRun);
    expect(lock.benchmark.source).toMatchObject({
      kind: 'git',
      url: daemon.url('moving.git'),
      ref: 'main',
      commit: commits[0],
      path: 'tasks',
    });
    await stop(firstRun);
  });

  it('after the branch moves, the same repository added again runs at the new commit; the first is untouched', async () => {
    const firstTasks = await tasksOf('moving');
    // the branch moves on: one task changes
    await writeFile(path.join(work, 'tasks/create-greeting/instruction.md'), 'Write hello to /app/out.txt\n');
    commits.push(commitAndPush('second'));
    expect(commits[1]).not.toBe(commits[0]);

    // asking a ready benchmark to sync starts nothing: its tasks stay what its runs ran
    const again = await env.api.request('POST', '/v1/benchmarks/moving/sync', { token });
    expect(again.status, again.text).toBe(200);
    expect(again.body.data).toMatchObject({ sync_status: 'ready', source_commit: commits[0] });

    const next = await addAndSync('moving-next');
    expect(next).toMatchObject({ sync_status: 'ready', task_count: 2, source_commit: commits[1] });
    const nextRun = (await submitRun(env.api, token, runToml('moving-next'))).name;
    const lock = await lockOf(nextRun);
    expect(lock.benchmark).toMatchObject({
      key: 'moving-next',
      source: { kind: 'git', ref: 'main', commit: commits[1], path: 'tasks' },
    });
    await stop(nextRun);

    // nothing moved under the first benchmark and its run
    expect(await benchmark('moving')).toMatchObject({ sync_status: 'ready', source_commit: commits[0] });
    expect(await tasksOf('moving')).toEqual(firstTasks);
    const first = await lockOf(firstRun);
    expect(first.benchmark).toMatchObject({ key: 'moving', source: { ref: 'main', commit: commits[0] } });
    const stored = (name: string) => firstTasks.find((t) => t.name === name)?.digest;
    expect(digestOf(first, 'create-greeting')).toBe(stored('create-greeting'));
    expect(digestOf(lock, 'create-greeting')).not.toBe(digestOf(first, 'create-greeting'));
    expect(digestOf(lock, 'count-log-errors')).toBe(digestOf(first, 'count-log-errors'));
    const changed = await env.api.db.task.findFirstOrThrow({
      where: { name: 'create-greeting', benchmark: { key: 'moving-next' } },
    });
    expect(changed.instruction).toContain('Write hello to /app/out.txt');

    // the first run still reproduces against its own benchmark, at its commit
    const res = await env.api.request('POST', `/v1/runs/${firstRun}/reproduce`, { token, body: {} });
    expect(res.status, res.text).toBe(201);
    const reproduced = await lockOf(res.body.data.name);
    expect(reproduced.benchmark.source.commit).toBe(commits[0]);
    expect(reproduced.tasks).toEqual(first.tasks);
    await stop(res.body.data.name);
  });
});
