// The CLI's device login over HTTP against the real API and Postgres: upstream's shapes and error
// codes, approval on /device with the session's CSRF token, single use, expiry, denial, the
// approving session's sign-out, token sessions' bounds, and the abuse cases (a second approval,
// another session's CSRF token, unknown codes, floods, hostile device names).

import { type SeededMember, startTestApi, type TestApi } from '@osmosis/api/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  accountRows,
  Browser,
  csrfOf,
  passwordSignIn,
  setPassword,
  testAccounts,
} from './accounts-support.ts';

const PASSWORD = 'correct horse battery staple';

let api: TestApi;
let owner: SeededMember;

beforeAll(async () => {
  api = await startTestApi({
    config: {
      trustProxy: true,
      accounts: testAccounts({ signInFailureLimit: 5 }),
      // every guess of the flood stays in the window however slow a busy machine makes them
      authFailureLimit: 50,
      authFailureWindowMs: 3_600_000,
    },
  });
  api.app.config.publicUrl = api.url;
  owner = await api.seedWorkspace({ email: 'devi@example.test' });
  await setPassword(api.db, owner.email, PASSWORD);
}, 120_000);

afterAll(async () => {
  await api?.close();
});

let clients = 0;
/** A CLI on a client address of its own (each test's codes count against its own address). */
function cli() {
  clients += 1;
  const ip = `10.20.${Math.floor(clients / 250)}.${clients % 250}`;
  const post = async (path: string, body: unknown) => {
    const res = await fetch(`${api.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': ip },
      body: JSON.stringify(body),
    });
    return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, unknown> };
  };
  return {
    ip,
    authorize: (body: unknown = { deviceName: 'ada-laptop' }) => post('/api/cli/device/authorize', body),
    token: (deviceCode: unknown) => post('/api/cli/device/token', { device_code: deviceCode }),
  };
}

async function signedIn(ip = '10.30.0.1'): Promise<Browser> {
  const browser = new Browser(ip);
  expect((await passwordSignIn(browser, api.url, owner.email, PASSWORD)).status).toBe(303);
  return browser;
}

/** Opens the approval page of `userCode` and posts the decision with that page's CSRF value. */
async function decide(
  browser: Browser,
  userCode: string,
  decision: 'approve' | 'deny',
  workspace = owner.workspaceId,
) {
  const pageOf = await browser.get(`${api.url}/device?code=${encodeURIComponent(userCode)}`);
  expect(pageOf.status, pageOf.text).toBe(200);
  return browser.post(`${api.url}/device`, {
    _csrf: csrfOf(pageOf.text),
    user_code: userCode,
    workspace,
    decision,
  });
}

/** Lets the next poll count as on time (the test does not wait out the interval). */
async function pollable(deviceCode: string) {
  await api.db.deviceAuthorization.updateMany({ data: { lastPolledAt: null } });
  return deviceCode;
}

describe('device login (RFC 8628, upstream shapes)', () => {
  it('answers authorize with the code pair and stores only hashes', async () => {
    const device = cli();
    const res = await device.authorize({ deviceName: 'ada-laptop' });
    expect(res.status).toBe(200);
    const body = res.body as {
      device_code: string;
      user_code: string;
      verification_uri: string;
      verification_uri_complete: string;
    };
    expect(body).toMatchObject({ expires_in: 600, interval: 5, verification_uri: `${api.url}/device` });
    expect(body.user_code).toMatch(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/);
    expect(body.verification_uri_complete).toBe(`${api.url}/device?code=${body.user_code}`);
    expect(body.device_code).toMatch(/^osmdev_[A-Za-z0-9_-]{43}$/);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const dump = JSON.stringify(await api.db.deviceAuthorization.findMany());
    expect(dump).not.toContain(body.device_code);
    expect(dump).not.toContain(body.user_code.replace('-', ''));
    expect(dump).toContain('ada-laptop');
  });

  it('pends, slows a fast poller down, then issues one token named after the device, once', async () => {
    const device = cli();
    const { device_code, user_code } = (await device.authorize({ deviceName: 'ada-laptop' })).body as Record<
      string,
      string
    >;
    const pending = await device.token(device_code);
    expect(pending.status).toBe(400);
    expect(pending.body.error).toBe('authorization_pending');
    // polled again at once, well inside the interval
    await api.db.deviceAuthorization.updateMany({
      where: { deviceName: 'ada-laptop' },
      data: { intervalSeconds: 300 },
    });
    const slow = await device.token(device_code);
    expect(slow.body.error).toBe('slow_down');
    expect(
      (
        await api.db.deviceAuthorization.findFirst({
          where: { lastPolledAt: { not: null }, intervalSeconds: 305 },
        })
      )?.status,
    ).toBe('pending');

    const browser = await signedIn();
    const approved = await decide(browser, user_code as string, 'approve');
    expect(approved.status).toBe(200);
    expect(approved.text).toContain('Device approved');
    const issued = await device.token(await pollable(device_code as string));
    expect(issued.status).toBe(200);
    const body = issued.body as {
      token: string;
      token_id: string;
      token_name: string;
      expires_at: string;
      user: { id: string; email: string; name: string | null };
      workspace: { name: string; role: string };
    };
    expect(body.token_name).toBe('ada-laptop');
    expect(body.user).toEqual({ id: owner.userId, email: owner.email, name: null });
    expect(body.workspace).toMatchObject({ name: owner.workspaceName, role: 'owner' });
    const days = (new Date(body.expires_at).getTime() - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(89);
    expect(days).toBeLessThanOrEqual(90);
    const me = await api.request('GET', '/v1/me', { token: body.token });
    expect(me.status).toBe(200);
    expect(me.body.data.token).toMatchObject({ id: body.token_id, name: 'ada-laptop' });
    // single use: the code gives nothing a second time
    const again = await device.token(await pollable(device_code as string));
    expect(again.status).toBe(400);
    expect(again.body.error).toBe('invalid_grant');
    expect(await api.db.apiToken.count({ where: { name: 'ada-laptop' } })).toBe(1);
  });

  it('is approved once: a second approval, from this session or another, changes nothing', async () => {
    const device = cli();
    const { user_code } = (await device.authorize({ deviceName: 'twice' })).body as Record<string, string>;
    const first = await signedIn('10.31.0.1');
    const pageOf = await first.get(`${api.url}/device?code=${user_code}`);
    const second = await signedIn('10.31.0.2');
    const secondPage = await second.get(`${api.url}/device?code=${user_code}`);
    expect(
      (
        await first.post(`${api.url}/device`, {
          _csrf: csrfOf(pageOf.text),
          user_code: user_code as string,
          workspace: owner.workspaceId,
          decision: 'approve',
        })
      ).status,
    ).toBe(200);
    const row = await api.db.deviceAuthorization.findFirstOrThrow({ where: { deviceName: 'twice' } });
    for (const [browser, csrf, decision] of [
      [first, csrfOf(pageOf.text), 'approve'],
      [second, csrfOf(secondPage.text), 'approve'],
      [second, csrfOf(secondPage.text), 'deny'],
    ] as const) {
      const res = await browser.post(`${api.url}/device`, {
        _csrf: csrf,
        user_code: user_code as string,
        workspace: owner.workspaceId,
        decision,
      });
      expect(res.status).toBe(409);
      expect(res.text).toContain('not waiting for approval');
    }
    expect(await api.db.deviceAuthorization.findUniqueOrThrow({ where: { id: row.id } })).toEqual(row);
  });

  it("refuses an approval carrying another session's CSRF token, or none (another site's form)", async () => {
    const device = cli();
    const { user_code } = (await device.authorize({ deviceName: 'forged' })).body as Record<string, string>;
    const victim = await signedIn('10.32.0.1');
    const attacker = await signedIn('10.32.0.2');
    const attackerCsrf = csrfOf((await attacker.get(`${api.url}/device`)).text);
    const before = await accountRows(api.db);
    for (const form of [{ _csrf: attackerCsrf }, {}, { _csrf: 'forged' }] as Record<string, string>[]) {
      const res = await victim.post(`${api.url}/device`, {
        ...form,
        user_code: user_code as string,
        workspace: owner.workspaceId,
        decision: 'approve',
      });
      expect(res.status).toBe(403);
      expect(res.text).toContain('CSRF');
    }
    // and without a session at all
    const anonymous = await new Browser().post(`${api.url}/device`, {
      user_code: user_code as string,
      decision: 'approve',
    });
    expect(anonymous.status).toBe(401);
    expect(await accountRows(api.db)).toEqual(before);
  });

  it('tells a denied, expired or unknown code apart, as upstream reads them', async () => {
    const device = cli();
    const denied = (await device.authorize({ deviceName: 'denied' })).body as Record<string, string>;
    expect((await decide(await signedIn(), denied.user_code as string, 'deny')).text).toContain(
      'Device denied',
    );
    const answer = await device.token(denied.device_code);
    expect(answer).toMatchObject({ status: 400, body: { error: 'access_denied' } });

    const expired = (await device.authorize({ deviceName: 'expired' })).body as Record<string, string>;
    await api.db.deviceAuthorization.updateMany({
      where: { deviceName: 'expired' },
      data: { expiresAt: new Date(Date.now() - 1000) },
    });
    expect(await device.token(expired.device_code)).toMatchObject({
      status: 400,
      body: { error: 'expired_token' },
    });
    const expiredPage = await (await signedIn()).get(`${api.url}/device?code=${expired.user_code}`);
    expect(expiredPage.status).toBe(404);

    const before = await accountRows(api.db);
    expect(await device.token('osmdev_not-a-code')).toMatchObject({
      status: 400,
      body: { error: 'invalid_grant' },
    });
    expect(await device.token(12)).toMatchObject({ status: 400, body: { error: 'invalid_request' } });
    expect(await accountRows(api.db)).toEqual(before);
  });

  it('issues nothing when the approving session signed out before the CLI polled', async () => {
    const device = cli();
    const { device_code, user_code } = (await device.authorize({ deviceName: 'signed-out' })).body as Record<
      string,
      string
    >;
    const browser = await signedIn();
    expect((await decide(browser, user_code as string, 'approve')).status).toBe(200);
    const pageOf = await browser.get(`${api.url}/tokens`);
    expect((await browser.post(`${api.url}/logout`, { _csrf: csrfOf(pageOf.text) })).status).toBe(303);
    const tokens = await api.db.apiToken.count();
    expect(await device.token(await pollable(device_code as string))).toMatchObject({
      status: 400,
      body: { error: 'access_denied' },
    });
    expect(await api.db.apiToken.count()).toBe(tokens);
  });

  it('hands out the workspace the person chose, and only one of theirs', async () => {
    const team = await api.seedWorkspace({ name: 'device-team' });
    await api.db.membership.create({
      data: { workspaceId: team.workspaceId, userId: owner.userId, role: 'member' },
    });
    const device = cli();
    const { device_code, user_code } = (
      await device.authorize({ deviceName: 'chooser', workspace: 'device-team' })
    ).body as Record<string, string>;
    const browser = await signedIn();
    const pageOf = await browser.get(`${api.url}/device?code=${user_code}`);
    expect(pageOf.text).toMatch(
      new RegExp(`<option value="${team.workspaceId}" selected>device-team \\(member\\)`),
    );
    const stranger = await api.seedWorkspace();
    const refused = await browser.post(`${api.url}/device`, {
      _csrf: csrfOf(pageOf.text),
      user_code: user_code as string,
      workspace: stranger.workspaceId,
      decision: 'approve',
    });
    expect(refused.status).toBe(400);
    expect(
      (await api.db.deviceAuthorization.findFirstOrThrow({ where: { deviceName: 'chooser' } })).status,
    ).toBe('pending');
    expect((await decide(browser, user_code as string, 'approve', team.workspaceId)).status).toBe(200);
    const issued = await device.token(await pollable(device_code as string));
    expect(issued.body.workspace).toMatchObject({
      id: team.workspaceId,
      name: 'device-team',
      role: 'member',
    });
  });

  it("bounds a token session's approval by its token: expiry, role, revocation", async () => {
    const parent = await api.request('POST', '/v1/tokens', {
      token: owner.token,
      body: {
        name: 'short-lived',
        role: 'viewer',
        expires_at: new Date(Date.now() + 3 * 86_400_000).toISOString(),
      },
    });
    expect(parent.status).toBe(201);
    const browser = new Browser('10.33.0.1');
    const login = await browser.get(`${api.url}/login`);
    expect(
      (await browser.post(`${api.url}/login`, { _csrf: csrfOf(login.text), token: parent.body.data.token }))
        .status,
    ).toBe(303);
    const device = cli();
    const { device_code, user_code } = (await device.authorize({ deviceName: 'bounded' })).body as Record<
      string,
      string
    >;
    expect((await decide(browser, user_code as string, 'approve')).status).toBe(200);
    const issued = await device.token(await pollable(device_code as string));
    expect(issued.status).toBe(200);
    expect(issued.body.workspace).toMatchObject({ role: 'viewer' });
    expect(new Date(issued.body.expires_at as string).getTime()).toBeLessThanOrEqual(
      new Date(parent.body.data.expires_at).getTime(),
    );
    const row = await api.db.apiToken.findUniqueOrThrow({ where: { id: issued.body.token_id as string } });
    expect(row).toMatchObject({ parentId: parent.body.data.id, maxRole: 'viewer' });
    await api.request('DELETE', `/v1/tokens/${parent.body.data.id}`, { token: owner.token });
    expect((await api.request('GET', '/v1/me', { token: issued.body.token as string })).status).toBe(401);
  });

  it('limits open codes per client, and unknown device codes per client', async () => {
    const device = cli();
    for (let i = 0; i < 10; i++)
      expect((await device.authorize({ deviceName: `flood-${i}` })).status).toBe(200);
    const before = await api.db.deviceAuthorization.count();
    const over = await device.authorize({ deviceName: 'flood-over' });
    expect(over.status).toBe(429);
    expect(over.body.error).toBe('rate_limited');
    expect(await api.db.deviceAuthorization.count()).toBe(before);
    // another client is not held back
    expect((await cli().authorize({ deviceName: 'elsewhere' })).status).toBe(200);

    const guesser = cli();
    const limit = api.app.config.authFailureLimit;
    for (let i = 0; i < limit; i++)
      expect((await guesser.token(`osmdev_guess-${i}`)).body.error).toBe('invalid_grant');
    expect((await guesser.token('osmdev_guess-more')).status).toBe(429);
  });

  it('limits mistyped user codes per account on /device', async () => {
    const typist = await api.seedWorkspace({ email: 'typist@example.test' });
    await setPassword(api.db, typist.email, PASSWORD);
    const browser = new Browser('10.34.0.1');
    expect((await passwordSignIn(browser, api.url, typist.email, PASSWORD)).status).toBe(303);
    for (let i = 0; i < 5; i++)
      expect((await browser.get(`${api.url}/device?code=BBBB-BBB${'BCDFG'[i]}`)).status).toBe(404);
    const device = cli();
    const { user_code } = (await device.authorize({ deviceName: 'after-guessing' })).body as Record<
      string,
      string
    >;
    const limited = await browser.get(`${api.url}/device?code=${user_code}`);
    expect(limited.status).toBe(429);
    expect(limited.text).toContain('Too many mistyped codes');
  });

  it('takes a hostile device name as text: one line, cut short, escaped on the page', async () => {
    const device = cli();
    // NUL is refused like anywhere in the API; other control and format characters become spaces
    expect((await device.authorize({ deviceName: 'nul\u0000name' })).body.error).toBe('invalid_request');
    const name = `<script>alert(1)</script>\u0007\r\nSet-Cookie:\u202e x=y ${'x'.repeat(300)}`;
    const { device_code, user_code } = (await device.authorize({ deviceName: name })).body as Record<
      string,
      string
    >;
    const browser = await signedIn('10.35.0.1');
    const pageOf = await browser.get(`${api.url}/device?code=${user_code}`);
    expect(pageOf.text).not.toContain('<script>alert(1)</script>');
    expect(pageOf.text).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect((await decide(browser, user_code as string, 'approve')).status).toBe(200);
    const issued = await device.token(await pollable(device_code as string));
    const tokenName = issued.body.token_name as string;
    expect(tokenName.length).toBeLessThanOrEqual(100);
    expect(tokenName).not.toMatch(/[\p{Cc}\p{Cf}]/u);
    expect(tokenName.startsWith('<script>alert(1)</script> Set-Cookie: x=y')).toBe(true);
    expect((await device.authorize({ deviceName: 'x'.repeat(5000) })).status).toBe(400);
    expect((await device.authorize('not json')).status).toBe(400);
  });
});
