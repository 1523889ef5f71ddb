// /v1/webhooks against the real API and Postgres: admins and owners only, bad URLs and events are
// 400s naming the field, loopback/private receivers need the operator's allowlist, the secret is
// write-only (encrypted at rest, in no answer, no log line), another workspace's webhooks are 404s,
// and the delivery log shows status, tries and the last error.
import {
  CreateWebhookResponse,
  ListWebhookDeliveriesResponse,
  ListWebhooksResponse,
} from '@osmosis/contracts';
import { decryptSecretValue, parseSecretKeyRing, webhookSecretRef } from '@osmosis/core';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SeededMember, startTestApi, type TestApi } from '../testing.ts';

process.env.OSMOSIS_SECRET_KEYS = `k1:${Buffer.alloc(32, 5).toString('base64')}`;
const SECRET = 'whsec-api-planted-4b8e2d6f';

let api: TestApi;
let strict: TestApi;
let owner: SeededMember;
let admin: SeededMember;
let member: SeededMember;
let viewer: SeededMember;
let other: SeededMember;
const logLines: string[] = [];

beforeAll(async () => {
  api = await startTestApi({
    privateNetworkAllowlist: '127.0.0.1',
    logger: pino({ level: 'info' }, { write: (line: string) => logLines.push(line) }),
  });
  strict = await startTestApi(); // no allowlist: the default
  owner = await api.seedWorkspace();
  admin = await api.addMember(owner.workspaceId, 'admin');
  member = await api.addMember(owner.workspaceId, 'member');
  viewer = await api.addMember(owner.workspaceId, 'viewer');
  other = await api.seedWorkspace();
});
afterAll(async () => {
  await api?.close();
  await strict?.close();
});

const body = (over: Record<string, unknown> = {}) => ({
  url: 'http://127.0.0.1:9/hook',
  events: ['run.finished', 'run.failed'],
  secret: SECRET,
  ...over,
});

describe('webhooks', () => {
  it('admins and owners register one; the answer and the list never carry the secret', async () => {
    const res = await api.request('POST', '/v1/webhooks', {
      token: admin.token,
      body: body({ description: 'ci' }),
    });
    expect(res.status, res.text).toBe(201);
    const created = CreateWebhookResponse.parse(res.body).data;
    expect(created).toMatchObject({
      url: 'http://127.0.0.1:9/hook',
      events: ['run.finished', 'run.failed'],
      description: 'ci',
      created_by: { email: admin.email },
      last_delivery: null,
    });
    expect(res.text).not.toContain(SECRET);
    const byOwner = await api.request('POST', '/v1/webhooks', {
      token: owner.token,
      body: body({ events: undefined }),
    });
    expect(byOwner.status, byOwner.text).toBe(201);
    expect(byOwner.body.data.events).toEqual(['run.finished', 'run.failed', 'run.stopped']);

    const list = await api.request('GET', '/v1/webhooks', { token: owner.token });
    expect(list.status).toBe(200);
    expect(ListWebhooksResponse.parse(list.body).items.map((w) => w.id)).toEqual([
      created.id,
      byOwner.body.data.id,
    ]);
    expect(list.text).not.toContain(SECRET);

    // at rest: encrypted with the key ring and bound to this webhook
    const row = await api.db.webhook.findUniqueOrThrow({ where: { id: created.id } });
    expect(Buffer.from(row.secretCiphertext).toString('latin1')).not.toContain(SECRET);
    const ring = parseSecretKeyRing(process.env.OSMOSIS_SECRET_KEYS);
    expect(
      decryptSecretValue(ring, {
        ...webhookSecretRef({ id: row.id, workspaceId: row.workspaceId }),
        ciphertext: row.secretCiphertext,
        iv: row.secretIv,
        authTag: row.secretAuthTag,
        keyId: row.secretKeyId,
      }),
    ).toBe(SECRET);
    expect(logLines.join('')).toContain('webhook registered');
    expect(logLines.join('')).not.toContain(SECRET);
  });

  it('refuses members and viewers (403), for every webhook route', async () => {
    for (const who of [member, viewer]) {
      expect((await api.request('GET', '/v1/webhooks', { token: who.token })).status).toBe(403);
      expect((await api.request('POST', '/v1/webhooks', { token: who.token, body: body() })).status).toBe(
        403,
      );
    }
    const id = (await api.db.webhook.findFirstOrThrow({ where: { workspaceId: owner.workspaceId } })).id;
    expect((await api.request('DELETE', `/v1/webhooks/${id}`, { token: member.token })).status).toBe(403);
    expect((await api.request('GET', `/v1/webhooks/${id}/deliveries`, { token: member.token })).status).toBe(
      403,
    );
  });

  it('answers bad input with a 400 naming the field', async () => {
    const cases: [Record<string, unknown>, string, RegExp][] = [
      [{ url: 'ftp://example.com/x' }, 'body.url', /scheme ftp: is not allowed/],
      [{ url: 'https://user:pw@example.com/x' }, 'body.url', /user name or password/],
      [{ url: 'not a url' }, 'body.url', /not a URL/],
      [{ url: `https://example.com/${'a'.repeat(3000)}` }, 'body.url', /at most 2048/],
      [{ events: [] }, 'body.events', /at least one event/],
      [{ events: ['run.finished', 'run.finished'] }, 'body.events', /listed twice/],
      [{ events: ['run.exploded'] }, 'body.events.0', /./],
      [{ secret: 'short' }, 'body.secret', /at least 16/],
      [{ extra: 1 }, 'body.extra', /Unrecognized key/],
    ];
    for (const [over, path, message] of cases) {
      const res = await api.request('POST', '/v1/webhooks', { token: admin.token, body: body(over) });
      expect(res.status, JSON.stringify(over)).toBe(400);
      const issue = (res.body.error.details.issues as { path: string; message: string }[]).find(
        (i) => i.path === path,
      );
      expect(issue, `${JSON.stringify(over)} → ${res.text}`).toBeDefined();
      expect(issue!.message).toMatch(message);
    }
  });

  it('refuses loopback, private and link-local receivers unless the operator allows them', async () => {
    const admin2 = await strict.seedWorkspace();
    for (const url of [
      'http://127.0.0.1:8080/x',
      'http://10.1.2.3/x',
      'http://169.254.169.254/latest',
      'http://[::1]/x',
    ]) {
      const res = await strict.request('POST', '/v1/webhooks', { token: admin2.token, body: body({ url }) });
      expect(res.status, url).toBe(400);
      expect(res.body.error.details.issues[0].path).toBe('body.url');
      expect(res.body.error.message).toMatch(
        /not a public internet address.*OSMOSIS_PRIVATE_NETWORK_ALLOWLIST/,
      );
    }
    expect(await strict.db.webhook.count()).toBe(0);
  });

  it("lists another workspace's webhooks as missing (404), and deletes only its own", async () => {
    const id = (await api.db.webhook.findFirstOrThrow({ where: { workspaceId: owner.workspaceId } })).id;
    expect((await api.request('DELETE', `/v1/webhooks/${id}`, { token: other.token })).status).toBe(404);
    expect((await api.request('GET', `/v1/webhooks/${id}/deliveries`, { token: other.token })).status).toBe(
      404,
    );
    expect(
      (await api.request('GET', '/v1/webhooks/not-a-uuid/deliveries', { token: owner.token })).status,
    ).toBe(404);
    expect((await api.request('GET', '/v1/webhooks', { token: other.token })).body.items).toEqual([]);
    expect(await api.db.webhook.count({ where: { id } })).toBe(1);
  });

  it("shows a webhook's delivery log, newest first, and deletes it with the webhook", async () => {
    const id = (await api.db.webhook.findFirstOrThrow({ where: { workspaceId: owner.workspaceId } })).id;
    const payload = {
      id: 'x',
      event: 'run.failed',
      created_at: new Date().toISOString(),
      workspace: 'w',
      run: null,
    };
    await api.db.webhookDelivery.create({
      data: {
        webhookId: id,
        event: 'run.finished',
        dedupKey: 'a',
        runName: 'run-a',
        payload,
        status: 'succeeded',
        attempts: 1,
        maxAttempts: 6,
        lastStatusCode: 200,
        deliveredAt: new Date(),
        nextAttemptAt: null,
        createdAt: new Date(Date.now() - 60_000),
      },
    });
    await api.db.webhookDelivery.create({
      data: {
        webhookId: id,
        event: 'run.failed',
        dedupKey: 'b',
        runName: 'run-b',
        payload,
        status: 'retrying',
        attempts: 2,
        maxAttempts: 6,
        lastStatusCode: 500,
        lastError: '127.0.0.1:9 answered HTTP 500',
      },
    });
    const res = await api.request('GET', `/v1/webhooks/${id}/deliveries`, { token: admin.token });
    expect(res.status, res.text).toBe(200);
    const log = ListWebhookDeliveriesResponse.parse(res.body);
    expect(log.items.map((d) => [d.run_name, d.status, d.attempts, d.last_status_code])).toEqual([
      ['run-b', 'retrying', 2, 500],
      ['run-a', 'succeeded', 1, 200],
    ]);
    expect(log.items[0]!.next_attempt_at).not.toBeNull();
    expect(log.items[0]!.last_error).toBe('127.0.0.1:9 answered HTTP 500');
    expect(log.items[1]!.next_attempt_at).toBeNull();
    const listed = await api.request('GET', '/v1/webhooks', { token: admin.token });
    expect(listed.body.items.find((w: { id: string }) => w.id === id).last_delivery).toMatchObject({
      status: 'retrying',
      event: 'run.failed',
    });

    const gone = await api.request('DELETE', `/v1/webhooks/${id}`, { token: admin.token });
    expect(gone.status, gone.text).toBe(200);
    expect(gone.body).toEqual({ data: { id, deleted: true } });
    expect(await api.db.webhookDelivery.count({ where: { webhookId: id } })).toBe(0);
    expect((await api.request('DELETE', `/v1/webhooks/${id}`, { token: admin.token })).status).toBe(404);
  });
});
