// /v1/workspace/limits and the submit check against the real API, Postgres and Redis: every
// member reads the limit, only admins and owners set it within the operator's maximum, bad values
// are refused naming the field, one workspace never reads or changes another's, and a run config
// above the limit in force is refused (not capped) at preview and submit with both numbers.
import {
  ErrorBody,
  RunPreviewResponse,
  WorkspaceLimitExceededDetails,
  WorkspaceLimitsResponse,
} from '@osmosis/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { config, seedBenchmark, submitRowCounts } from '../../../../test/submit-support.ts';
import { type SeededMember, startTestApi, type TestApi } from '../testing.ts';

const OPERATOR_MAX = 12;
const ORACLE = '[[agents]]\nharness = "oracle"\n';

let api: TestApi;
let owner: SeededMember;
let admin: SeededMember;
let member: SeededMember;
let viewer: SeededMember;
let other: SeededMember;

async function limitsOf(who: SeededMember) {
  const res = await api.request('GET', '/v1/workspace/limits', { token: who.token });
  expect(res.status, res.text).toBe(200);
  return WorkspaceLimitsResponse.parse(res.body).data;
}
const put = (who: SeededMember, body: unknown) =>
  api.request('PUT', '/v1/workspace/limits', { token: who.token, body });
const settingOf = async (workspaceId: string) =>
  (await api.db.workspace.findUniqueOrThrow({ where: { id: workspaceId } })).maxConcurrentAttempts;

/**
 * One run in the workspace with attempts in every state: 2 running and 1 handed to the queue are
 * in flight; a queued one not yet dispatched and a finished one are not.
 */
async function seedAttempts(who: SeededMember, benchmarkKey: string, name: string): Promise<void> {
  const bench = await api.db.benchmark.findFirstOrThrow({
    where: { workspaceId: who.workspaceId, key: benchmarkKey },
    include: { tasks: true },
  });
  const run = await api.db.run.create({
    data: {
      workspaceId: who.workspaceId,
      benchmarkId: bench.id,
      name,
      status: 'running',
      configToml: '',
      config: {},
      selection: {},
      taskCount: bench.tasks.length,
      attemptsPerTask: 5,
      maxConcurrentAttempts: 4,
      timeoutMultiplier: 1,
      maxRetries: 0,
      passThreshold: 1,
      createdById: who.userId,
    },
  });
  const agent = await api.db.runAgent.create({
    data: {
      runId: run.id,
      index: 0,
      harness: 'oracle',
      modelType: 'none',
      model: 'reference solution',
      spec: {},
    },
  });
  const task = bench.tasks[0]!;
  const states = [
    { status: 'running', dispatchedAt: new Date() },
    { status: 'running', dispatchedAt: new Date() },
    { status: 'queued', dispatchedAt: new Date() },
    { status: 'queued', dispatchedAt: null },
    { status: 'finished', dispatchedAt: new Date() },
  ] as const;
  await api.db.attempt.createMany({
    data: states.map((s, index) => ({ runId: run.id, agentId: agent.id, taskId: task.id, index, ...s })),
  });
}

beforeAll(async () => {
  api = await startTestApi({
    config: { workspaceMaxConcurrentAttempts: OPERATOR_MAX, authFailureLimit: 1000 },
  });
  owner = await api.seedWorkspace();
  admin = await api.addMember(owner.workspaceId, 'admin');
  member = await api.addMember(owner.workspaceId, 'member');
  viewer = await api.addMember(owner.workspaceId, 'viewer');
  other = await api.seedWorkspace();
  for (const who of [owner, other]) await seedBenchmark(api.db, { workspaceId: who.workspaceId, key: 'tb' });
});
afterAll(async () => {
  await api?.close();
});

describe('GET /v1/workspace/limits', () => {
  it("shows every member, viewers included, the operator's maximum while the workspace sets none", async () => {
    for (const who of [owner, admin, member, viewer]) {
      expect(await limitsOf(who)).toEqual({
        max_concurrent_attempts: OPERATOR_MAX,
        workspace_max_concurrent_attempts: null,
        operator_max_concurrent_attempts: OPERATOR_MAX,
        attempts_in_flight: 0,
      });
    }
  });

  it("counts the attempts in flight across the workspace's runs, and only its own", async () => {
    await seedAttempts(owner, 'tb', 'limits-run-a1');
    await seedAttempts(owner, 'tb', 'limits-run-a2');
    await seedAttempts(other, 'tb', 'limits-run-b1');
    expect((await limitsOf(member)).attempts_in_flight).toBe(6);
    expect((await limitsOf(other)).attempts_in_flight).toBe(3);
  });
});

describe('PUT /v1/workspace/limits', () => {
  it('refuses members and viewers (403) and writes nothing', async () => {
    for (const who of [member, viewer]) {
      const res = await put(who, { max_concurrent_attempts: 3 });
      expect(res.status, res.text).toBe(403);
      expect(ErrorBody.parse(res.body).error.code).toBe('FORBIDDEN');
    }
    expect(await settingOf(owner.workspaceId)).toBeNull();
  });

  it('lets admins and owners set a limit up to the operator maximum, and null reset it', async () => {
    const set = await put(admin, { max_concurrent_attempts: 5 });
    expect(set.status, set.text).toBe(200);
    expect(WorkspaceLimitsResponse.parse(set.body).data).toMatchObject({
      max_concurrent_attempts: 5,
      workspace_max_concurrent_attempts: 5,
      operator_max_concurrent_attempts: OPERATOR_MAX,
    });
    expect(await settingOf(owner.workspaceId)).toBe(5);
    expect((await limitsOf(viewer)).max_concurrent_attempts).toBe(5);

    const atMax = await put(owner, { max_concurrent_attempts: OPERATOR_MAX });
    expect(atMax.status, atMax.text).toBe(200);
    expect(await settingOf(owner.workspaceId)).toBe(OPERATOR_MAX);

    const reset = await put(owner, { max_concurrent_attempts: null });
    expect(reset.status, reset.text).toBe(200);
    expect(WorkspaceLimitsResponse.parse(reset.body).data).toMatchObject({
      max_concurrent_attempts: OPERATOR_MAX,
      workspace_max_concurrent_attempts: null,
    });
    expect(await settingOf(owner.workspaceId)).toBeNull();
  });

  it("refuses a value above the operator's maximum with both numbers and how to fix it", async () => {
    await put(owner, { max_concurrent_attempts: 4 });
    const res = await put(owner, { max_concurrent_attempts: OPERATOR_MAX + 1 });
    expect(res.status, res.text).toBe(400);
    const error = ErrorBody.parse(res.body).error;
    expect(error.code).toBe('VALIDATION_ERROR');
    expect(error.message).toContain(`max_concurrent_attempts ${OPERATOR_MAX + 1}`);
    expect(error.message).toContain(`operator's maximum of ${OPERATOR_MAX}`);
    expect(error.message).toContain(`set at most ${OPERATOR_MAX}`);
    expect(error.message).toContain('OSMOSIS_WORKSPACE_MAX_CONCURRENT_ATTEMPTS');
    expect(error.details).toMatchObject({ issues: [{ path: 'body.max_concurrent_attempts' }] });
    expect(await settingOf(owner.workspaceId)).toBe(4);
  });

  it('refuses anything but a positive whole number or null, naming the field', async () => {
    const bad: unknown[] = [
      { max_concurrent_attempts: 0 },
      { max_concurrent_attempts: -3 },
      { max_concurrent_attempts: 2.5 },
      { max_concurrent_attempts: '5' },
      { max_concurrent_attempts: 1e12 },
      {},
      { max_concurrent_attempts: 3, extra: true },
    ];
    for (const body of bad) {
      const res = await put(owner, body);
      expect(res.status, `${JSON.stringify(body)}: ${res.text}`).toBe(400);
      const error = ErrorBody.parse(res.body).error;
      expect(error.code).toBe('VALIDATION_ERROR');
      expect(JSON.stringify(error.details)).toMatch(/body\.(max_concurrent_attempts|extra)/);
    }
    expect(await settingOf(owner.workspaceId)).toBe(4);
  });

  it("changes only the caller's workspace: another workspace's owner sets their own", async () => {
    const res = await put(other, { max_concurrent_attempts: 2 });
    expect(res.status, res.text).toBe(200);
    expect(await settingOf(other.workspaceId)).toBe(2);
    expect(await settingOf(owner.workspaceId)).toBe(4);
    expect((await limitsOf(owner)).max_concurrent_attempts).toBe(4);
    expect((await limitsOf(other)).max_concurrent_attempts).toBe(2);
    await put(other, { max_concurrent_attempts: null });
  });
});

describe('submit against the limit', () => {
  const file = 'configs/benchmark/limits.toml';
  const post = (path: string, toml: string) =>
    api.request('POST', path, { token: member.token, body: { config_toml: toml, file_name: file } });

  it('shows the limit in force and the attempts in flight in the preview', async () => {
    await put(owner, { max_concurrent_attempts: 4 });
    const res = await post(
      '/v1/runs/preview',
      config('tb', '[execution]\nmax_concurrent_attempts = 4\n', ORACLE),
    );
    expect(res.status, res.text).toBe(200);
    expect(RunPreviewResponse.parse(res.body).data.workspace_limits).toEqual({
      max_concurrent_attempts: 4,
      workspace_max_concurrent_attempts: 4,
      operator_max_concurrent_attempts: OPERATOR_MAX,
      attempts_in_flight: 6,
    });
  });

  it('refuses a config above the limit at preview and submit (422, both numbers) and creates nothing', async () => {
    await put(owner, { max_concurrent_attempts: 3 });
    const before = await submitRowCounts(api.db);
    const toml = config('tb', '[execution]\nmax_concurrent_attempts = 8\n', ORACLE);
    for (const path of ['/v1/runs/preview', '/v1/runs']) {
      const res = await post(path, toml);
      expect(res.status, res.text).toBe(422);
      const error = ErrorBody.parse(res.body).error;
      expect(error.code).toBe('WORKSPACE_LIMIT_EXCEEDED');
      expect(error.message).toContain(file);
      expect(error.message).toContain('max_concurrent_attempts is 8');
      expect(error.message).toContain('limit of 3');
      expect(error.message).toContain('lower max_concurrent_attempts to ≤ 3');
      expect(error.message).toContain(`ask a workspace admin to raise the limit`);
      expect(error.message).toContain(`operator maximum ${OPERATOR_MAX}`);
      expect(WorkspaceLimitExceededDetails.parse(error.details)).toEqual({
        file_name: file,
        path: 'execution.max_concurrent_attempts',
        requested: 8,
        max_concurrent_attempts: 3,
        operator_max_concurrent_attempts: OPERATOR_MAX,
      });
    }
    expect(await submitRowCounts(api.db)).toEqual(before);
  });

  it("points at the operator when the workspace already has the operator's maximum", async () => {
    await put(owner, { max_concurrent_attempts: null });
    const toml = config('tb', `[execution]\nmax_concurrent_attempts = ${OPERATOR_MAX + 1}\n`, ORACLE);
    const res = await post('/v1/runs/preview', toml);
    expect(res.status, res.text).toBe(422);
    const { message } = ErrorBody.parse(res.body).error;
    expect(message).toContain(`lower max_concurrent_attempts to ≤ ${OPERATOR_MAX}`);
    expect(message).toContain('ask the platform operator');
    expect(message).not.toContain('workspace admin');
  });

  it('accepts a config at the limit: the run keeps the max_concurrent_attempts it asked for', async () => {
    await put(owner, { max_concurrent_attempts: 3 });
    const res = await post('/v1/runs', config('tb', '[execution]\nmax_concurrent_attempts = 3\n', ORACLE));
    expect(res.status, res.text).toBe(201);
    const run = await api.db.run.findUniqueOrThrow({
      where: { id: (res.body as { data: { id: string } }).data.id },
    });
    expect(run.maxConcurrentAttempts).toBe(3);
  });
});
