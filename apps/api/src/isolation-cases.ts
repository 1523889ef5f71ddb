// Cross-workspace isolation, table driven: every route that addresses a resource by id, with how
// to get such a resource in workspace B. isolation.test.ts checks that a token of workspace A
// (an owner: the strongest role) gets 404 NOT_FOUND on each and that B is left untouched.
// Adding a resource route? Append a case here.
import type { SeededMember, TestApi } from './testing.ts';

export interface IsolationContext {
  api: TestApi;
  /** workspace B's owner (token, ids) */
  b: SeededMember;
  /** a plain member of workspace B */
  bMember: SeededMember;
}

export interface IsolationCase {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** route pattern, for the test name */
  route: string;
  /** creates whatever the URL needs in workspace B; its result is passed to `url` and `body` */
  seed?: (ctx: IsolationContext) => Promise<Record<string, string>>;
  url: (ctx: IsolationContext, seeded: Record<string, string>) => string;
  body?: (ctx: IsolationContext, seeded: Record<string, string>) => unknown;
  /** optional: assert that the resource in B is unchanged afterwards */
  verify?: (ctx: IsolationContext, seeded: Record<string, string>) => Promise<void>;
  /** GET cases: B's own owner gets 200 on the same URL (proves the 404 is isolation, not a typo) */
  ownerSees?: boolean;
}

const seededB = new WeakMap<IsolationContext, Promise<Record<string, string>>>();

/** One benchmark, one running run and one workspace secret record in workspace B (rows written directly). */
export function seedWorkspaceB(ctx: IsolationContext): Promise<Record<string, string>> {
  let seeded = seededB.get(ctx);
  if (!seeded) {
    seeded = (async () => {
      const { db } = ctx.api;
      const benchmark = await db.benchmark.create({
        data: {
          workspaceId: ctx.b.workspaceId,
          key: 'iso-bench-b',
          name: 'Iso Bench B',
          sourceKind: 'catalog',
          source: {},
          syncStatus: 'ready',
        },
      });
      const run = await db.run.create({
        data: {
          workspaceId: ctx.b.workspaceId,
          benchmarkId: benchmark.id,
          name: 'iso-run-b',
          status: 'running',
          configToml: '',
          config: {},
          selection: {},
          taskCount: 0,
          attemptsPerTask: 1,
          maxConcurrentAttempts: 1,
          timeoutMultiplier: 1,
          maxRetries: 0,
          passThreshold: 1,
          createdById: ctx.b.userId,
        },
      });
      const secret = await db.secret.create({
        data: {
          workspaceId: ctx.b.workspaceId,
          name: 'ISO_SECRET_B',
          scope: 'workspace',
          ciphertext: Buffer.from('x'),
          iv: Buffer.from('x'),
          authTag: Buffer.from('x'),
          keyId: 'k',
          setById: ctx.b.userId,
        },
      });
      return {
        benchmarkId: benchmark.id,
        benchmarkKey: benchmark.key,
        runId: run.id,
        runName: run.name,
        secretId: secret.id,
        secretName: secret.name,
      };
    })();
    seededB.set(ctx, seeded);
  }
  return seeded;
}

async function benchmarkStillThere({ api }: IsolationContext, seeded: Record<string, string>): Promise<void> {
  const row = await api.db.benchmark.findUnique({ where: { id: seeded.benchmarkId } });
  if (!row) throw new Error('benchmark of B was deleted');
}

async function runUntouched({ api }: IsolationContext, seeded: Record<string, string>): Promise<void> {
  const row = await api.db.run.findUnique({ where: { id: seeded.runId } });
  if (row?.status !== 'running') throw new Error(`run of B changed to ${row?.status}`);
}

const seed = seedWorkspaceB;

export const ISOLATION_CASES: IsolationCase[] = [
  {
    method: 'GET',
    route: '/v1/workspaces/:id',
    url: ({ b }) => `/v1/workspaces/${b.workspaceId}`,
    ownerSees: true,
  },
  {
    method: 'PATCH',
    route: '/v1/members/:userId',
    url: ({ bMember }) => `/v1/members/${bMember.userId}`,
    body: () => ({ role: 'admin' }),
    verify: async ({ api, bMember }) => {
      const m = await api.db.membership.findUnique({
        where: { workspaceId_userId: { workspaceId: bMember.workspaceId, userId: bMember.userId } },
      });
      if (m?.role !== 'member') throw new Error('member of B was changed');
    },
  },
  {
    method: 'DELETE',
    route: '/v1/members/:userId',
    url: ({ bMember }) => `/v1/members/${bMember.userId}`,
    verify: async ({ api, bMember }) => {
      const m = await api.db.membership.findUnique({
        where: { workspaceId_userId: { workspaceId: bMember.workspaceId, userId: bMember.userId } },
      });
      if (!m) throw new Error('member of B was removed');
    },
  },
  {
    method: 'DELETE',
    route: '/v1/tokens/:id',
    url: ({ b }) => `/v1/tokens/${b.tokenId}`,
    verify: async ({ api, b }) => {
      const t = await api.db.apiToken.findUnique({ where: { id: b.tokenId } });
      if (t?.revokedAt) throw new Error('token of B was revoked');
    },
  },
  {
    method: 'DELETE',
    route: '/v1/invitations/:invitationId',
    seed: async ({ api, b }) => {
      const res = await api.request('POST', '/v1/members', {
        token: b.token,
        body: { email: `iso-invitee-${crypto.randomUUID()}@example.test` },
      });
      if (res.status !== 201) throw new Error(`inviting in B: ${res.status} ${res.text}`);
      return { invitationId: res.body.data.invitation.id };
    },
    url: (_, s) => `/v1/invitations/${s.invitationId}`,
    verify: async ({ api, b }, s) => {
      const row = await api.db.invitation.findUnique({ where: { id: s.invitationId } });
      if (!row || row.revokedAt) throw new Error('invitation of B was cancelled');
      // and B's admins still see it open (the id was real)
      const open = await api.request('GET', '/v1/invitations', { token: b.token });
      if (!open.body.items.some((i: { id: string }) => i.id === s.invitationId)) {
        throw new Error('invitation of B is no longer listed as open');
      }
    },
  },
  // benchmarks: addressed by key, exact name or id
  {
    method: 'GET',
    route: '/v1/benchmarks/:key',
    seed,
    url: (_, s) => `/v1/benchmarks/${s.benchmarkKey}`,
    ownerSees: true,
  },
  { method: 'GET', route: '/v1/benchmarks/:key', seed, url: (_, s) => `/v1/benchmarks/${s.benchmarkId}` },
  {
    method: 'GET',
    route: '/v1/benchmarks/:key/leaderboard',
    seed,
    url: (_, s) => `/v1/benchmarks/${s.benchmarkKey}/leaderboard`,
  },
  {
    method: 'POST',
    route: '/v1/benchmarks/:key/sync',
    seed,
    url: (_, s) => `/v1/benchmarks/${s.benchmarkKey}/sync`,
  },
  {
    method: 'DELETE',
    route: '/v1/benchmarks/:key',
    seed,
    url: (_, s) => `/v1/benchmarks/${s.benchmarkId}`,
    verify: benchmarkStillThere,
  },
  // runs: addressed by name (or id)
  { method: 'GET', route: '/v1/runs/:name', seed, url: (_, s) => `/v1/runs/${s.runName}` },
  { method: 'GET', route: '/v1/runs/:name', seed, url: (_, s) => `/v1/runs/${s.runId}` },
  { method: 'GET', route: '/v1/runs/:name/events', seed, url: (_, s) => `/v1/runs/${s.runName}/events` },
  { method: 'GET', route: '/v1/runs/:name/results', seed, url: (_, s) => `/v1/runs/${s.runName}/results` },
  { method: 'GET', route: '/v1/runs/:name/stream', seed, url: (_, s) => `/v1/runs/${s.runName}/stream` },
  { method: 'GET', route: '/v1/runs/:name/attempts', seed, url: (_, s) => `/v1/runs/${s.runName}/attempts` },
  {
    method: 'GET',
    route: '/v1/runs/:name/attempts/:id',
    seed,
    // B's run: its name alone must not be reachable from A, whatever the attempt id
    url: (_, s) => `/v1/runs/${s.runName}/attempts/00000000-0000-4000-8000-000000000001`,
  },
  {
    method: 'GET',
    route: '/v1/runs/:name/downloads/manifest',
    seed,
    url: (_, s) => `/v1/runs/${s.runName}/downloads/manifest`,
  },
  {
    method: 'GET',
    route: '/v1/runs/:name/downloads/file',
    seed,
    url: (_, s) => `/v1/runs/${s.runName}/downloads/file?path=summary.csv`,
  },
  {
    method: 'GET',
    route: '/v1/runs/:name/export',
    seed,
    url: (_, s) => `/v1/runs/${s.runName}/export?format=harbor`,
  },
  {
    method: 'POST',
    route: '/v1/runs/:name/stop',
    seed,
    url: (_, s) => `/v1/runs/${s.runName}/stop`,
    verify: runUntouched,
  },
  // secret records: addressed by name within the caller's workspace
  {
    method: 'DELETE',
    route: '/v1/secrets/:name',
    seed,
    url: (_, s) => `/v1/secrets/${s.secretName}?scope=workspace`,
    verify: async ({ api }, s) => {
      if (!(await api.db.secret.findUnique({ where: { id: s.secretId } })))
        throw new Error('secret of B was deleted');
    },
  },
  // endpoint hosts: addressed by host within the caller's workspace
  {
    method: 'DELETE',
    route: '/v1/endpoint-hosts/:host',
    seed: async ({ api, b }) => {
      await api.db.endpointHost.create({
        data: { workspaceId: b.workspaceId, host: 'iso-models.example', addedById: b.userId },
      });
      return { host: 'iso-models.example' };
    },
    url: (_, s) => `/v1/endpoint-hosts/${s.host}`,
    verify: async ({ api, b }, s) => {
      const row = await api.db.endpointHost.findUnique({
        where: { workspaceId_host: { workspaceId: b.workspaceId, host: s.host! } },
      });
      if (!row) throw new Error('endpoint host of B was removed');
    },
  },
  {
    method: 'GET',
    route: '/v1/runs/:name/compare',
    seed,
    url: (_, s) => `/v1/runs/${s.runName}/compare`,
  },
  {
    method: 'GET',
    route: '/v1/runs/:name/lock',
    seed,
    url: (_, s) => `/v1/runs/${s.runName}/lock`,
  },
  {
    // a leak would submit a new run in B (or answer 409 for its lockless run), not 404
    method: 'POST',
    route: '/v1/runs/:name/reproduce',
    seed,
    url: (_, s) => `/v1/runs/${s.runName}/reproduce`,
    body: () => ({}),
    verify: async ({ api, b }) => {
      const runs = await api.db.run.count({ where: { workspaceId: b.workspaceId } });
      if (runs > 2) throw new Error(`workspace B has ${runs} runs: one was reproduced`);
    },
  },
  {
    method: 'GET',
    route: '/v1/webhooks/:id/deliveries',
    seed: seedWebhookB,
    url: (_, s) => `/v1/webhooks/${s.webhookId}/deliveries`,
    ownerSees: true,
  },
  {
    method: 'DELETE',
    route: '/v1/webhooks/:id',
    seed: seedWebhookB,
    url: (_, s) => `/v1/webhooks/${s.webhookId}`,
    verify: async ({ api }, s) => {
      if (!(await api.db.webhook.findUnique({ where: { id: s.webhookId! } })))
        throw new Error('webhook of B was deleted');
    },
  },
  {
    // an ended run of B (the shared one is running): a leak would re-queue or answer 409, not 404
    method: 'POST',
    route: '/v1/runs/:name/retry',
    seed: async (ctx) => {
      const b = await seed(ctx);
      const run = await ctx.api.db.run.upsert({
        where: { workspaceId_name: { workspaceId: ctx.b.workspaceId, name: 'iso-run-b-ended' } },
        create: {
          workspaceId: ctx.b.workspaceId,
          benchmarkId: b.benchmarkId!,
          name: 'iso-run-b-ended',
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
          createdById: ctx.b.userId,
        },
        update: {},
      });
      return { ...b, endedRunId: run.id, endedRunName: run.name };
    },
    url: (_, s) => `/v1/runs/${s.endedRunName}/retry`,
    verify: async ({ api }, s) => {
      const row = await api.db.run.findUnique({ where: { id: s.endedRunId } });
      if (row?.status !== 'finished') throw new Error(`ended run of B changed to ${row?.status}`);
    },
  },
];

const seededWebhook = new WeakMap<IsolationContext, Promise<Record<string, string>>>();

/** One webhook of workspace B (the row written directly; its secret bytes are never read here). */
function seedWebhookB(ctx: IsolationContext): Promise<Record<string, string>> {
  let seeded = seededWebhook.get(ctx);
  if (!seeded) {
    seeded = ctx.api.db.webhook
      .create({
        data: {
          workspaceId: ctx.b.workspaceId,
          url: 'https://hooks.example/iso-b',
          events: ['run.finished'],
          secretCiphertext: Buffer.alloc(16),
          secretIv: Buffer.alloc(12),
          secretAuthTag: Buffer.alloc(16),
          secretKeyId: 'k1',
          createdById: ctx.b.userId,
        },
      })
      .then((w) => ({ webhookId: w.id }));
    seededWebhook.set(ctx, seeded);
  }
  return seeded;
}

/**
 * Routes with a path parameter that are not about a resource of another workspace: `PUT
 * /v1/secrets/:name` writes the caller's own record of that name (an upsert), never B's; `PUT
 * /v1/endpoint-hosts/:host` adds the host to the caller's own workspace.
 */
export const ISOLATION_EXEMPT: string[] = ['PUT /v1/secrets/:name', 'PUT /v1/endpoint-hosts/:host'];
