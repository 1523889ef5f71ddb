// Webhook delivery against real Postgres, Redis and HTTP receivers on loopback (allowed by the
// worker's OSMOSIS_PRIVATE_NETWORK_ALLOWLIST setting in these tests, except where the refusal is
// the point): signed POSTs for ended runs, retries with backoff, and the hostile receivers — a
// private address without the allowlist, a redirect, one that never answers, one that never stops.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WEBHOOK_HEADERS, WebhookPayload } from '@osmosis/contracts';
import {
  encryptSecretValue,
  parseSecretKeyRing,
  verifyWebhookSignature,
  webhookSecretRef,
} from '@osmosis/core';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../../test/helpers/db.ts';
import { TEST_REDIS_URL, testQueuePrefix } from '../../../../test/helpers/redis.ts';
import { type WorkerConfig, workerConfig } from '../config.ts';
import { fakeExecutor, requestDispatch, seedRun, waitFor } from '../testing/fixtures.ts';
import { type RunningWorker, startWorker } from '../worker.ts';
import { QUEUE_MODULES } from './index.ts';
import { webhookDeliveryModule } from './webhook-delivery.ts';

const KEYS = `k1:${Buffer.alloc(32, 9).toString('base64')}`;
process.env.OSMOSIS_SECRET_KEYS = KEYS;
const SECRET = 'whsec-planted-7f3a9c1e5b2d';

interface Hit {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A receiver on 127.0.0.1 whose answer per path is chosen by the test. */
async function receiver(
  answer: (hit: Hit, n: number, res: import('node:http').ServerResponse) => void,
): Promise<{ url: string; hits: Hit[]; server: Server; closed: number }> {
  const hits: Hit[] = [];
  const state = { closed: 0 };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const hit = {
        path: req.url ?? '/',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      hits.push(hit);
      answer(hit, hits.length, res);
    });
    res.on('close', () => {
      state.closed += 1;
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    hits,
    server,
    get closed() {
      return state.closed;
    },
  };
}

let tdb: TestDatabase;
const workers: RunningWorker[] = [];
const servers: Server[] = [];
const logLines: string[] = [];
const logger = pino({ level: 'debug' }, { write: (line: string) => logLines.push(line) });

beforeAll(async () => {
  tdb = await createTestDatabase();
});
afterAll(async () => {
  for (const w of workers) await w.close();
  for (const s of servers) s.closeAllConnections();
  for (const s of servers) await new Promise((r) => s.close(r));
  await tdb?.drop();
});

function config(over: Partial<WorkerConfig> = {}): WorkerConfig {
  return workerConfig({
    databaseUrl: tdb.url,
    redisUrl: TEST_REDIS_URL,
    queuePrefix: testQueuePrefix(),
    workerId: `w-${Math.random().toString(36).slice(2, 8)}`,
    leaseMs: 3000,
    heartbeatMs: 200,
    reconcileMs: 300,
    retryBackoffMs: 100,
    drainMs: 0,
    privateNetworkAllowlist: '127.0.0.1',
    webhookBackoffMs: 100,
    webhookTimeoutMs: 1500,
    ...over,
  });
}

async function start(cfg: WorkerConfig, modules = [webhookDeliveryModule]) {
  const fake = fakeExecutor({ durationMs: 20 });
  const worker = await startWorker(cfg, {
    executor: fake.executor,
    reaper: null,
    db: tdb.db,
    logger,
    taskFiles: async () => '/nonexistent',
    modules,
  });
  workers.push(worker);
  return worker;
}

async function stop(worker: RunningWorker) {
  await worker.close();
  workers.splice(workers.indexOf(worker), 1);
}

/** What the API's POST /v1/webhooks writes (its route is tested in apps/api). */
async function addWebhook(workspaceId: string, url: string, events: string[], userId: string) {
  const id = crypto.randomUUID();
  const sealed = encryptSecretValue(parseSecretKeyRing(KEYS), webhookSecretRef({ id, workspaceId }), SECRET);
  await tdb.db.webhook.create({
    data: {
      id,
      workspaceId,
      url,
      events,
      secretCiphertext: Buffer.from(sealed.ciphertext),
      secretIv: Buffer.from(sealed.iv),
      secretAuthTag: Buffer.from(sealed.authTag),
      secretKeyId: sealed.keyId,
      createdById: userId,
    },
  });
  return id;
}

/** A queued run of one task (ended by the worker in the first test, by `endRun` in the others). */
const endedRun = (_status: 'finished' | 'failed' | 'stopped') => seedRun(tdb.db, { tasks: 1 });

async function endRun(runId: string, status: 'finished' | 'failed' | 'stopped') {
  await tdb.db.run.update({ where: { id: runId }, data: { status, finishedAt: new Date() } });
}

/** waitFor for a check that answers null until it holds */
const until = async <T>(check: () => Promise<T | null>, ms?: number): Promise<T> =>
  (await waitFor(check, ms)) as T;

const deliveriesOf = (webhookId: string) =>
  tdb.db.webhookDelivery.findMany({ where: { webhookId }, orderBy: { createdAt: 'asc' } });

function assertSigned(hit: Hit) {
  const timestamp = String(hit.headers[WEBHOOK_HEADERS.timestamp]);
  const signature = String(hit.headers[WEBHOOK_HEADERS.signature]);
  expect(signature).toMatch(/^sha256=[0-9a-f]{64}$/);
  expect(verifyWebhookSignature(SECRET, timestamp, hit.body, signature)).toBe(true);
  expect(verifyWebhookSignature('another-secret-value', timestamp, hit.body, signature)).toBe(false);
}

describe('webhook delivery', () => {
  it('POSTs a signed run.finished when the worker ends a run, once', async () => {
    const rx = await receiver((_hit, _n, res) => res.writeHead(204).end());
    servers.push(rx.server);
    const seeded = await endedRun('finished');
    const hook = await addWebhook(seeded.workspaceId, rx.url, ['run.finished', 'run.failed'], seeded.userId);
    const cfg = config();
    const worker = await start(
      cfg,
      QUEUE_MODULES.filter((m) => ['attempt', 'run-dispatch', 'webhook-delivery'].includes(m.name)),
    );
    await requestDispatch(TEST_REDIS_URL, cfg.queuePrefix, seeded.runId);
    const [delivery] = await until(async () => {
      const d = await deliveriesOf(hook);
      return d[0]?.status === 'succeeded' ? d : null;
    });
    expect(delivery).toMatchObject({
      event: 'run.finished',
      attempts: 1,
      lastStatusCode: 204,
      lastError: null,
    });
    expect(rx.hits).toHaveLength(1);
    const hit = rx.hits[0]!;
    assertSigned(hit);
    expect(hit.headers['content-type']).toBe('application/json');
    expect(hit.headers[WEBHOOK_HEADERS.event]).toBe('run.finished');
    expect(hit.headers[WEBHOOK_HEADERS.delivery]).toBe(delivery!.id);
    const payload = WebhookPayload.parse(JSON.parse(hit.body));
    expect(payload).toMatchObject({
      id: delivery!.id,
      event: 'run.finished',
      run: { id: seeded.runId, name: seeded.runName, status: 'finished', totals: { passed: 1, failed: 0 } },
    });
    // later sweeps create nothing more for the same run
    await new Promise((r) => setTimeout(r, 1000));
    expect(await deliveriesOf(hook)).toHaveLength(1);
    expect(rx.hits).toHaveLength(1);
    await stop(worker);
  });

  it('retries a receiver that fails twice, then succeeds: same delivery, same body, each try signed', async () => {
    const rx = await receiver((_hit, n, res) => res.writeHead(n <= 2 ? 500 : 200).end('ok'));
    servers.push(rx.server);
    const seeded = await endedRun('failed');
    const hook = await addWebhook(seeded.workspaceId, rx.url, ['run.failed'], seeded.userId);
    const worker = await start(config());
    await endRun(seeded.runId, 'failed');
    const [delivery] = await until(async () => {
      const d = await deliveriesOf(hook);
      return d[0]?.status === 'succeeded' ? d : null;
    });
    expect(delivery).toMatchObject({
      event: 'run.failed',
      attempts: 3,
      lastStatusCode: 200,
      lastError: null,
    });
    expect(rx.hits).toHaveLength(3);
    for (const hit of rx.hits) {
      assertSigned(hit);
      expect(hit.headers[WEBHOOK_HEADERS.delivery]).toBe(delivery!.id);
      expect(hit.body).toBe(rx.hits[0]!.body);
    }
    await stop(worker);
  });

  it('gives up after OSMOSIS_WEBHOOK_MAX_ATTEMPTS and logs why; other events are not sent', async () => {
    const rx = await receiver((_hit, _n, res) => res.writeHead(503).end('down'));
    servers.push(rx.server);
    const seeded = await endedRun('stopped');
    const stoppedHook = await addWebhook(seeded.workspaceId, rx.url, ['run.stopped'], seeded.userId);
    const finishedOnly = await addWebhook(seeded.workspaceId, rx.url, ['run.finished'], seeded.userId);
    const worker = await start(config({ webhookMaxAttempts: 2 }));
    await endRun(seeded.runId, 'stopped');
    const [delivery] = await until(async () => {
      const d = await deliveriesOf(stoppedHook);
      return d[0]?.status === 'failed' ? d : null;
    });
    expect(delivery).toMatchObject({ attempts: 2, maxAttempts: 2, lastStatusCode: 503, nextAttemptAt: null });
    expect(delivery!.lastError).toMatch(/answered HTTP 503/);
    expect(rx.hits).toHaveLength(2);
    expect(await deliveriesOf(finishedOnly)).toHaveLength(0);
    await stop(worker);
  });

  it('refuses a loopback receiver when the operator has not allowed it: nothing is sent', async () => {
    const rx = await receiver((_hit, _n, res) => res.writeHead(200).end());
    servers.push(rx.server);
    const seeded = await endedRun('finished');
    const hook = await addWebhook(seeded.workspaceId, rx.url, ['run.finished'], seeded.userId);
    const worker = await start(config({ privateNetworkAllowlist: '', webhookMaxAttempts: 2 }));
    await endRun(seeded.runId, 'finished');
    const [delivery] = await until(async () => {
      const d = await deliveriesOf(hook);
      return d[0]?.status === 'failed' ? d : null;
    });
    expect(delivery!.lastError).toMatch(/not a public internet address.*OSMOSIS_PRIVATE_NETWORK_ALLOWLIST/);
    expect(delivery!.lastError).not.toContain('127.0.0.1:'); // the host, never the resolved address and port
    expect(delivery!.lastStatusCode).toBeNull();
    expect(rx.hits).toHaveLength(0);
    await stop(worker);
  });

  it('does not follow a redirect (to a private address or anywhere)', async () => {
    const target = await receiver((_hit, _n, res) => res.writeHead(200).end());
    servers.push(target.server);
    const rx = await receiver((_hit, _n, res) =>
      res.writeHead(307, { location: target.url.replace('127.0.0.1', '169.254.169.254') }).end(),
    );
    servers.push(rx.server);
    const other = await receiver((_hit, _n, res) => res.writeHead(302, { location: target.url }).end());
    servers.push(other.server);
    const seeded = await endedRun('finished');
    const toMetadata = await addWebhook(seeded.workspaceId, rx.url, ['run.finished'], seeded.userId);
    const toLoopback = await addWebhook(seeded.workspaceId, other.url, ['run.finished'], seeded.userId);
    const worker = await start(config({ webhookMaxAttempts: 1 }));
    await endRun(seeded.runId, 'finished');
    for (const hook of [toMetadata, toLoopback]) {
      const [delivery] = await until(async () => {
        const d = await deliveriesOf(hook);
        return d[0]?.status === 'failed' ? d : null;
      });
      expect(delivery!.lastError).toMatch(/redirect, which is not followed/);
    }
    expect(rx.hits).toHaveLength(1);
    expect(other.hits).toHaveLength(1);
    expect(target.hits).toHaveLength(0);
    await stop(worker);
  });

  it('bounds a receiver that never answers (timeout) and one whose body never ends (not read)', async () => {
    const silent = await receiver(() => undefined); // headers never come
    servers.push(silent.server);
    const endless = await receiver((_hit, _n, res) => {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      const chunk = Buffer.alloc(64 * 1024, 120);
      const timer = setInterval(() => {
        if (!res.write(chunk)) return;
      }, 5);
      res.on('close', () => clearInterval(timer));
    });
    servers.push(endless.server);
    const seeded = await endedRun('finished');
    const slowHook = await addWebhook(seeded.workspaceId, silent.url, ['run.finished'], seeded.userId);
    const hugeHook = await addWebhook(seeded.workspaceId, endless.url, ['run.finished'], seeded.userId);
    const worker = await start(config({ webhookMaxAttempts: 1, webhookTimeoutMs: 500 }));
    await endRun(seeded.runId, 'finished');
    const [slow] = await until(async () => {
      const d = await deliveriesOf(slowHook);
      return d[0]?.status === 'failed' ? d : null;
    });
    expect(slow!.lastError).toMatch(/did not answer within 500 ms \(OSMOSIS_WEBHOOK_TIMEOUT_MS\)/);
    const [huge] = await until(async () => {
      const d = await deliveriesOf(hugeHook);
      return d[0]?.status === 'succeeded' ? d : null;
    });
    expect(huge).toMatchObject({ attempts: 1, lastStatusCode: 200 });
    // the worker dropped the connection instead of reading the endless body
    await waitFor(() => endless.closed >= 1);
    await stop(worker);
  });

  it('sends again what a dead worker was delivering, and a delivery whose job was lost', async () => {
    const rx = await receiver((_hit, _n, res) => res.writeHead(200).end());
    servers.push(rx.server);
    const seeded = await endedRun('finished');
    const hook = await addWebhook(seeded.workspaceId, rx.url, ['run.finished'], seeded.userId);
    await endRun(seeded.runId, 'finished');
    // as a worker that died mid-try leaves it, and one whose Redis job vanished
    const payload = {
      id: 'x',
      event: 'run.finished',
      created_at: new Date().toISOString(),
      workspace: 'w',
      run: null,
    };
    const claimed = await tdb.db.webhookDelivery.create({
      data: {
        webhookId: hook,
        event: 'run.finished',
        dedupKey: `run:${seeded.runId}:run.finished`,
        runId: seeded.runId,
        payload,
        status: 'delivering',
        attempts: 1,
        maxAttempts: 3,
        leaseExpiresAt: new Date(Date.now() - 1000),
      },
    });
    const lost = await tdb.db.webhookDelivery.create({
      data: { webhookId: hook, event: 'run.finished', dedupKey: 'lost-job', payload, maxAttempts: 3 },
    });
    const worker = await start(config());
    for (const id of [claimed.id, lost.id]) {
      const row = await until(async () => {
        const d = await tdb.db.webhookDelivery.findUniqueOrThrow({ where: { id } });
        return d.status === 'succeeded' ? d : null;
      });
      expect(row.attempts).toBe(id === claimed.id ? 2 : 1);
    }
    expect(rx.hits.map((h) => h.headers[WEBHOOK_HEADERS.delivery]).sort()).toEqual(
      [claimed.id, lost.id].sort(),
    );
    await stop(worker);
  });

  it('survives a database error writing a try: the worker goes on and the delivery is made again', async () => {
    const rx = await receiver((_hit, _n, res) => res.writeHead(200).end());
    servers.push(rx.server);
    const seeded = await endedRun('finished');
    const hook = await addWebhook(seeded.workspaceId, rx.url, ['run.finished'], seeded.userId);
    // the worker's database: writing a try's outcome (recordTry's updateMany) fails once, as a
    // dropped connection would, after the receiver got the POST
    let failures = 0;
    const delegate = tdb.db.webhookDelivery;
    const flaky = new Proxy(delegate, {
      get(target, key) {
        if (key === 'updateMany' && failures === 0)
          return async () => {
            failures++;
            throw Object.assign(new Error('Connection terminated unexpectedly'), { code: 'P1017' });
          };
        const value = Reflect.get(target, key);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const db = new Proxy(tdb.db, {
      get(target, key) {
        if (key === 'webhookDelivery') return flaky;
        const value = Reflect.get(target, key);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const fake = fakeExecutor({ durationMs: 20 });
    const worker = await startWorker(config(), {
      executor: fake.executor,
      reaper: null,
      db,
      logger,
      taskFiles: async () => '/nonexistent',
      modules: [webhookDeliveryModule],
    });
    workers.push(worker);
    await endRun(seeded.runId, 'finished');
    // the first try reached the receiver, then its outcome could not be written: the row keeps
    // its claim until the lease ends (shortened here), and the sweep hands it out again
    const stuck = await until(async () => {
      const [d] = await deliveriesOf(hook);
      return failures === 1 && d?.status === 'delivering' && rx.hits.length === 1 ? d : null;
    });
    await tdb.db.webhookDelivery.update({
      where: { id: stuck.id },
      data: { leaseExpiresAt: new Date(Date.now() - 1000) },
    });
    const done = await until(async () => {
      const [d] = await deliveriesOf(hook);
      return d?.status === 'succeeded' ? d : null;
    });
    expect(done.attempts).toBe(2);
    // the same delivery id on both POSTs: a receiver can tell the second is a repeat
    expect(rx.hits.map((h) => h.headers[WEBHOOK_HEADERS.delivery])).toEqual([stuck.id, stuck.id]);
    for (const hit of rx.hits) assertSigned(hit);
    await stop(worker);
  });

  it('stores no copy of the secret: delivery rows, webhook rows (but the ciphertext) and logs', async () => {
    const rows = await tdb.db.$queryRaw<{ doc: string }[]>`
      SELECT (SELECT coalesce(json_agg(d)::text, '') FROM webhook_deliveries d)
        || (SELECT coalesce(json_agg(json_build_object('url', w.url, 'events', w.events, 'key', w.secret_key_id))::text, '') FROM webhooks w) AS doc`;
    expect(rows[0]!.doc.length).toBeGreaterThan(100);
    expect(rows[0]!.doc).not.toContain(SECRET);
    const ciphertexts = await tdb.db.webhook.findMany({ select: { secretCiphertext: true } });
    for (const c of ciphertexts)
      expect(Buffer.from(c.secretCiphertext).toString('latin1')).not.toContain(SECRET);
    expect(logLines.join('').length).toBeGreaterThan(100);
    expect(logLines.join('')).not.toContain(SECRET);
  });
});
