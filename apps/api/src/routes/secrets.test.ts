// Secret records through the real API: upsert, scopes, roles, and the planted value never
// appearing in the database in clear, in any response, in logs at trace level or in errors.
import { Writable } from 'node:stream';
import { decryptSecretValue, parseSecretKeyRing } from '@osmosis/core';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loggerOptions } from '../logger.ts';
import { resolveSecretsForUser } from '../secret-records.ts';
import { type SeededMember, startTestApi, type TestApi } from '../testing.ts';

process.env.OSMOSIS_SECRET_KEYS = `k1:${Buffer.alloc(32, 7).toString('base64')}`;

const PLANTED = 'sk-PLANTED-7f3a9c2e-value-never-shown';
const PLANTED_2 = 'sk-SECOND-4b1d-planted';

let api: TestApi;
let owner: SeededMember;
let admin: SeededMember;
let member: SeededMember;
let viewer: SeededMember;
let other: SeededMember;
const logLines: string[] = [];
const bodies: string[] = [];

async function call(method: string, path: string, token: string, body?: unknown) {
  const res = await api.request(method, path, { token, body });
  bodies.push(res.text);
  return res;
}

beforeAll(async () => {
  const sink = new Writable({
    write(chunk, _enc, done) {
      logLines.push(chunk.toString());
      done();
    },
  });
  api = await startTestApi({
    logger: pino({ ...loggerOptions('trace') }, sink),
    config: { authFailureLimit: 1000 },
  });
  owner = await api.seedWorkspace();
  admin = await api.addMember(owner.workspaceId, 'admin');
  member = await api.addMember(owner.workspaceId, 'member');
  viewer = await api.addMember(owner.workspaceId, 'viewer');
  other = await api.seedWorkspace();
});
afterAll(async () => {
  await api?.close();
});

describe('secret records', () => {
  it('creates a personal record by default, then replaces it (upsert)', async () => {
    const first = await call('PUT', '/v1/secrets/OPENAI_API_KEY', member.token, { value: PLANTED });
    expect(first.status).toBe(201);
    expect(first.body.data).toMatchObject({
      name: 'OPENAI_API_KEY',
      scope: 'personal',
      created: true,
      owner: { id: member.userId },
      set_by: { id: member.userId, email: member.email },
    });
    expect(first.body.data).not.toHaveProperty('value');
    const second = await call('PUT', '/v1/secrets/OPENAI_API_KEY', member.token, { value: PLANTED_2 });
    expect(second.status).toBe(200);
    expect(second.body.data.created).toBe(false);
    const rows = await api.db.secret.findMany({ where: { name: 'OPENAI_API_KEY' } });
    expect(rows).toHaveLength(1);
    const ring = parseSecretKeyRing(process.env.OSMOSIS_SECRET_KEYS);
    expect(decryptSecretValue(ring, { ...rows[0]!, scope: rows[0]!.scope })).toBe(PLANTED_2);
  });

  it('concurrent sets of one record leave one row', async () => {
    await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        call('PUT', '/v1/secrets/RACE_KEY', member.token, { value: `${PLANTED}-${i}` }),
      ),
    );
    expect(await api.db.secret.count({ where: { name: 'RACE_KEY' } })).toBe(1);
  });

  it('workspace records need admin or owner to create and delete', async () => {
    const denied = await call('PUT', '/v1/secrets/SHARED_KEY', member.token, {
      value: PLANTED,
      scope: 'workspace',
    });
    expect(denied.status).toBe(403);
    expect(denied.body.error.code).toBe('FORBIDDEN');
    expect(denied.body.error.message).toContain('admin role');
    const ok = await call('PUT', '/v1/secrets/SHARED_KEY', admin.token, {
      value: PLANTED,
      scope: 'workspace',
    });
    expect(ok.status).toBe(201);
    expect(ok.body.data.owner).toBeNull();
    expect(
      (await call('PUT', '/v1/secrets/SHARED_KEY', owner.token, { value: PLANTED, scope: 'workspace' }))
        .status,
    ).toBe(200);
    const del = await call('DELETE', '/v1/secrets/SHARED_KEY?scope=workspace', member.token);
    expect(del.status).toBe(403);
  });

  it('viewers cannot set records', async () => {
    const res = await call('PUT', '/v1/secrets/VIEWER_KEY', viewer.token, { value: PLANTED });
    expect(res.status).toBe(403);
  });

  it('lists names, scopes, who and when — workspace records and only your own personal ones', async () => {
    await call('PUT', '/v1/secrets/ADMIN_PERSONAL', admin.token, { value: PLANTED });
    const all = await call('GET', '/v1/secrets', member.token);
    expect(all.status).toBe(200);
    const seen = all.body.items.map((s: { name: string; scope: string }) => `${s.scope}:${s.name}`);
    expect(seen).toEqual(['personal:OPENAI_API_KEY', 'personal:RACE_KEY', 'workspace:SHARED_KEY']);
    const shared = all.body.items.find((s: { name: string }) => s.name === 'SHARED_KEY');
    expect(shared.set_by.id).toBe(owner.userId);
    expect(Object.keys(shared).sort()).toEqual([
      'created_at',
      'creator_name',
      'id',
      'name',
      'owner',
      'scope',
      'set_by',
      'updated_at',
      'updater_name',
    ]);
    // the upstream CLI's keys: the record's id, who created it and who set its value
    expect(shared).toMatchObject({ creator_name: expect.any(String), updater_name: expect.any(String) });
    const ws = await call('GET', '/v1/secrets?scope=workspace', member.token);
    expect(ws.body.items.map((s: { name: string }) => s.name)).toEqual(['SHARED_KEY']);
    const personal = await call('GET', '/v1/secrets?scope=personal', admin.token);
    expect(personal.body.items.map((s: { name: string }) => s.name)).toEqual(['ADMIN_PERSONAL']);
    const viewerList = await call('GET', '/v1/secrets', viewer.token);
    expect(viewerList.body.items.map((s: { name: string }) => s.name)).toEqual(['SHARED_KEY']);
    // another workspace sees nothing
    const foreign = await call('GET', '/v1/secrets', other.token);
    expect(foreign.body.total_count).toBe(0);
  });

  it('keeps who created a record apart from who set its value last (creator_name, updater_name)', async () => {
    const put = (who: SeededMember) =>
      api.request('PUT', '/v1/secrets/AUTHORED_KEY', {
        token: who.token,
        body: { value: PLANTED, scope: 'workspace' },
      });
    expect((await put(owner)).status).toBe(201);
    const replaced = await put(admin);
    expect(replaced.status).toBe(200);
    expect(replaced.body.data).toMatchObject({ creator_name: owner.email, updater_name: admin.email });
    expect(replaced.body.data.id).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('a personal record overrides a workspace record for its owner', async () => {
    const forMember = await resolveSecretsForUser(api.db, owner.workspaceId, member.userId, [
      'SHARED_KEY',
      'OPENAI_API_KEY',
      'NOPE',
    ]);
    expect(forMember.get('SHARED_KEY')!.scope).toBe('workspace');
    expect(forMember.get('OPENAI_API_KEY')!.scope).toBe('personal');
    expect(forMember.has('NOPE')).toBe(false);
    await call('PUT', '/v1/secrets/SHARED_KEY', member.token, { value: PLANTED });
    const after = await resolveSecretsForUser(api.db, owner.workspaceId, member.userId, ['SHARED_KEY']);
    expect(after.get('SHARED_KEY')!.scope).toBe('personal');
    const forAdmin = await resolveSecretsForUser(api.db, owner.workspaceId, admin.userId, [
      'SHARED_KEY',
      'OPENAI_API_KEY',
    ]);
    expect(forAdmin.get('SHARED_KEY')!.scope).toBe('workspace');
    expect(forAdmin.has('OPENAI_API_KEY')).toBe(false);
  });

  it('deletes a personal record; a second delete is 404', async () => {
    await call('PUT', '/v1/secrets/TEMP_KEY', member.token, { value: PLANTED });
    const del = await call('DELETE', '/v1/secrets/TEMP_KEY', member.token);
    expect(del.status).toBe(200);
    expect(del.body.data).toEqual({ name: 'TEMP_KEY', scope: 'personal', deleted: true });
    const again = await call('DELETE', '/v1/secrets/TEMP_KEY', member.token);
    expect(again.status).toBe(404);
    expect(again.body.error.message).toContain('no personal secret record named TEMP_KEY');
    // someone else's personal record cannot be deleted (it is not theirs to name)
    expect((await call('DELETE', '/v1/secrets/ADMIN_PERSONAL', member.token)).status).toBe(404);
  });

  it('rejects bad names and bodies without echoing the value', async () => {
    const badName = await call('PUT', '/v1/secrets/openai-key', member.token, { value: PLANTED });
    expect(badName.status).toBe(400);
    expect(badName.text).toContain('^[A-Z][A-Z0-9_]*$');
    const extra = await call('PUT', '/v1/secrets/GOOD_NAME', member.token, {
      value: PLANTED,
      scope: 'galaxy',
      x: PLANTED,
    });
    expect(extra.status).toBe(400);
    const tooLong = await call('PUT', '/v1/secrets/GOOD_NAME', member.token, { value: PLANTED.repeat(3000) });
    expect(tooLong.status).toBe(400);
    expect(tooLong.text).toContain('longer than');
    const empty = await call('PUT', '/v1/secrets/GOOD_NAME', member.token, { value: '' });
    expect(empty.status).toBe(400);
  });

  it('a body that is not valid JSON is refused without quoting it (the parser quotes its input)', async () => {
    // a value pasted without quotes, or cut short: V8's SyntaxError message quotes the text it read
    for (const raw of [
      `{"value": ${PLANTED}}`,
      `{"value": "${PLANTED}"`,
      `{"scope":"personal","value":"${PLANTED}",}`,
      `${PLANTED}`,
    ]) {
      const res = await call('PUT', '/v1/secrets/GOOD_NAME', member.token, raw);
      expect(res.status, raw).toBe(400);
      expect(res.text, raw).not.toContain('PLANTED');
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
      expect(res.body.error.message).toMatch(/not valid JSON/);
    }
    expect(logLines.join('')).not.toContain('PLANTED');
  });

  it('without a key ring the platform refuses to store values (503) and says why', async () => {
    const saved = process.env.OSMOSIS_SECRET_KEYS;
    delete process.env.OSMOSIS_SECRET_KEYS;
    try {
      const res = await call('PUT', '/v1/secrets/NO_RING', member.token, { value: PLANTED });
      expect(res.status).toBe(503);
      expect(res.body.error.message).toContain('OSMOSIS_SECRET_KEYS is not set');
    } finally {
      process.env.OSMOSIS_SECRET_KEYS = saved;
    }
  });

  it('the planted values appear nowhere: database, responses, logs', async () => {
    // every column of every secrets row, as text (bytea as hex and as UTF-8 where decodable)
    const rows = await api.db.$queryRawUnsafe<{ j: string; c: string }[]>(
      "SELECT row_to_json(s)::text AS j, encode(s.ciphertext, 'escape') AS c FROM secrets s",
    );
    expect(rows.length).toBeGreaterThan(0);
    const hex = (v: string) => Buffer.from(v, 'utf8').toString('hex');
    for (const r of rows)
      for (const v of [PLANTED, PLANTED_2, 'PLANTED']) {
        expect(r.j).not.toContain(v);
        expect(r.j).not.toContain(hex(v));
        expect(r.c).not.toContain(v);
      }
    // a dump of the whole database as text
    const dump = await api.db.$queryRawUnsafe<{ t: string }[]>(
      "SELECT string_agg(row_to_json(x)::text, '\n') AS t FROM (SELECT * FROM secrets) x",
    );
    expect(dump[0]!.t).not.toContain('PLANTED');
    for (const body of bodies) expect(body).not.toContain('PLANTED');
    const logs = logLines.join('');
    expect(logs.length).toBeGreaterThan(0);
    expect(logs).toContain('secret record set');
    expect(logs).not.toContain('PLANTED');
    expect(logs).not.toContain('SECOND');
  });
});
