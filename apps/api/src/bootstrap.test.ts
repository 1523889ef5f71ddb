// First run: creates the workspace, its owner and a token once; safe to run again.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../test/helpers/db.ts';
import { bootstrap } from './bootstrap.ts';
import { resolveApiToken } from './services/tokens.ts';

const run = promisify(execFile);
let database: TestDatabase;
let dir: string;

beforeAll(async () => {
  database = await createTestDatabase();
  dir = await mkdtemp(path.join(tmpdir(), 'osmosis-bootstrap-'));
});
afterAll(async () => {
  await database?.drop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('bootstrap', () => {
  it('creates workspace, owner and token; a second run reuses the token file', async () => {
    const tokenFile = path.join(dir, 'nested', 'owner-token');
    const first = await bootstrap(database.db, { workspace: 'default', email: 'Owner@localhost', tokenFile });
    expect(first.created).toBe(true);
    expect(first.token).toMatch(/^osm_/);
    expect((await readFile(tokenFile, 'utf8')).trim()).toBe(first.token);
    expect((await stat(tokenFile)).mode & 0o777).toBe(0o600);
    const resolved = await resolveApiToken(database.db, first.token!);
    expect(resolved.ok && resolved.value).toMatchObject({
      role: 'owner',
      // the deployment's first owner runs it: its operator (the workers and queues views)
      user: { email: 'owner@localhost', isOperator: true },
      workspace: { name: 'default' },
    });
    expect(first.messages.join('\n')).toContain('owner@localhost is the operator of this deployment');

    const second = await bootstrap(database.db, {
      workspace: 'default',
      email: 'owner@localhost',
      tokenFile,
    });
    expect(second).toMatchObject({ created: false, reused: true, token: first.token });
    expect(await database.db.workspace.count()).toBe(1);
    expect(await database.db.apiToken.count()).toBe(1);
  });

  it('without a token file says it exists and issues a token only with --new-token', async () => {
    const again = await bootstrap(database.db, { workspace: 'default', email: 'owner@localhost' });
    expect(again).toMatchObject({ created: false, token: null });
    expect(again.messages.join('\n')).toMatch(/already exists/);
    const fresh = await bootstrap(database.db, {
      workspace: 'default',
      email: 'owner@localhost',
      newToken: true,
    });
    expect(fresh.token).toMatch(/^osm_/);
    expect(await database.db.apiToken.count()).toBe(2);
    await expect(
      bootstrap(database.db, { workspace: 'default', email: 'stranger@localhost', newToken: true }),
    ).rejects.toThrow(/not a member/);
  });

  it('replaces a stale token file only with --new-token', async () => {
    const tokenFile = path.join(dir, 'stale');
    await writeFile(tokenFile, `osm_${'Z'.repeat(43)}\n`);
    const kept = await bootstrap(database.db, { workspace: 'default', email: 'owner@localhost', tokenFile });
    expect(kept.token).toBeNull();
    expect(kept.messages.join('\n')).toMatch(/not valid/);
    const replaced = await bootstrap(database.db, {
      workspace: 'default',
      email: 'owner@localhost',
      tokenFile,
      newToken: true,
    });
    expect((await readFile(tokenFile, 'utf8')).trim()).toBe(replaced.token);
  });

  it('runs as a command: token on stdout, messages on stderr, twice', async () => {
    const script = path.join(import.meta.dirname, 'bootstrap.ts');
    const tokenFile = path.join(dir, 'cli-token');
    // the test database is a clone of the migrated template: skip the (slow, no-op) migrate deploy
    const env = { ...process.env, DATABASE_URL: database.url, OSMOSIS_SKIP_MIGRATIONS: '1' };
    const args = [script, '--workspace', 'cli-ws', '--email', 'cli@localhost', '--token-file', tokenFile];
    const first = await run(process.execPath, args, { env });
    expect(first.stdout.trim()).toMatch(/^osm_[A-Za-z0-9_-]{43}$/);
    expect(first.stderr).toContain('created workspace "cli-ws"');
    const second = await run(process.execPath, args, { env });
    expect(second.stdout.trim()).toBe(first.stdout.trim());
    expect(second.stderr).toContain('already exists');
    const bad = await run(process.execPath, [script, '--workspace', 'x'], { env }).catch((e) => e);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--email');
  }, 120_000);

  it('marks only the first owner an operator by itself; --operator marks another user, who must exist', async () => {
    const later = await bootstrap(database.db, { workspace: 'team-b', email: 'b-owner@localhost' });
    expect(later.created).toBe(true);
    const user = (email: string) => database.db.user.findUniqueOrThrow({ where: { email } });
    expect((await user('b-owner@localhost')).isOperator).toBe(false);
    const marked = await bootstrap(database.db, {
      workspace: 'team-b',
      email: 'B-Owner@localhost',
      operator: true,
    });
    expect(marked.messages.join('\n')).toContain('b-owner@localhost is an operator of this deployment');
    expect((await user('b-owner@localhost')).isOperator).toBe(true);
    await expect(
      bootstrap(database.db, { workspace: 'team-b', email: 'nobody@localhost', operator: true }),
    ).rejects.toThrow(/no user nobody@localhost/);
  });
});
