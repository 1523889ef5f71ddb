// A property test over the whole API: it reads the OpenAPI document (/openapi.json) of a real
// API process (spawned: `node apps/api/src/main.ts`), and sends every operation malformed
// values of each of its parameters and body fields — wrong type, out of range, NUL, lone
// surrogate, huge, deeply nested — one at a time next to valid values, with a valid token of
// each role. Every answer must be below 500, and the same process must still be alive and
// healthy at the end. Deterministic (a seeded generator picks the extra variants and the order)
// and bounded (a fixed set of requests, each with a timeout).
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { addMemberWithToken, createWorkspaceWithOwner } from '@osmosis/api/testing';
import type { MemberRole } from '@osmosis/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from './helpers/db.ts';
import { TEST_REDIS_URL, testQueuePrefix } from './helpers/redis.ts';
import { waitFor } from './helpers/wait.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const ROLES: MemberRole[] = ['owner', 'admin', 'member', 'viewer'];
const REQUEST_TIMEOUT_MS = 10_000;

// ---- a seeded generator ------------------------------------------------------------------------
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const random = mulberry32(0x05305_13);
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;

// ---- JSON schema → a valid value, and malformed ones ------------------------------------------
interface Schema {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  format?: string;
  pattern?: string;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  default?: unknown;
  nullable?: boolean;
}

const STRING_CANDIDATES = ['FUZZ_NAME', 'fuzz-name', 'fuzz', 'x', 'X1', 'a1'];

function validValue(schema: Schema | undefined, name: string, known: Record<string, string>): unknown {
  if (!schema) return 'x';
  if (known[name] !== undefined) return known[name];
  if (schema.const !== undefined) return schema.const;
  if (schema.enum?.length) return schema.enum[0];
  const variants = schema.oneOf ?? schema.anyOf;
  if (variants?.length) return validValue(variants[0], name, known);
  if (schema.allOf?.length) return validValue(schema.allOf[0], name, known);
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case 'integer':
    case 'number':
      return schema.minimum !== undefined ? Math.max(schema.minimum, 1) : 1;
    case 'boolean':
      return false;
    case 'array':
      return [];
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const key of schema.required ?? []) out[key] = validValue(schema.properties?.[key], key, known);
      return out;
    }
    default: {
      if (schema.format === 'date-time') return new Date(Date.now() + 3_600_000).toISOString();
      if (schema.format === 'uuid') return '00000000-0000-4000-8000-000000000000';
      if (schema.format === 'email') return `fuzz-${Math.floor(random() * 1e9)}@example.test`;
      if (schema.pattern) {
        const re = new RegExp(schema.pattern);
        return STRING_CANDIDATES.find((c) => re.test(c)) ?? 'x';
      }
      return 'fuzz';
    }
  }
}

/** `{"a":{"a":...}}` as JSON text, `depth` levels (the body is built as text: no recursion). */
const deepJson = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;

interface Malformed {
  label: string;
  /** for query/path parameters: the raw, already URL-encoded text */
  url?: string;
  /** for body fields: the JSON text of the value */
  json?: string;
}

/** The malformed values every parameter gets (URL form and JSON form), plus seeded extras. */
function malformedValues(): Malformed[] {
  const huge = 'h'.repeat(100_000);
  const values: Malformed[] = [
    { label: 'wrong type (object)', url: '%7B%22a%22%3A1%7D', json: '{"a":[1,{"b":2}]}' },
    { label: 'wrong type (array)', url: 'a&x=b', json: '[1,"two",null]' },
    { label: 'wrong type (number/string)', url: 'not-a-number', json: '12345' },
    { label: 'wrong type (boolean/null)', url: 'true', json: 'null' },
    { label: 'out of range (negative)', url: '-1', json: '-1' },
    {
      label: 'out of range (huge number)',
      url: '99999999999999999999999',
      json: '1e309',
    },
    { label: 'out of range (int64 + 1)', url: '9223372036854775808', json: '9223372036854775808' },
    { label: 'fraction / NaN', url: 'NaN', json: '0.5' },
    { label: 'NUL', url: 'a%00b', json: '"a\\u0000b"' },
    { label: 'lone surrogate', url: '%ED%A0%80', json: '"x\\ud800y"' },
    { label: 'lone low surrogate', url: '%ED%B0%80', json: '"\\udc00"' },
    { label: 'huge', url: 'h'.repeat(6000), json: JSON.stringify(huge) },
    { label: 'deeply nested', url: '%5B'.repeat(3000), json: deepJson(5000) },
    { label: 'empty', url: '', json: '""' },
  ];
  // seeded extras: odd characters the parsers see less often
  const odd = ['%FF%FE', '..%2F..%2Fetc%2Fpasswd', '%E2%80%AE', '%0D%0AX-Injected:1', '%C0%80'];
  for (let i = 0; i < 2; i++) {
    const text = pick(odd);
    values.push({ label: `odd text ${text}`, url: text, json: JSON.stringify(decodeURIComponentSafe(text)) });
  }
  return values;
}

function decodeURIComponentSafe(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

// ---- the API process ---------------------------------------------------------------------------
async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
    server.on('error', reject);
  });
}

let database: TestDatabase;
let child: ChildProcess;
let childPid: number | undefined;
let baseUrl: string;
let output = '';
let dataDir: string;
const tokens: Record<MemberRole, string> = { owner: '', admin: '', member: '', viewer: '' };
const known: Record<string, string> = {};

beforeAll(async () => {
  database = await createTestDatabase();
  dataDir = await mkdtemp(path.join(tmpdir(), 'osmosis-fuzz-'));
  const owner = await createWorkspaceWithOwner(database.db, { name: 'fuzz', ownerEmail: 'owner@fuzz.test' });
  tokens.owner = owner.token.token;
  for (const role of ['admin', 'member', 'viewer'] as const) {
    const added = await addMemberWithToken(database.db, {
      workspaceId: owner.workspace.id,
      email: `${role}@fuzz.test`,
      role,
    });
    tokens[role] = added.token.token;
  }
  // ids that the "valid values" cases may delete: a spare member and a spare token
  const spare = await addMemberWithToken(database.db, {
    workspaceId: owner.workspace.id,
    email: 'spare@fuzz.test',
    role: 'member',
  });
  known.userId = spare.user.id;
  known.id = spare.token.id;
  const bench = await database.db.benchmark.create({
    data: {
      workspaceId: owner.workspace.id,
      key: 'fuzz-bench',
      name: 'Fuzz Bench',
      sourceKind: 'catalog',
      source: {},
      syncStatus: 'ready',
      createdById: owner.user.id,
    },
  });
  await database.db.run.create({
    data: {
      workspaceId: owner.workspace.id,
      benchmarkId: bench.id,
      name: 'fuzz-run',
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
      createdById: owner.user.id,
      finishedAt: new Date(),
    },
  });
  Object.assign(known, { key: 'fuzz-bench', name: 'fuzz-run' });

  const port = await freePort();
  baseUrl = `http://127.0.0.1:${port}`;
  child = spawn(process.execPath, [path.join(ROOT, 'apps/api/src/main.ts')], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH,
      DATABASE_URL: database.url,
      REDIS_URL: TEST_REDIS_URL,
      OSMOSIS_QUEUE_PREFIX: testQueuePrefix(),
      OSMOSIS_API_HOST: '127.0.0.1',
      OSMOSIS_API_PORT: String(port),
      OSMOSIS_SKIP_MIGRATIONS: '1',
      OSMOSIS_LOG_LEVEL: 'error',
      OSMOSIS_AUTH_FAILURE_LIMIT: '1000000',
      OSMOSIS_DATA_DIR: dataDir,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  childPid = child.pid;
  child.stdout?.on('data', (c: Buffer) => {
    output += c.toString();
  });
  child.stderr?.on('data', (c: Buffer) => {
    output += c.toString();
  });
  // up when /healthz answers; an exit ends the wait at once (a busy machine only makes it longer)
  await waitFor(
    async () => {
      if (child.exitCode !== null) throw new Error(`the API exited while starting:\n${output}`);
      return fetch(`${baseUrl}/healthz`)
        .then((r) => r.ok)
        .catch(() => false);
    },
    60_000,
    100,
  ).catch((error: Error) => {
    throw new Error(`the API did not start (${error.message}):\n${output}`);
  });
});

afterAll(async () => {
  if (child && child.exitCode === null) {
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  }
  await database?.drop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

// ---- the cases ---------------------------------------------------------------------------------
interface Operation {
  method: string;
  /** OpenAPI path, `{name}` placeholders */
  path: string;
  parameters: { in: string; name: string; schema?: Schema }[];
  body?: Schema;
  bodyType?: string;
}

interface Case {
  op: Operation;
  role: MemberRole;
  what: string;
  url: string;
  body?: string;
  contentType?: string;
}

function operations(doc: { paths: Record<string, Record<string, unknown>> }): Operation[] {
  const out: Operation[] = [];
  for (const [p, methods] of Object.entries(doc.paths)) {
    for (const [method, raw] of Object.entries(methods)) {
      const spec = raw as {
        parameters?: Operation['parameters'];
        requestBody?: { content?: Record<string, { schema?: Schema }> };
      };
      const content = spec.requestBody?.content ?? {};
      const bodyType = Object.keys(content)[0];
      out.push({
        method: method.toUpperCase(),
        path: p,
        parameters: spec.parameters ?? [],
        ...(bodyType ? { bodyType, body: content[bodyType]?.schema } : {}),
      });
    }
  }
  return out;
}

function buildUrl(op: Operation, override?: { name: string; in: string; raw: string }): string {
  let url = op.path;
  const query: string[] = [];
  for (const param of op.parameters) {
    const raw =
      override && override.name === param.name && override.in === param.in
        ? override.raw
        : encodeURIComponent(String(validValue(param.schema, param.name, known)));
    if (param.in === 'path') url = url.replace(`{${param.name}}`, raw);
    else if (param.in === 'query' && (override?.name === param.name || param.schema?.default === undefined))
      query.push(`${param.name}=${raw}`);
  }
  return query.length ? `${url}?${query.join('&')}` : url;
}

/**
 * Every (parameter or body field) × malformed value once; the role rotates over the values, so
 * each parameter meets a token of every role (4 × fewer requests than every role for every
 * value, which the time bound needs on a 2-core machine). Each operation is also called once
 * per role with valid values.
 */
function cases(ops: Operation[]): Case[] {
  const values = malformedValues();
  const out: Case[] = [];
  for (const op of ops) {
    const jsonBody = op.bodyType === 'application/json' ? op.body : undefined;
    const baseBody = jsonBody ? (validValue(jsonBody, '', known) as Record<string, unknown>) : undefined;
    const bodyFields = jsonBody
      ? Object.keys((jsonBody.oneOf?.[0] ?? jsonBody.anyOf?.[0] ?? jsonBody).properties ?? {})
      : [];
    const validBody = baseBody ? { body: JSON.stringify(baseBody), contentType: 'application/json' } : {};
    const roleFor = (target: number, value: number) => ROLES[(target + value) % ROLES.length] as MemberRole;
    for (const role of ROLES) out.push({ op, role, what: 'valid values', url: buildUrl(op), ...validBody });
    op.parameters.forEach((param, target) => {
      values.forEach((value, v) => {
        if (value.url === undefined) return;
        out.push({
          op,
          role: roleFor(target, v),
          what: `${param.in}.${param.name} = ${value.label}`,
          url: buildUrl(op, { name: param.name, in: param.in, raw: value.url }),
          ...validBody,
        });
      });
    });
    bodyFields.forEach((field, i) => {
      const text = JSON.stringify(baseBody ?? {});
      const prefix = text === '{}' ? '{' : `${text.slice(0, -1)},`;
      values.forEach((value, v) => {
        out.push({
          op,
          role: roleFor(op.parameters.length + i, v),
          what: `body.${field} = ${value.label}`,
          url: buildUrl(op),
          body: `${prefix}${JSON.stringify(field)}:${value.json}}`,
          contentType: 'application/json',
        });
      });
    });
    if (op.method !== 'GET' && op.method !== 'DELETE') {
      // whole-body shapes: broken JSON, a deep document, an array, the wrong content type
      const shapes = [
        ['body: broken JSON', '{"a":', 'application/json'],
        ['body: 20 000 levels deep', deepJson(20_000), 'application/json'],
        ['body: an array', '[1,2,3]', 'application/json'],
        ['body: a NUL key', '{"a\\u0000":1}', 'application/json'],
        ['body: text/plain', 'hello', 'text/plain'],
        ['body: garbage gzip', '\u001f\u008bnot really gzip', 'application/gzip'],
      ] as const;
      shapes.forEach(([what, body, contentType], i) => {
        out.push({ op, role: roleFor(i, 0), what, url: buildUrl(op), body, contentType });
      });
    }
  }
  // a seeded order, so routes interleave (state left by one case meets the next) reproducibly
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j] as Case, out[i] as Case];
  }
  return out;
}

async function send(c: Case): Promise<number | string> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), REQUEST_TIMEOUT_MS);
  let status: number | undefined;
  try {
    const res = await fetch(baseUrl + c.url, {
      method: c.op.method,
      headers: {
        authorization: `Bearer ${tokens[c.role]}`,
        ...(c.contentType ? { 'content-type': c.contentType } : {}),
      },
      ...(c.body !== undefined && c.op.method !== 'GET' ? { body: c.body } : {}),
      signal: controller.signal,
    });
    status = res.status;
    // an event stream that was accepted: its status is what counts; do not wait for its end
    if (res.headers.get('content-type')?.startsWith('text/event-stream')) controller.abort();
    else await res.arrayBuffer();
    return status;
  } catch (error) {
    if (status !== undefined) return status;
    return controller.signal.aborted ? 'timeout' : `network error: ${(error as Error).message}`;
  } finally {
    clearTimeout(timer);
  }
}

describe('every route of /openapi.json under malformed input', () => {
  it('answers below 500 to every malformed value, with every role, and the process lives on', async () => {
    const doc = (await (await fetch(`${baseUrl}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    const ops = operations(doc);
    // the document covers the API: every resource family is there
    for (const p of [
      '/v1/me',
      '/v1/tokens',
      '/v1/members/{userId}',
      '/v1/benchmarks/{key}',
      '/v1/runs/{name}/events',
    ])
      expect(Object.keys(doc.paths)).toContain(p);
    const all = cases(ops);
    expect(all.length).toBeGreaterThan(500);
    const failures: string[] = [];
    const statuses = new Map<string, number>();
    const CONCURRENCY = 4;
    let next = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < all.length) {
          const c = all[next++] as Case;
          const status = await send(c);
          const key = String(status);
          statuses.set(key, (statuses.get(key) ?? 0) + 1);
          if (typeof status !== 'number' || status >= 500) {
            failures.push(`${c.op.method} ${c.url.slice(0, 120)} [${c.role}] ${c.what} → ${status}`);
          }
        }
      }),
    );
    expect(
      failures,
      `${failures.length} of ${all.length} requests failed:\n${failures.slice(0, 40).join('\n')}`,
    ).toEqual([]);
    // the malformed values were refused, not accepted: most answers are 4xx
    const fourXx = [...statuses].filter(([s]) => s.startsWith('4')).reduce((n, [, c]) => n + c, 0);
    expect(fourXx).toBeGreaterThan(all.length * 0.8);
    // the same process, still alive and healthy, logged no internal error
    expect(child.exitCode).toBeNull();
    expect(child.pid).toBe(childPid);
    expect((await fetch(`${baseUrl}/healthz`)).status).toBe(200);
    const me = await fetch(`${baseUrl}/v1/me`, { headers: { authorization: `Bearer ${tokens.owner}` } });
    expect(me.status).toBe(200);
    expect(output).not.toMatch(/"level":(50|60)/);
  }, 600_000);
});
