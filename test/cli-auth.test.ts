// `osmosis auth login | whoami | logout` end to end: the real CLI binary (bin/osmosis, spawned)
// against the real API (Fastify on loopback, fresh test database, test Redis).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  CliActionEnvelope,
  CliCredentialsFile,
  CliErrorEnvelope,
  cliObjectEnvelope,
  Me,
} from '@osmosis/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SeededMember, startTestApi, type TestApi } from '../apps/api/src/testing.ts';
import {
  LOGIN_RESOURCE_KEYS,
  LOGOUT_NOOP_RESOURCE_KEYS,
  LOGOUT_RESOURCE_KEYS,
  missingKeys,
  WHOAMI_ACCOUNT_KEYS,
  WHOAMI_KEYS,
  WHOAMI_WORKSPACE_KEYS,
} from '../packages/cli/src/upstream-keys.ts';

const OSMOSIS = path.resolve(import.meta.dirname, '../bin/osmosis');

let api: TestApi;
let owner: SeededMember;
let other: SeededMember;
let home: string;
let configDir: string;

interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
}

function osmosis(args: string[], options: { input?: string; env?: NodeJS.ProcessEnv } = {}): Promise<Result> {
  return new Promise((resolve, reject) => {
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      HOME: home,
      OSMOSIS_CONFIG_DIR: configDir,
      OSMOSIS_PLATFORM_URL: api.url,
      ...options.env,
    };
    const child = spawn(OSMOSIS, args, { env, stdio: ['pipe', 'pipe', 'pipe'] });
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
    child.stdin.end(options.input ?? '');
  });
}

const credentialsFile = () => path.join(configDir, 'credentials.json');

beforeAll(async () => {
  api = await startTestApi();
  owner = await api.seedWorkspace({ name: 'acme', email: 'ada@acme.test' });
  other = await api.seedWorkspace({ name: 'globex', email: 'grace@globex.test' });
  home = mkdtempSync(path.join(os.tmpdir(), 'osmosis-cli-auth-'));
  configDir = path.join(home, 'config', 'osmosis');
});

afterAll(async () => {
  await api?.close();
  if (home) rmSync(home, { recursive: true, force: true });
});

describe('osmosis auth against the API', () => {
  it('whoami before any login: AUTH_REQUIRED, exit 1 (upstream), with the fix', async () => {
    const result = await osmosis(['auth', 'whoami']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`Not logged in to ${api.url}`);
    expect(result.stderr).toContain('osmosis auth login --token');
    const json = await osmosis(['--json', 'auth', 'whoami']);
    expect(json.code).toBe(1);
    expect(CliErrorEnvelope.parse(JSON.parse(json.stderr)).error).toMatchObject({
      code: 'AUTH_REQUIRED',
      details: { osmosis_code: 'NOT_LOGGED_IN' },
    });
  });

  it('login with a wrong token (stdin or --token VALUE): AUTH_REQUIRED, exit 1, nothing stored', async () => {
    const result = await osmosis(['--json', 'auth', 'login', '--token'], { input: 'osm_not_a_real_token\n' });
    expect(result.code).toBe(1);
    const envelope = CliErrorEnvelope.parse(JSON.parse(result.stderr));
    expect(envelope).toMatchObject({
      command: 'auth login',
      error: { code: 'AUTH_REQUIRED', details: { platform_code: 'UNAUTHENTICATED', status_code: 401 } },
    });
    expect(result.stderr).not.toContain('osm_not_a_real_token');
    const argv = await osmosis(['--json', 'auth', 'login', '--token', 'osm_not_a_real_token']);
    expect(argv.code).toBe(1);
    expect(CliErrorEnvelope.parse(JSON.parse(argv.stderr)).error.code).toBe('AUTH_REQUIRED');
    expect(argv.stderr).not.toContain('osm_not_a_real_token');
    expect(() => statSync(credentialsFile())).toThrow();
  });

  it('login with the token on stdin stores it (0600 file, 0700 dir) after verifying it', async () => {
    const result = await osmosis(['auth', 'login', '--token'], { input: `${owner.token}\n` });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`Logged in as ada@acme.test (owner) in workspace acme on ${api.url}`);
    expect(result.stdout).not.toContain(owner.token);
    expect(statSync(credentialsFile()).mode & 0o777).toBe(0o600);
    expect(statSync(configDir).mode & 0o777).toBe(0o700);
    const stored = CliCredentialsFile.parse(JSON.parse(readFileSync(credentialsFile(), 'utf8')));
    expect(stored.platforms[api.url]).toMatchObject({
      default_workspace: 'acme',
      logins: { acme: { token: owner.token, workspace_id: owner.workspaceId, user_email: 'ada@acme.test' } },
    });
  });

  it('whoami prints a table', async () => {
    const result = await osmosis(['auth', 'whoami']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Platform\s+http:\/\/127\.0\.0\.1:\d+$/m);
    expect(result.stdout).toMatch(/^User\s+ada@acme\.test$/m);
    expect(result.stdout).toMatch(/^Workspace\s+acme$/m);
    expect(result.stdout).toMatch(/^Role\s+owner$/m);
    expect(result.stdout).toMatch(/^Credential\s+stored login/m);
    expect(result.stdout).not.toContain('\u001b['); // not a terminal: plain
    expect(result.stdout).not.toContain(owner.token);
  });

  it('whoami --json prints {schema_version: 1, data} with upstream’s keys and the /v1/me identity', async () => {
    const result = await osmosis(['auth', 'whoami', '--json']);
    expect(result.code).toBe(0);
    const envelope = cliObjectEnvelope(Me.loose()).parse(JSON.parse(result.stdout));
    expect(missingKeys(envelope.data, WHOAMI_KEYS)).toEqual([]);
    expect(missingKeys((envelope.data as Record<string, unknown>).account, WHOAMI_ACCOUNT_KEYS)).toEqual([]);
    const raw = JSON.parse(result.stdout).data;
    expect(missingKeys(raw.workspace, WHOAMI_WORKSPACE_KEYS)).toEqual([]);
    expect(raw).toMatchObject({
      email: 'ada@acme.test',
      source: 'credentials',
      effective_source: 'file',
      persistent_login: true,
      workspace: { id: owner.workspaceId, name: 'acme', role: 'owner' },
    });
    expect(envelope.data).toMatchObject({
      user: { id: owner.userId, email: 'ada@acme.test' },
      workspace: { id: owner.workspaceId, name: 'acme' },
      role: 'owner',
      token: { id: owner.tokenId },
      platform_url: api.url,
      credential_source: 'stored_login',
    });
  });

  it('OSMOSIS_TOKEN overrides the stored login', async () => {
    const result = await osmosis(['--json', 'auth', 'whoami'], { env: { OSMOSIS_TOKEN: other.token } });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout).data).toMatchObject({
      workspace: { name: 'globex' },
      credential_source: 'OSMOSIS_TOKEN',
      source: 'environment',
      effective_source: 'environment',
    });
  });

  it('keeps one login per workspace; --workspace selects one; the latest login is the default', async () => {
    const login = await osmosis(['auth', 'login', '--token', '--json'], { input: other.token });
    expect(login.code).toBe(0);
    const envelope = CliActionEnvelope.parse(JSON.parse(login.stdout));
    expect(envelope).toMatchObject({
      status: 'success',
      operation: 'auth.login',
      resource: {
        email: 'grace@globex.test',
        workspace: { id: other.workspaceId, name: 'globex' },
        source: 'token',
        verified: true,
        saved: true,
      },
    });
    expect(missingKeys(envelope.resource, LOGIN_RESOURCE_KEYS)).toEqual([]);
    expect(JSON.parse((await osmosis(['auth', 'whoami', '--json'])).stdout).data.workspace.name).toBe(
      'globex',
    );
    const acme = await osmosis(['auth', 'whoami', '--json', '--workspace', 'acme']);
    expect(JSON.parse(acme.stdout).data.workspace.name).toBe('acme');
    const missing = await osmosis(['auth', 'whoami', '--workspace', 'initech']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('for workspace initech');
  });

  it('a revoked stored token gives AUTH_REQUIRED, exit 1, and says to log in again', async () => {
    const member = await api.addMember(owner.workspaceId, 'member', 'mo@acme.test');
    const login = await osmosis(['auth', 'login', '--token'], { input: member.token });
    expect(login.code).toBe(0);
    const revoked = await api.request('DELETE', `/v1/tokens/${member.tokenId}`, { token: member.token });
    expect(revoked.status).toBe(200);
    const result = await osmosis(['auth', 'whoami']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('error:');
    expect(result.stderr).toContain('log in again with `osmosis auth login --token`');
  });

  it('logout -y revokes the token and removes the stored login; without -y it never prompts with --json', async () => {
    // a token of its own, so revoking it leaves the seeded ones alone
    const leaving = await api.addMember(other.workspaceId, 'member', 'leaving@globex.test');
    expect((await osmosis(['auth', 'login', '--token'], { input: leaving.token })).code).toBe(0);
    const unconfirmed = await osmosis(['auth', 'logout', '--workspace', 'globex', '--json']);
    expect(unconfirmed.code).toBe(1);
    expect(CliErrorEnvelope.parse(JSON.parse(unconfirmed.stderr)).error).toMatchObject({
      code: 'INTERACTIVE_REQUIRED',
      details: { prompt: expect.stringContaining('Logout') },
    });
    const out = await osmosis(['auth', 'logout', '--workspace', 'globex', '--json', '-y']);
    expect(out.code).toBe(0);
    const envelope = CliActionEnvelope.parse(JSON.parse(out.stdout));
    expect(envelope).toMatchObject({
      status: 'success',
      operation: 'auth.logout',
      resource: { revoked: true, logged_in: false, env_token_set: false, persistent_login: true },
    });
    expect(missingKeys(envelope.resource, LOGOUT_RESOURCE_KEYS)).toEqual([]);
    const dead = await osmosis(['--json', 'auth', 'whoami'], { env: { OSMOSIS_TOKEN: leaving.token } });
    expect(dead.code).toBe(1);
    expect(CliErrorEnvelope.parse(JSON.parse(dead.stderr)).error.code).toBe('AUTH_REQUIRED');
    const stored = CliCredentialsFile.parse(JSON.parse(readFileSync(credentialsFile(), 'utf8')));
    expect(Object.keys(stored.platforms[api.url]?.logins ?? {}).sort()).toEqual(['acme']);
    // the acme login's token (a member's) is revoked too: the seeded owner token stays valid
    expect((await osmosis(['auth', 'logout', '--yes'])).code).toBe(0);
    const again = await osmosis(['auth', 'logout', '--json']);
    expect(again.code).toBe(0);
    const noop = CliActionEnvelope.parse(JSON.parse(again.stdout));
    expect(noop).toMatchObject({ status: 'noop', resource: { logged_in: false } });
    expect(missingKeys(noop.resource, LOGOUT_NOOP_RESOURCE_KEYS)).toEqual([]);
    expect((await osmosis(['auth', 'whoami'])).code).toBe(1);
  });

  it('reports an unreachable platform (NETWORK, exit 1) and how to start it', async () => {
    const result = await osmosis(['auth', 'whoami', '--platform', 'http://127.0.0.1:1'], {
      env: { OSMOSIS_TOKEN: owner.token },
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('cannot reach the platform at http://127.0.0.1:1');
    expect(result.stderr).toContain('scripts/up.sh');
  });
});

describe('tenancy rules through the CLI', () => {
  // each person has a config directory of their own
  const dirs: string[] = [];
  const person = () => {
    const dir = path.join(home, `person-${dirs.length}`);
    dirs.push(dir);
    return (args: string[], options: { input?: string; env?: NodeJS.ProcessEnv } = {}) =>
      osmosis(args, { ...options, env: { OSMOSIS_CONFIG_DIR: dir, ...options.env } });
  };
  const json = (r: Result) => JSON.parse(r.stdout);
  const error = (r: Result) => CliErrorEnvelope.parse(JSON.parse(r.stderr)).error;

  it('member add: an existing user gets no token (they switch with their own); a new one gets a confined token', async () => {
    const admin = person();
    const grace = person();
    expect((await admin(['auth', 'login', '--token'], { input: owner.token })).code).toBe(0);
    expect((await grace(['auth', 'login', '--token'], { input: other.token })).code).toBe(0);

    const existing = await admin(['--json', 'member', 'add', 'grace@globex.test', '--role', 'member']);
    expect(existing.code).toBe(0);
    expect(json(existing).data).toMatchObject({
      user_created: false,
      token: null,
      member: { role: 'member' },
    });
    const human = await admin(['member', 'add', other.email.replace('grace', 'grace2'), '--role', 'viewer']);
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/^Token\s+osm_/m);
    expect(human.stderr).toContain('works only in this workspace');

    // grace starts using acme with a token of her own, made with her globex login
    const switched = await grace(['--json', 'auth', 'switch', 'acme']);
    expect(switched.code, switched.stderr).toBe(0);
    expect(json(switched)).toMatchObject({
      status: 'success',
      operation: 'auth.switch',
      resource: { name: 'acme' },
    });
    const who = await grace(['--json', 'auth', 'whoami']);
    expect(json(who).data).toMatchObject({
      workspace: { name: 'acme' },
      role: 'member',
      user: { email: 'grace@globex.test' },
    });
    // switching back uses the stored globex login
    const back = await grace(['--json', 'auth', 'switch', 'globex']);
    expect(json(back).message).toContain('stored login');
    expect(json(await grace(['--json', 'auth', 'whoami'])).data.workspace.name).toBe('globex');
    const list = await grace(['--json', 'workspace', 'list']);
    expect(
      json(list)
        .items.map((w: { name: string }) => w.name)
        .sort(),
    ).toEqual(['acme', 'globex']);
  });

  it('a token an admin received for a new user cannot reach another workspace', async () => {
    const admin = person();
    await admin(['auth', 'login', '--token'], { input: other.token });
    const added = await admin(['--json', 'member', 'add', 'newbie@example.test']);
    const lent = json(added).data.token.token as string;
    // newbie is then added to acme as an existing user
    await api.request('POST', '/v1/members', { token: owner.token, body: { email: 'newbie@example.test' } });
    const holder = person();
    expect((await holder(['auth', 'login', '--token'], { input: lent })).code).toBe(0);
    const who = await holder(['auth', 'whoami']);
    expect(who.stdout).toMatch(/^Reach\s+this workspace only/m);
    const switched = await holder(['--json', 'auth', 'switch', 'acme']);
    expect(switched.code).toBe(1);
    expect(error(switched)).toMatchObject({
      code: 'PLATFORM_ERROR',
      details: { platform_code: 'FORBIDDEN' },
    });
    expect(error(switched).message).toContain('works only in workspace globex');
    const list = await holder(['--json', 'workspace', 'list']);
    expect(json(list).items.map((w: { name: string }) => w.name)).toEqual(['globex']);
  });

  it('token create: bounded by the token used (role and expiry), and a read-only token cannot write', async () => {
    const member = await api.addMember(owner.workspaceId, 'member', 'bounded@acme.test');
    const me = person();
    await me(['auth', 'login', '--token'], { input: member.token });
    const up = await me(['--json', 'token', 'create', 'up', '--role', 'admin']);
    expect(up.code).toBe(1);
    expect(error(up).message).toContain('higher role');
    const short = await me(['--json', 'token', 'create', 'short', '--expires-in', '2h']);
    expect(short.code).toBe(0);
    const shortToken = json(short).data;
    const outlive = await me(['--json', 'token', 'create', 'longer', '--expires-in', '3h'], {
      env: { OSMOSIS_TOKEN: shortToken.token },
    });
    expect(outlive.code).toBe(1);
    expect(error(outlive)).toMatchObject({
      code: 'VALIDATION',
      details: { platform_code: 'VALIDATION_ERROR' },
    });
    expect(error(outlive).message).toContain('expires_at must not be later');
    const readOnly = await me(['--json', 'token', 'create', 'ro', '--role', 'viewer']);
    expect(json(readOnly).data.max_role).toBe('viewer');
    const write = await me(['--json', 'workspace', 'create', 'ro-space'], {
      env: { OSMOSIS_TOKEN: json(readOnly).data.token },
    });
    expect(write.code).toBe(1);
    expect(error(write).message).toContain('viewer role');
    // revoking the short token revokes what was made with it
    const child = await me(['--json', 'token', 'create', 'child'], {
      env: { OSMOSIS_TOKEN: shortToken.token },
    });
    const revoke = await me(['--json', 'token', 'revoke', shortToken.id, '--yes']);
    expect(revoke.code).toBe(0);
    const dead = await me(['auth', 'whoami'], { env: { OSMOSIS_TOKEN: json(child).data.token } });
    expect(dead.code).toBe(1);
  });

  it('viewers cannot create workspaces; members can', async () => {
    const viewer = await api.addMember(owner.workspaceId, 'viewer', 'vera@acme.test');
    const vera = person();
    await vera(['auth', 'login', '--token'], { input: viewer.token });
    const refused = await vera(['--json', 'workspace', 'create', 'vera-space']);
    expect(refused.code).toBe(1);
    expect(error(refused).message).toContain('read-only');
    const member = await api.addMember(owner.workspaceId, 'member', 'mona@acme.test');
    const mona = person();
    await mona(['auth', 'login', '--token'], { input: member.token });
    const created = await mona(['--json', 'workspace', 'create', 'mona-space']);
    expect(created.code, created.stderr).toBe(0);
    expect(json(await mona(['--json', 'auth', 'whoami'])).data).toMatchObject({
      workspace: { name: 'mona-space' },
      role: 'owner',
    });
  });

  it('benchmark delete with runs: --force and the admin role', async () => {
    const bench = await api.db.benchmark.create({
      data: {
        workspaceId: owner.workspaceId,
        key: 'cli-del',
        name: 'CLI Del',
        sourceKind: 'catalog',
        source: {},
        syncStatus: 'ready',
      },
    });
    await api.db.run.create({
      data: {
        workspaceId: owner.workspaceId,
        benchmarkId: bench.id,
        name: 'cli-del-run',
        status: 'finished',
        configToml: '',
        config: {},
        selection: {},
        taskCount: 0,
        attemptsPerTask: 1,
        maxConcurrentAttempts: 1,
        timeoutMultiplier: 1,
        maxRetries: 0,
        passThreshold: 1,
        createdById: owner.userId,
      },
    });
    const member = await api.addMember(owner.workspaceId, 'member', 'del-member@acme.test');
    const asMember = person();
    await asMember(['auth', 'login', '--token'], { input: member.token });
    const noFlag = await asMember(['--json', 'benchmark', 'delete', 'cli-del', '--yes']);
    expect(noFlag.code).toBe(1);
    expect(error(noFlag)).toMatchObject({ code: 'CONFLICT', details: { run_count: 1 } });
    expect(error(noFlag).message).toContain('--force');
    const forced = await asMember(['--json', 'benchmark', 'delete', 'cli-del', '--yes', '--force']);
    expect(forced.code).toBe(1);
    expect(error(forced).message).toContain('admin');
    const asOwner = await osmosis(['--json', 'benchmark', 'delete', 'cli-del', '--yes', '--force'], {
      env: { OSMOSIS_TOKEN: owner.token },
    });
    expect(asOwner.code, asOwner.stderr).toBe(0);
    expect(await api.db.run.count({ where: { benchmarkId: bench.id } })).toBe(0);
  });
});
