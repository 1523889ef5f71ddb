// `osmosis benchmark add | list | info | sync` end to end: the real CLI binary against the real
// API and a benchmark-sync worker; list and info checked in table and --json forms, including a
// benchmark caught mid-sync and one whose sync failed.
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { SeededMember } from '@osmosis/api/testing';
import {
  BENCHMARK_INFO_BENCHMARK_KEYS,
  BENCHMARK_INFO_KEYS,
  BENCHMARK_LIST_ITEM_KEYS,
  missingKeys,
} from '@osmosis/cli/testing';
import {
  BenchmarkDetailResponse,
  CliActionEnvelope,
  CliErrorEnvelope,
  ListBenchmarksResponse,
} from '@osmosis/contracts';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  type BenchmarkEnv,
  type GitDaemon,
  makeRepo,
  SAMPLE_DIR,
  type Served,
  serveJson,
  startBenchmarkEnv,
  startGitDaemon,
  waitFor,
} from './benchmarks-support.ts';

// git fetches, image-free imports and spawned CLIs are slow on a loaded 2-core machine
vi.setConfig({ testTimeout: 180_000 });

const OSMOSIS = path.resolve(import.meta.dirname, '../bin/osmosis');
const REPO_ROOT = path.resolve(import.meta.dirname, '..');
let env: BenchmarkEnv;
let owner: SeededMember;
let daemon: GitDaemon;
let registry: Served;
let home: string;

function osmosis(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(OSMOSIS, args, {
      cwd: REPO_ROOT,
      env: {
        PATH: process.env.PATH,
        HOME: home,
        OSMOSIS_CONFIG_DIR: path.join(home, 'config'),
        OSMOSIS_PLATFORM_URL: env.api.url,
        OSMOSIS_TOKEN: owner.token,
        NO_COLOR: '1',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => {
      stdout += c.toString();
    });
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString();
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

beforeAll(async () => {
  // the git daemon and the registry server listen on loopback: allowed for this file only
  env = await startBenchmarkEnv({ privateNetworkAllowlist: '127.0.0.1' });
  owner = await env.api.seedWorkspace();
  home = await mkdtemp(path.join(env.root, 'home-'));
  const gitRoot = path.join(env.root, 'git');
  await mkdir(gitRoot);
  const commit = await makeRepo(gitRoot, 'tb', {
    'tasks/create-greeting': path.join(SAMPLE_DIR, 'create-greeting'),
    'tasks/count-log-errors': path.join(SAMPLE_DIR, 'count-log-errors'),
    'tasks/implement-rle': path.join(SAMPLE_DIR, 'implement-rle'),
  });
  daemon = await startGitDaemon(gitRoot);
  const url = daemon.url('tb.git');
  registry = await serveJson([
    {
      name: 'mini-bench',
      version: '1.0',
      description: 'three tasks',
      tasks: ['create-greeting', 'count-log-errors', 'implement-rle'].map((n) => ({
        name: n,
        git_url: url,
        git_commit_id: commit,
        path: `tasks/${n}`,
      })),
    },
  ]);
});

afterAll(async () => {
  await registry?.close();
  await daemon?.stop();
  await env?.close();
});

describe('osmosis benchmark', () => {
  it('lists nothing at first', async () => {
    const table = await osmosis(['benchmark', 'list']);
    expect(table.code).toBe(0);
    expect(table.stdout).toBe(
      'No benchmarks yet. Add one with `osmosis benchmark add SOURCE` (try `osmosis benchmark add examples/benchmarks/sample`).\n',
    );
    const json = await osmosis(['benchmark', 'list', '--json']);
    // one line; the workspace directory (this repository, which has no origin) is reported as upstream
    expect(json.stdout.trimEnd()).not.toContain('\n');
    expect(JSON.parse(json.stdout)).toEqual({
      schema_version: 1,
      items: [],
      total_count: 0,
      has_more: false,
      next_offset: null,
      workspace_directory: REPO_ROOT,
    });
    const plain = await osmosis(['--plain', 'benchmark', 'list']);
    expect(plain).toMatchObject({ code: 0, stdout: '' });
  });

  it('adds the bundled sample from its folder and waits for the sync', async () => {
    const res = await osmosis(['benchmark', 'add', 'examples/benchmarks/sample', '--wait', '--json']);
    expect(res.code).toBe(0);
    const action = CliActionEnvelope.parse(JSON.parse(res.stdout));
    expect(action).toMatchObject({
      status: 'success',
      operation: 'benchmark.add',
      resource: { type: 'benchmark', key: 'sample', name: 'Osmosis Sample', workspace_directory: REPO_ROOT },
      message: 'Added Osmosis Sample (sample) with 11 tasks.',
    });
  });

  it('shows sync progress, failures and task counts in the list, as a table and as JSON', async () => {
    // hold the registry sync after its first task, to look at it mid-sync
    let release = () => {};
    const held = new Promise<void>((r) => {
      release = r;
    });
    let imported = 0;
    env.hooks.onTaskImported = async () => {
      imported += 1;
      if (imported === 1) await held;
    };
    const add = await osmosis([
      'benchmark',
      'add',
      'mini-bench@1.0',
      '--registry',
      registry.url,
      '--key',
      'mini',
    ]);
    expect(add.code).toBe(0);
    expect(add.stdout).toContain('Added mini-bench@1.0 (mini); its tasks are syncing.');
    const broken = await osmosis([
      'benchmark',
      'add',
      daemon.url('missing.git'),
      '--key',
      'broken',
      '--name',
      'Broken',
    ]);
    expect(broken.code).toBe(0);
    await waitFor(async () => {
      const rows = await env.api.db.benchmark.findMany({ where: { key: { in: ['mini', 'broken'] } } });
      const mini = rows.find((r) => r.key === 'mini');
      const bad = rows.find((r) => r.key === 'broken');
      return mini?.syncStatus === 'syncing' && mini.syncedTaskCount === 1 && bad?.syncStatus === 'failed';
    });

    const table = await osmosis(['benchmark', 'list']);
    expect(table.code).toBe(0);
    const lines = table.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^Name\s+Key\s+Last Run\s+Tasks$/);
    const row = (key: string) => lines.find((l) => l.split(/\s{2,}/)[1] === key)?.split(/\s{2,}/);
    expect(row('mini')).toEqual(['mini-bench@1.0', 'mini', 'Syncing · 1 / 3 tasks', '–']);
    expect(row('sample')).toEqual(['Osmosis Sample', 'sample', '–', '11']);
    const brokenRow = row('broken');
    expect(brokenRow?.[0]).toBe('Broken');
    expect(brokenRow?.[2]).toMatch(
      /^Sync failed: git fetch of git:\/\/127\.0\.0\.1:\d+\/missing\.git failed: /,
    );
    expect(brokenRow?.[3]).toBe('unavailable');

    const json = ListBenchmarksResponse.parse(
      JSON.parse((await osmosis(['benchmark', 'list', '--json'])).stdout),
    );
    const byKey = Object.fromEntries(json.items.map((i) => [i.key, i]));
    expect(byKey.mini).toMatchObject({
      sync_status: 'syncing',
      synced_task_count: 1,
      expected_task_count: 3,
    });
    expect(byKey.broken?.sync_status).toBe('failed');
    expect(byKey.broken?.sync_error).toMatch(/missing\.git failed/);
    expect(byKey.sample).toMatchObject({ sync_status: 'ready', task_count: 11, sync_error: null });
    // upstream's list item keys (_benchmark_list_resource), key = source_ref
    const raw = JSON.parse((await osmosis(['benchmark', 'list', '--json'])).stdout);
    for (const item of raw.items) expect(missingKeys(item, BENCHMARK_LIST_ITEM_KEYS)).toEqual([]);
    expect(raw.items.find((i: { key: string }) => i.key === 'sample')).toMatchObject({
      source_ref: 'sample',
      source_type: 'archive',
      run_count: 0,
      running_count: 0,
      last_run_at: null,
    });
    // --plain: upstream's rows, tab-separated, no header
    const plain = await osmosis(['--plain', 'benchmark', 'list']);
    const plainRows = plain.stdout
      .trimEnd()
      .split('\n')
      .map((l) => l.split('\t'));
    expect(plainRows.find((r) => r[1] === 'sample')).toEqual(['Osmosis Sample', 'sample', '–', '11']);
    expect(plainRows.find((r) => r[1] === 'mini')).toEqual([
      'mini-bench@1.0',
      'mini',
      'Syncing · 1 / 3 tasks',
      '–',
    ]);

    release();
    await waitFor(
      async () => (await env.api.db.benchmark.findFirst({ where: { key: 'mini' } }))?.syncStatus === 'ready',
    );
    const after = await osmosis(['benchmark', 'list']);
    expect(after.stdout).toMatch(/mini-bench@1\.0\s+mini\s+–\s+3\n/);
  });

  it('shows every field in info, with empty leaderboard and runs sections', async () => {
    const res = await osmosis(['benchmark', 'info', 'sample']);
    expect(res.code).toBe(0);
    const [head, rest] = res.stdout.split('\nLeaderboard\n');
    const fields = Object.fromEntries(
      (head ?? '')
        .split('\n')
        .filter(Boolean)
        .map((l) => {
          const [k, ...v] = l.split(/\s{2,}/);
          return [k, v.join('  ')];
        }),
    );
    expect(fields).toEqual({
      Key: 'sample',
      Name: 'Osmosis Sample',
      Description: expect.stringContaining('Eleven small terminal tasks'),
      'Source URL': '–',
      Source: 'uploaded archive',
      Sync: 'ready · 11 tasks',
      Tasks: '11 (easy 5, medium 4, hard 2, unrated 0)',
      Categories:
        '6: data-processing, file-operations, networking, software-engineering, system-administration, text-processing',
      'Task sets':
        'easy (2 tasks): The easy single-container tasks; smoke (1 task): One easy task, for a quick end-to-end check',
      'Default harness': 'oracle',
      'Harness requirements': 'none',
      'Judge model': 'not required',
      'Pass threshold': '1',
      'Required secrets': 'none',
      'Platform URL': `${env.api.app.config.publicUrl}/benchmarks/sample`,
    });
    expect(rest).toBe(
      'No leaderboard entries yet: runs on the full task set (or a recommended set) appear here.\n\n' +
        'Runs\nNo runs yet. Submit one with `osmosis benchmark submit CONFIG`.\n',
    );

    const json = await osmosis(['benchmark', 'info', 'Osmosis Sample', '--json']);
    // upstream's data: {benchmark, leaderboard, runs, runs_total_count}, the benchmark with upstream's keys
    const data = JSON.parse(json.stdout).data;
    expect(missingKeys(data, BENCHMARK_INFO_KEYS)).toEqual([]);
    expect(missingKeys(data.benchmark, BENCHMARK_INFO_BENCHMARK_KEYS)).toEqual([]);
    expect(data.runs_total_count).toBe(0);
    expect(data.benchmark.categories).toContainEqual({ name: 'data-processing', task_count: 2 });
    const detail = BenchmarkDetailResponse.parse({
      data: {
        ...data.benchmark,
        categories: data.benchmark.category_names,
        leaderboard: data.leaderboard,
        runs: data.runs,
      },
    }).data;
    expect(detail.tasks.map((t) => [t.name, t.difficulty, t.category])).toEqual([
      ['build-greeter', 'medium', 'software-engineering'],
      ['count-log-errors', 'easy', 'text-processing'],
      ['create-greeting', 'easy', 'file-operations'],
      ['fetch-from-sidecar', 'easy', 'networking'],
      ['find-large-files', 'medium', 'system-administration'],
      ['fix-backup-script', 'medium', 'software-engineering'],
      ['hand-in-report', 'easy', 'file-operations'],
      ['implement-rle', 'hard', 'software-engineering'],
      ['merge-sorted-logs', 'hard', 'data-processing'],
      ['sign-as-agent', 'easy', 'system-administration'],
      ['sum-csv-by-region', 'medium', 'data-processing'],
    ]);
    expect(detail.tasks[0]?.config.verifier.timeout_sec).toBe(30);
    expect(detail.leaderboard).toEqual([]);
    expect(detail.runs).toEqual([]);
  });

  it('retries a failed sync, reports an up-to-date one as unchanged, and names what is missing', async () => {
    const again = await osmosis(['benchmark', 'sync', 'sample', '--json']);
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ status: 'noop', operation: 'benchmark.sync' });
    const retry = await osmosis(['benchmark', 'sync', 'broken', '--wait']);
    expect(retry.code).toBe(1);
    expect(retry.stdout).toMatch(/The sync of broken failed again: git fetch of .*missing\.git failed/);
    const missing = await osmosis(['benchmark', 'info', 'nope', '--json']);
    expect(missing.code).toBe(1);
    expect(CliErrorEnvelope.parse(JSON.parse(missing.stderr)).error.code).toBe('NOT_FOUND');
  });

  it('adds from a registry file and a git URL, and deletes with --yes', async () => {
    const file = path.join(home, 'registry.json');
    const doc = await (await fetch(registry.url)).text();
    await writeFile(file, doc);
    const fromFile = await osmosis([
      'benchmark',
      'add',
      'mini-bench',
      '--registry',
      file,
      '--key',
      'mini-file',
      '--name',
      'Mini from file',
      '--wait',
    ]);
    expect(fromFile.code).toBe(0);
    expect(fromFile.stdout).toContain('Added Mini from file (mini-file) with 3 tasks.');
    const fromGit = await osmosis([
      'benchmark',
      'add',
      daemon.url('tb.git'),
      '--path',
      'tasks',
      '--judge-model',
      'openai/gpt-5',
      '--required-secret',
      'HF_TOKEN',
      '--required-secret',
      'EXTRA_KEY',
      '--wait',
      '--json',
    ]);
    const info = JSON.parse((await osmosis(['benchmark', 'info', 'tb-tasks', '--json'])).stdout).data
      .benchmark;
    expect(info).toMatchObject({
      requires_judge_model: true,
      judge_model_default: 'openai/gpt-5',
      required_secret_names: ['HF_TOKEN', 'EXTRA_KEY'],
      task_count: 3,
    });
    expect(JSON.parse(fromGit.stdout)).toMatchObject({ status: 'success', resource: { key: 'tb-tasks' } });
    // a synced git benchmark is not synced again: the CLI says how to use a newer commit
    expect(info.source_commit).toMatch(/^[0-9a-f]{40}$/);
    const resync = await osmosis(['benchmark', 'sync', 'tb-tasks']);
    expect(resync.code, resync.stderr).toBe(0);
    expect(resync.stdout).toContain(
      `is synced already (3 tasks at commit ${info.source_commit}); its tasks never change. To use a newer commit, add the repository again under another key.`,
    );
    const noTty = await osmosis(['--json', 'benchmark', 'delete', 'tb-tasks']);
    expect(noTty.code).toBe(1);
    expect(CliErrorEnvelope.parse(JSON.parse(noTty.stderr)).error.code).toBe('INTERACTIVE_REQUIRED');
    // looked up before anything is asked: a missing one is NOT_FOUND even without --yes
    const gone = await osmosis(['--json', 'benchmark', 'delete', 'no-such-bench']);
    expect(gone.code).toBe(1);
    expect(CliErrorEnvelope.parse(JSON.parse(gone.stderr)).error.code).toBe('NOT_FOUND');
    const del = await osmosis(['benchmark', 'delete', 'tb-tasks', '--yes']);
    expect(del.code).toBe(0);
    expect(del.stdout).toContain('Deleted benchmark tb-tasks.');
  });
});
