// A token of workspace A gets 404 on every resource route of workspace B (ISOLATION_CASES), and
// lists never show B's rows.
import { ErrorBody } from '@osmosis/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ISOLATION_CASES,
  ISOLATION_EXEMPT,
  type IsolationContext,
  seedWorkspaceB,
} from './isolation-cases.ts';
import { type SeededMember, startTestApi, type TestApi } from './testing.ts';

let api: TestApi;
let a: SeededMember;
let ctx: IsolationContext;

beforeAll(async () => {
  api = await startTestApi({ config: { authFailureLimit: 10_000 } });
  a = await api.seedWorkspace();
  const b = await api.seedWorkspace();
  const bMember = await api.addMember(b.workspaceId, 'member');
  ctx = { api, b, bMember };
});
afterAll(async () => {
  await api?.close();
});

describe('a token of workspace A on resources of workspace B', () => {
  it('has a case for every /v1 route with a path parameter', () => {
    // every documented route (the OpenAPI document lists them all), `{param}` → `:param`
    const doc = api.app.swagger() as { paths: Record<string, Record<string, unknown>> };
    const withParams = new Set<string>();
    for (const [path, operations] of Object.entries(doc.paths)) {
      if (!path.startsWith('/v1/') || !path.includes('{')) continue;
      const route = path.replace(/\{(\w+)\}/g, ':$1');
      for (const method of Object.keys(operations)) withParams.add(`${method.toUpperCase()} ${route}`);
    }
    expect(withParams.size).toBeGreaterThan(0);
    const covered = new Set([...ISOLATION_CASES.map((c) => `${c.method} ${c.route}`), ...ISOLATION_EXEMPT]);
    const missing = [...withParams].filter((route) => !covered.has(route) && !route.includes('/test-'));
    expect(missing, 'add these routes to ISOLATION_CASES in apps/api/src/isolation-cases.ts').toEqual([]);
  });

  for (const [index, testCase] of ISOLATION_CASES.entries()) {
    it(`${testCase.method} ${testCase.route} → 404 (#${index})`, async () => {
      const seeded = (await testCase.seed?.(ctx)) ?? {};
      const res = await api.request(testCase.method, testCase.url(ctx, seeded), {
        token: a.token,
        body: testCase.body?.(ctx, seeded),
      });
      expect(res.status, res.text).toBe(404);
      expect(ErrorBody.parse(res.body).error.code).toBe('NOT_FOUND');
      await testCase.verify?.(ctx, seeded);
      if (testCase.ownerSees) {
        const own = await api.request('GET', testCase.url(ctx, seeded), { token: ctx.b.token });
        expect(own.status).toBe(200);
      }
    });
  }

  it('lists show only the caller workspace', async () => {
    const members = await api.request('GET', '/v1/members', { token: a.token });
    expect(members.body.items.map((m: { user_id: string }) => m.user_id)).toEqual([a.userId]);
    const tokens = await api.request('GET', '/v1/tokens?scope=workspace', { token: a.token });
    expect(tokens.body.items.map((t: { id: string }) => t.id)).toEqual([a.tokenId]);
    const workspaces = await api.request('GET', '/v1/workspaces', { token: a.token });
    expect(workspaces.body.items.map((w: { id: string }) => w.id)).toEqual([a.workspaceId]);
    const me = await api.request('GET', '/v1/me', { token: a.token });
    expect(me.body.data.workspace.id).toBe(a.workspaceId);
    // invitations: B's open one is listed to B, never to A
    const invited = await api.request('POST', '/v1/members', {
      token: ctx.b.token,
      body: { email: `iso-list-${crypto.randomUUID()}@example.test` },
    });
    expect(invited.status, invited.text).toBe(201);
    const mine = await api.request('POST', '/v1/members', {
      token: a.token,
      body: { email: `iso-list-${crypto.randomUUID()}@example.test` },
    });
    expect(mine.status, mine.text).toBe(201);
    const inB = await api.request('GET', '/v1/invitations', { token: ctx.b.token });
    expect(inB.body.items.map((i: { id: string }) => i.id)).toContain(invited.body.data.invitation.id);
    const inA = await api.request('GET', '/v1/invitations', { token: a.token });
    expect(inA.status).toBe(200);
    expect(inA.body.items.map((i: { id: string }) => i.id)).toEqual([mine.body.data.invitation.id]);
  });
});

describe('ids of workspace B in query parameters and bodies', () => {
  it('name nothing to a token of A: empty lists and 404s that never name B’s objects', async () => {
    const s = await seedWorkspaceB(ctx);
    const runs = await api.request('GET', `/v1/runs?benchmark=${s.benchmarkId}`, { token: a.token });
    expect(runs.status).toBe(200);
    expect(runs.body.items).toEqual([]);

    const token = await api.request('POST', '/v1/tokens', {
      token: a.token,
      body: { name: 'x', workspace: ctx.b.workspaceId },
    });
    expect(token.status).toBe(404);
    expect(token.text).not.toContain(ctx.b.workspaceName);

    const preview = await api.request('POST', '/v1/runs/preview', {
      token: a.token,
      body: {
        config_toml: `[experiment]\nbenchmark = "${s.benchmarkId}"\n[[agents]]\nharness = "oracle"\n`,
      },
    });
    expect(preview.status).toBe(404);
    expect(ErrorBody.parse(preview.body).error.code).toBe('NOT_FOUND');
    for (const leaked of [s.benchmarkKey, 'Iso Bench B', ctx.b.workspaceName])
      expect(preview.text).not.toContain(leaked);
  });
});
