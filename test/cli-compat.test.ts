// A script written for the upstream Osmosis CLI 0.3 (osmosis-ai), run unchanged against this CLI:
// every benchmark, secret and auth command with --json, its exit code, one line of JSON per
// envelope, and the keys upstream documents (packages/cli/src/upstream-keys.ts cites where each
// set comes from). Then what upstream does inside a git repository: the workspace its `origin`
// is linked to (X-Osmosis-Git), `git`/`workspace_directory` in the envelopes, the nearest .env,
// config paths from the repository's root. The real binary against the real API.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type SeededMember, startTestApi, type TestApi } from '@osmosis/api/testing';
import {
  BENCHMARK_INFO_BENCHMARK_KEYS,
  BENCHMARK_INFO_KEYS,
  BENCHMARK_LIST_ITEM_KEYS,
  BENCHMARK_RUN_KEYS,
  DETAIL_ENVELOPE_KEYS,
  DOWNLOAD_RESOURCE_KEYS,
  ERROR_ENVELOPE_KEYS,
  ERROR_KEYS_V0_3_0,
  LIST_ENVELOPE_KEYS,
  LOG_ITEM_KEYS,
  LOGIN_RESOURCE_KEYS,
  LOGOUT_RESOURCE_KEYS,
  missingKeys,
  OPERATION_ENVELOPE_KEYS,
  PROGRESS_KEYS,
  RUN_INFO_KEYS,
  SECRET_DELETE_RESOURCE_KEYS,
  SECRET_KEYS,
  STOP_RESOURCE_KEYS,
  SUBMIT_RESOURCE_KEYS,
  WHOAMI_KEYS,
} from '@osmosis/cli/testing';
import { CliActionEnvelope, CliErrorEnvelope, CliListEnvelope, CliObjectEnvelope } from '@osmosis/contracts';
import { parseTaskConfig } from '@osmosis/tasks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedBenchmark, seedRun } from './results-seed.ts';
import { type CliResult, osmosis } from './submit-cli-support.ts';
import { PROVIDER_AGENT } from './submit-support.ts';

process.env.OSMOSIS_SECRET_KEYS = `compat:${Buffer.alloc(32, 4).toString('base64')}`;
const KEY_VALUE = 'sk-COMPAT-0ff1ce';

let api: TestApi;
let acme: SeededMember;
let globex: SeededMember;
let home: string;
let repo: string;

/** The upstream CLI's habits: --json, no OSMOSIS_TOKEN once logged in, run from the workspace directory. */
function sh(args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv; input?: string } = {}) {
  return osmosis(args, {
    platform: api.url,
    token: '',
    home,
    cwd: options.cwd ?? repo,
    env: { OSMOSIS_TOKEN: '', ...options.env },
    ...(options.input === undefined ? {} : { input: options.input }),
  });
}

/** One line of JSON on stdout (an envelope), nothing else. */
function stdoutEnvelope(r: CliResult): Record<string, unknown> {
  expect(r.stdout.endsWith('\n'), r.stderr).toBe(true);
  expect(r.stdout.trimEnd().includes('\n'), r.stdout).toBe(false);
  return JSON.parse(r.stdout);
}
/** The error envelope on stderr (one line), with upstream's keys. */
function stderrError(r: CliResult) {
  const lines = r.stderr.trimEnd().split('\n');
  const envelope = JSON.parse(lines.at(-1)!);
  expect(missingKeys(envelope, ERROR_ENVELOPE_KEYS)).toEqual([]);
  expect(missingKeys(envelope.error, ERROR_KEYS_V0_3_0)).toEqual([]);
  expect(typeof envelope.error.details).toBe('object');
  return CliErrorEnvelope.parse(envelope).error;
}
function action(r: CliResult, operation: string) {
  expect(r.code, r.stderr).toBe(0);
  const envelope = stdoutEnvelope(r);
  expect(missingKeys(envelope, OPERATION_ENVELOPE_KEYS)).toEqual([]);
  const parsed = CliActionEnvelope.parse(envelope);
  expect(parsed.operation).toBe(operation);
  return parsed;
}
function list(r: CliResult) {
  expect(r.code, r.stderr).toBe(0);
  const envelope = stdoutEnvelope(r);
  expect(missingKeys(envelope, LIST_ENVELOPE_KEYS)).toEqual([]);
  return CliListEnvelope.parse(envelope);
}
function detail(r: CliResult) {
  expect(r.code, r.stderr).toBe(0);
  const envelope = stdoutEnvelope(r);
  expect(missingKeys(envelope, DETAIL_ENVELOPE_KEYS)).toEqual([]);
  return CliObjectEnvelope.parse(envelope).data as Record<string, unknown>;
}

beforeAll(async () => {
  api = await startTestApi({ config: { authFailureLimit: 1000 } });
  acme = await api.seedWorkspace({ name: 'acme', email: 'ada@acme.test' });
  globex = await api.seedWorkspace({ name: 'globex', email: 'grace@globex.test' });
  home = mkdtempSync(path.join(os.tmpdir(), 'osmosis-compat-'));
  // the workspace directory: a clone whose origin is github.com/acme/bench
  repo = path.join(home, 'bench');
  mkdirSync(path.join(repo, '.git'), { recursive: true });
  writeFileSync(
    path.join(repo, '.git', 'config'),
    '[remote "origin"]\n\turl = git@github.com:Acme/bench.git\n',
  );
  mkdirSync(path.join(repo, 'configs', 'benchmark'), { recursive: true });
  mkdirSync(path.join(repo, 'docs'), { recursive: true });
  writeFileSync(
    path.join(repo, 'configs', 'benchmark', 'smoke.toml'),
    `[experiment]\nbenchmark = "compat-bench"\n\n[tasks]\ntask_names = ["task-00000"]\n\n[secrets]\nrequired = ["TOOL_TOKEN"]\n\n${PROVIDER_AGENT}`,
  );
  const bench = await seedBenchmark(api.db, acme.workspaceId, 3, 'compat-bench');
  // the stored manifest a sync writes (the detail view reads each task's config from it)
  const { config } = parseTaskConfig('version = "1.0"\n');
  await api.db.task.updateMany({
    where: { benchmarkId: bench.benchmarkId },
    data: { config: { config } as object },
  });
  await seedRun(api.db, {
    workspaceId: acme.workspaceId,
    userId: acme.userId,
    benchmarkId: bench.benchmarkId,
    tasks: 3,
    runName: 'done-run',
    attemptsPerTask: 1,
    agents: [{ harness: 'oracle', model: 'oracle' }],
    attempt: () => ({ outcome: 'passed', agent_ms: 10 }),
  });
});
afterAll(async () => {
  await api?.close();
  if (home) rmSync(home, { recursive: true, force: true });
});

describe('an upstream script, unchanged', { timeout: 1_200_000 }, () => {
  it('runs every benchmark, secret and auth command with --json: exit codes and keys as upstream documents', async () => {
    // bare `osmosis`: help, exit 0
    expect((await sh([])).code).toBe(0);
    // not logged in: AUTH_REQUIRED, exit 1
    const anonymous = await sh(['--json', 'auth', 'whoami']);
    expect(anonymous.code).toBe(1);
    expect(stderrError(anonymous).code).toBe('AUTH_REQUIRED');

    // auth login --token VALUE
    const login = action(await sh(['--json', 'auth', 'login', '--token', acme.token]), 'auth.login');
    expect(login.status).toBe('success');
    expect(missingKeys(login.resource, LOGIN_RESOURCE_KEYS)).toEqual([]);
    expect(login.resource).toMatchObject({ email: 'ada@acme.test', verified: true, saved: true });

    // auth whoami
    const who = detail(await sh(['--json', 'auth', 'whoami']));
    expect(missingKeys(who, WHOAMI_KEYS)).toEqual([]);
    expect(who).toMatchObject({ email: 'ada@acme.test', workspace: { name: 'acme', role: 'owner' } });

    // secret set / list / delete
    const set = action(
      await sh(['--json', 'secret', 'set', 'OPENAI_API_KEY', '--env', 'MY_KEY'], {
        env: { MY_KEY: KEY_VALUE },
      }),
      'secret.set',
    );
    expect(missingKeys(set.resource, SECRET_KEYS)).toEqual([]);
    action(
      await sh(['--json', 'secret', 'set', 'DOOMED', '--env', 'MY_KEY'], { env: { MY_KEY: KEY_VALUE } }),
      'secret.set',
    );
    const secrets = list(await sh(['--json', 'secret', 'list']));
    for (const item of secrets.items) expect(missingKeys(item, SECRET_KEYS)).toEqual([]);
    const wrongScope = await sh(['--json', 'secret', 'delete', 'DOOMED', '--scope', 'workspace', '--yes']);
    expect(wrongScope.code).toBe(1);
    expect(stderrError(wrongScope)).toMatchObject({ code: 'NOT_FOUND' });
    expect(stderrError(wrongScope).message).toContain(
      'Did you mean: osmosis secret delete DOOMED --scope personal',
    );
    const deleted = action(await sh(['--json', 'secret', 'delete', 'DOOMED', '--yes']), 'secret.delete');
    expect(missingKeys(deleted.resource, SECRET_DELETE_RESOURCE_KEYS)).toEqual([]);

    // benchmark list / info
    const benchmarks = list(await sh(['--json', 'benchmark', 'list']));
    expect(benchmarks.items).toHaveLength(1);
    expect(missingKeys(benchmarks.items[0], BENCHMARK_LIST_ITEM_KEYS)).toEqual([]);
    const info = detail(await sh(['--json', 'benchmark', 'info', 'compat-bench']));
    expect(missingKeys(info, BENCHMARK_INFO_KEYS)).toEqual([]);
    expect(missingKeys(info.benchmark, BENCHMARK_INFO_BENCHMARK_KEYS)).toEqual([]);
    const noBench = await sh(['--json', 'benchmark', 'info', 'nope']);
    expect(noBench.code).toBe(1);
    expect(stderrError(noBench).code).toBe('NOT_FOUND');

    // benchmark submit: --secrets-file for [secrets], --yes; without --yes INTERACTIVE_REQUIRED
    writeFileSync(path.join(home, 'run.env'), 'TOOL_TOKEN=tool-value-for-this-run\n');
    const unconfirmed = await sh([
      '--json',
      'benchmark',
      'submit',
      'configs/benchmark/smoke.toml',
      '--secrets-file',
      path.join(home, 'run.env'),
    ]);
    expect(unconfirmed.code).toBe(1);
    expect(stderrError(unconfirmed).code).toBe('INTERACTIVE_REQUIRED');
    const noValue = await sh(['--json', 'benchmark', 'submit', 'configs/benchmark/smoke.toml', '--yes']);
    expect(noValue.code).toBe(1);
    expect(stderrError(noValue)).toMatchObject({
      code: 'INTERACTIVE_REQUIRED',
      details: { missing: ['TOOL_TOKEN'], flags: ['--secrets-file'] },
    });
    const submitted = action(
      await sh(
        ['--json', 'benchmark', 'submit', 'configs/benchmark/smoke.toml', '--secrets-file', '-', '--yes'],
        {
          input: 'TOOL_TOKEN=tool-value-for-this-run\n',
        },
      ),
      'benchmark.submit',
    );
    expect(missingKeys(submitted.resource, SUBMIT_RESOURCE_KEYS)).toEqual([]);
    const runName = (submitted.resource as { name: string }).name;

    // benchmark runs list / info / logs
    const runs = list(await sh(['--json', 'benchmark', 'runs', 'list']));
    for (const item of runs.items) {
      expect(missingKeys(item, BENCHMARK_RUN_KEYS)).toEqual([]);
      expect(missingKeys((item as { progress: unknown }).progress, PROGRESS_KEYS)).toEqual([]);
    }
    const runInfo = detail(await sh(['--json', 'benchmark', 'runs', 'info', runName]));
    expect(missingKeys(runInfo, RUN_INFO_KEYS)).toEqual([]);
    expect(runInfo.configuration).toMatchObject({ resolved_secret_scopes: { TOOL_TOKEN: 'run' } });
    const logs = list(await sh(['--json', 'benchmark', 'runs', 'logs', runName, '--limit', '200']));
    expect(logs).toHaveProperty('next_cursor');
    for (const item of logs.items) expect(missingKeys(item, LOG_ITEM_KEYS)).toEqual([]);

    // benchmark runs download: a queued run has no outputs (CONFLICT); a finished one downloads
    const early = await sh(['--json', 'benchmark', 'runs', 'download', runName]);
    expect(early.code).toBe(1);
    expect(stderrError(early).code).toBe('CONFLICT');
    const download = action(
      await sh(['--json', 'benchmark', 'runs', 'download', 'done-run', '-o', 'out/done', '-y']),
      'benchmark.download',
    );
    expect(missingKeys(download.resource, DOWNLOAD_RESOURCE_KEYS)).toEqual([]);
    expect(download.resource).toMatchObject({
      output_path: path.join(repo, 'out', 'done'),
      files_downloaded: 2,
    });

    // benchmark runs stop
    const missingRun = await sh(['--json', 'benchmark', 'runs', 'stop', 'no-such-run']);
    expect(missingRun.code).toBe(1);
    expect(stderrError(missingRun).code).toBe('NOT_FOUND');
    const stopped = action(
      await sh(['--json', 'benchmark', 'runs', 'stop', runName, '--yes']),
      'benchmark.stop',
    );
    expect(missingKeys(stopped.resource, STOP_RESOURCE_KEYS)).toEqual([]);
    const again = await sh(['--json', 'benchmark', 'runs', 'stop', runName, '--yes']);
    expect(again.code).toBe(1);
    expect(stderrError(again).code).toBe('CONFLICT');

    // a bad command line: exit 2, VALIDATION
    for (const argv of [
      ['--json', 'benchmark', 'list', '--limit', '51'],
      ['--json', 'benchmark', 'nope'],
      ['--json', 'benchmark', 'info'],
    ]) {
      const bad = await sh(argv);
      expect(bad.code, argv.join(' ')).toBe(2);
      expect(stderrError(bad).code).toBe('VALIDATION');
    }

    // auth logout -y: revokes the token
    const logout = action(await sh(['--json', 'auth', 'logout', '-y']), 'auth.logout');
    expect(missingKeys(logout.resource, LOGOUT_RESOURCE_KEYS)).toEqual([]);
    expect(logout.resource).toMatchObject({ revoked: true, logged_in: false });
    const revoked = await sh(['--json', 'auth', 'whoami'], { env: { OSMOSIS_TOKEN: acme.token } });
    expect(revoked.code).toBe(1);
    expect(stderrError(revoked).code).toBe('AUTH_REQUIRED');
  });
});

describe('inside a git repository, as upstream', { timeout: 1_200_000 }, () => {
  it('uses the login of the workspace origin is linked to (X-Osmosis-Git), and reports git and workspace_directory', async () => {
    // the script above logged acme's seeded owner out (its token is revoked): another owner
    const acmeOwner = await api.addMember(acme.workspaceId, 'owner', 'otto@acme.test');
    const grace = await api.addMember(globex.workspaceId, 'owner', 'grace2@globex.test');
    // acme's owner invites grace2; she accepts with her own (globex) token
    const invited = await sh(['--json', 'member', 'add', 'grace2@globex.test'], {
      env: { OSMOSIS_TOKEN: acmeOwner.token },
    });
    expect(invited.code, invited.stderr).toBe(0);
    const code = JSON.parse(invited.stdout).data.code as string;
    const accepted = action(
      await sh(['--json', 'member', 'accept', code], { env: { OSMOSIS_TOKEN: grace.token } }),
      'member.accept',
    );
    expect(accepted.resource).toMatchObject({ name: 'acme', role: 'member' });
    const ownToken = await api.request('POST', '/v1/tokens', {
      token: grace.token,
      body: { name: 'acme', workspace: 'acme' },
    });
    expect(ownToken.status, ownToken.text).toBeLessThan(300);
    const acmeToken = (ownToken.body as { data: { token: string } }).data.token;
    const config = path.join(home, 'grace-config');
    const g = (args: string[], cwd = repo) => sh(args, { cwd, env: { OSMOSIS_CONFIG_DIR: config } });
    // two stored logins; the latest (globex) is the default
    expect((await g(['auth', 'login', '--token', acmeToken])).code).toBe(0);
    expect((await g(['auth', 'login', '--token', grace.token])).code).toBe(0);
    const before = detail(await g(['--json', 'auth', 'whoami']));
    expect(before).toMatchObject({ workspace: { name: 'globex' }, git: { identity: 'acme/bench' } });

    // acme's owner links the repository (run from inside it: its origin)
    const linked = action(
      await sh(['--json', 'workspace', 'link'], { env: { OSMOSIS_TOKEN: acmeOwner.token } }),
      'workspace.link',
    );
    expect(linked.resource).toMatchObject({
      identity: 'acme/bench',
      remote_url: 'ssh://git@github.com/Acme/bench.git',
    });

    // inside the clone: acme's login, and the envelopes say where
    const inside = detail(await g(['--json', 'auth', 'whoami']));
    expect(inside).toMatchObject({
      workspace: { name: 'acme' },
      selected_by: 'git',
      git: { identity: 'acme/bench', remote_url: 'ssh://git@github.com/Acme/bench.git' },
      workspace_directory: repo,
    });
    const benchList = list(await g(['--json', 'benchmark', 'list'], path.join(repo, 'docs')));
    expect(benchList).toMatchObject({ git: { identity: 'acme/bench' }, workspace_directory: repo });
    expect(benchList.items.map((b) => (b as { key: string }).key)).toEqual(['compat-bench']);
    // --workspace is explicit and wins; outside the repository, the default
    expect(detail(await g(['--json', 'auth', 'whoami', '--workspace', 'globex'])).workspace).toMatchObject({
      name: 'globex',
    });
    const outside = detail(await g(['--json', 'auth', 'whoami'], home));
    expect(outside).toMatchObject({ workspace: { name: 'globex' }, selected_by: 'default' });
    expect(outside).not.toHaveProperty('git');

    // linked to a workspace without a stored login: WORKSPACE_REQUIRED naming it and the fix
    const other = path.join(home, 'other-config');
    expect(
      (await sh(['auth', 'login', '--token', grace.token], { env: { OSMOSIS_CONFIG_DIR: other } })).code,
    ).toBe(0);
    const noLogin = await sh(['--json', 'benchmark', 'list'], { env: { OSMOSIS_CONFIG_DIR: other } });
    expect(noLogin.code).toBe(1);
    const err = stderrError(noLogin);
    expect(err).toMatchObject({ code: 'WORKSPACE_REQUIRED', details: { linked_workspaces: ['acme'] } });
    expect(err.hint).toContain('osmosis auth switch acme');
  });

  it('loads the nearest .env of the repository (OSMOSIS_PLATFORM_URL), and --env-file', async () => {
    const dir = path.join(home, 'dotenv');
    mkdirSync(path.join(dir, 'sub'), { recursive: true });
    writeFileSync(path.join(dir, '.env'), `OSMOSIS_PLATFORM_URL=${api.url}\nOSMOSIS_TOKEN=${globex.token}\n`);
    // no platform and no token in the environment: both from .env
    const r = await osmosis(['--json', 'auth', 'whoami'], {
      platform: '',
      token: '',
      home,
      cwd: path.join(dir, 'sub'),
      env: { OSMOSIS_PLATFORM_URL: '', OSMOSIS_TOKEN: '' },
    });
    expect(detail(r)).toMatchObject({ workspace: { name: 'globex' }, source: 'environment' });
    writeFileSync(path.join(home, 'acme.env'), `OSMOSIS_TOKEN=${globex.token}\n`);
    const named = await osmosis(['--json', '--env-file', path.join(home, 'acme.env'), 'auth', 'whoami'], {
      platform: api.url,
      token: '',
      home,
      env: { OSMOSIS_TOKEN: '' },
    });
    expect(detail(named)).toMatchObject({ workspace: { name: 'globex' } });
  });
});
