// POST /v1/runs/preview and POST /v1/runs against the real API, Postgres and Redis.
import { Writable } from 'node:stream';
import { RunAgentSpec, RunPreviewResponse, SubmitRunResponse } from '@osmosis/contracts';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { config, PROVIDER_AGENT, seedBenchmark, submitRowCounts } from '../../../../test/submit-support.ts';
import { loggerOptions } from '../logger.ts';
import { type SeededMember, startTestApi, type TestApi } from '../testing.ts';

process.env.OSMOSIS_SECRET_KEYS = `k1:${Buffer.alloc(32, 9).toString('base64')}`;

const PLANTED = 'sk-SUBMIT-PLANTED-93e1f0aa';
const PUBLIC_URL = 'https://osmosis.example.test';

let api: TestApi;
let owner: SeededMember;
let member: SeededMember;
let viewer: SeededMember;
let stranger: SeededMember;
const logLines: string[] = [];
const bodies: string[] = [];

async function post(path: string, token: string, toml: string, fileName = 'configs/benchmark/run.toml') {
  const res = await api.request('POST', path, { token, body: { config_toml: toml, file_name: fileName } });
  bodies.push(res.text);
  return res;
}
async function jobCount(): Promise<number> {
  const counts = await api.app.queues.runDispatch.getJobCounts(
    'waiting',
    'active',
    'delayed',
    'completed',
    'failed',
    'prioritized',
  );
  return Object.values(counts).reduce((a, b) => a + b, 0);
}

beforeAll(async () => {
  const sink = new Writable({
    write(chunk, _e, done) {
      logLines.push(chunk.toString());
      done();
    },
  });
  api = await startTestApi({
    logger: pino(loggerOptions('trace'), sink),
    config: { publicUrl: PUBLIC_URL, authFailureLimit: 1000 },
  });
  owner = await api.seedWorkspace();
  member = await api.addMember(owner.workspaceId, 'member');
  viewer = await api.addMember(owner.workspaceId, 'viewer');
  stranger = await api.seedWorkspace();
  await seedBenchmark(api.db, {
    workspaceId: owner.workspaceId,
    key: 'terminal-bench-2-1',
    name: 'Terminal-Bench 2.1',
    taskSets: [{ name: 'smoke', taskNames: ['terminal-bench/git-multibranch'] }],
  });
  await seedBenchmark(api.db, {
    workspaceId: owner.workspaceId,
    key: 'hle',
    name: "Humanity's Last Exam",
    requiresJudgeModel: true,
    judgeModelDefault: 'openai/o3-mini',
    judgeKind: 'hle',
    requiredSecretNames: ['HF_TOKEN'],
    tasks: [
      { name: 'hle/q1', category: 'math' },
      { name: 'hle/q2', category: 'bio' },
    ],
    taskSets: [{ name: 'parity', taskNames: ['hle/q1'], recommended: true }],
  });
  await seedBenchmark(api.db, {
    workspaceId: owner.workspaceId,
    key: 'syncing-bench',
    syncStatus: 'syncing',
    syncedTaskCount: 12,
    expectedTaskCount: 89,
  });
  await seedBenchmark(api.db, {
    workspaceId: owner.workspaceId,
    key: 'broken-bench',
    syncStatus: 'failed',
    syncError: 'registry answered 404 for terminal-bench@9.9',
  });
  await seedBenchmark(api.db, { workspaceId: stranger.workspaceId, key: 'private-bench' });
  for (const [token, name, scope] of [
    [member.token, 'OPENAI_API_KEY', 'personal'],
    [owner.token, 'OPENAI_API_KEY', 'workspace'],
    [owner.token, 'HF_TOKEN', 'workspace'],
    [owner.token, 'JUDGE_KEY', 'workspace'],
  ] as const) {
    const res = await api.request('PUT', `/v1/secrets/${name}`, { token, body: { value: PLANTED, scope } });
    expect(res.status).toBeLessThan(300);
  }
});
afterAll(async () => {
  await api?.close();
});

describe('preview', () => {
  it('resolves benchmark, tasks, harness default, secrets with their scope — and writes nothing', async () => {
    const before = await submitRowCounts(api.db);
    const res = await post(
      '/v1/runs/preview',
      member.token,
      config('Terminal-Bench 2.1', '[execution]\nattempts_per_task = 2'),
    );
    expect(res.status).toBe(200);
    const p = RunPreviewResponse.parse(res.body).data;
    expect(p.benchmark).toMatchObject({
      key: 'terminal-bench-2-1',
      name: 'Terminal-Bench 2.1',
      default_harness: 'terminus-2',
    });
    expect(p.tasks).toMatchObject({ mode: 'full', task_count: 3, description: 'full benchmark → 3 tasks' });
    expect(p.agents).toEqual([
      {
        index: 0,
        harness: 'terminus-2',
        harness_defaulted: true,
        model_type: 'provider',
        model: 'openai/gpt-5.2',
        secret_names: ['OPENAI_API_KEY'],
      },
    ]);
    expect(p.total_attempts).toBe(6);
    expect(p.max_concurrent_attempts).toBe(4);
    // the member's personal record overrides the workspace one
    expect(p.secrets).toEqual([
      {
        name: 'OPENAI_API_KEY',
        scope: 'personal',
        used_by: ['agents[0].model.api_key_secret'],
        // terminus-2 calls its model from the worker: the key never enters the sandbox
        phases: ['agent'],
        receivers: [{ phase: 'agent', agent_index: 0, in_sandbox: false }],
      },
    ]);
    expect(await submitRowCounts(api.db)).toEqual(before);
    const owners = RunPreviewResponse.parse(
      (await post('/v1/runs/preview', owner.token, config('terminal-bench-2-1'))).body,
    );
    expect(owners.data.secrets[0]!.scope).toBe('workspace');
  });
});

describe('submit', () => {
  it('creates the run, its agents and every attempt in one go, and enqueues it', async () => {
    const jobsBefore = await jobCount();
    const toml = config(
      'terminal-bench-2-1',
      '[tasks]\ncategories = ["software-engineering", "machine-learning"]\n[execution]\nattempts_per_task = 3\nmax_concurrent_attempts = 2\n[env]\nLOG_LEVEL = "debug"',
      `${PROVIDER_AGENT}[agents.env]\nAGENT_MODE = "strict"\n\n[[agents]]\nharness = "oracle"\n`,
    );
    const res = await post('/v1/runs', member.token, toml);
    expect(res.status).toBe(201);
    const run = SubmitRunResponse.parse(res.body).data;
    expect(run.status).toBe('queued');
    expect(run.task_count).toBe(2);
    expect(run.total_attempts).toBe(12);
    expect(run.name).toMatch(/^[a-z]+-[a-z]+(-\d+)?$/);
    expect(run.platform_url).toBe(`${PUBLIC_URL}/runs/${run.name}`);
    expect(Date.parse(run.created_at)).toBeGreaterThan(Date.now() - 60_000);

    const row = await api.db.run.findUniqueOrThrow({
      where: { id: run.id },
      include: { agents: { orderBy: { index: 'asc' } }, events: { orderBy: { id: 'asc' } } },
    });
    expect(row).toMatchObject({
      status: 'queued',
      taskCount: 2,
      attemptsPerTask: 3,
      maxConcurrentAttempts: 2,
      timeoutMultiplier: 1,
      maxRetries: 0,
      passThreshold: 1,
      judgeModel: null,
      configToml: toml,
      createdById: member.userId,
    });
    const personal = await api.db.secret.findFirstOrThrow({
      where: { name: 'OPENAI_API_KEY', scope: 'personal' },
    });
    expect(row.secretRefs).toEqual({ OPENAI_API_KEY: personal.id });
    expect(row.selection).toMatchObject({
      mode: 'filtered',
      categories: ['software-engineering', 'machine-learning'],
      task_count: 2,
    });
    expect(row.agents.map((a) => [a.index, a.harness, a.modelType, a.model])).toEqual([
      [0, 'terminus-2', 'provider', 'openai/gpt-5.2'],
      [1, 'oracle', 'none', 'reference solution'],
    ]);
    expect(RunAgentSpec.parse(row.agents[0]!.spec)).toEqual({
      harness: 'terminus-2',
      harness_defaulted: true,
      harness_api_key_secret: null,
      model: { type: 'provider', model: 'openai/gpt-5.2', api_key_secret: 'OPENAI_API_KEY' },
      env: { LOG_LEVEL: 'debug', AGENT_MODE: 'strict' },
      secret_env: ['OPENAI_API_KEY'],
      verifier_secret_env: [],
    });
    expect(row.events.map((e) => e.step)).toEqual(['run.submitted', 'run.queued']);
    const attempts = await api.db.attempt.findMany({ where: { runId: run.id } });
    expect(attempts).toHaveLength(12);
    expect(new Set(attempts.map((a) => a.status))).toEqual(new Set(['queued']));
    expect(new Set(attempts.map((a) => `${a.agentId}/${a.taskId}/${a.index}`)).size).toBe(12);
    expect(await jobCount()).toBe(jobsBefore + 1);
    const jobs = await api.app.queues.runDispatch.getJobs(['waiting', 'prioritized', 'delayed']);
    expect(jobs.map((j) => j.data)).toContainEqual({ runId: run.id });
  });

  it('gives every run a different human-friendly name', async () => {
    const names = new Set<string>();
    for (let i = 0; i < 4; i++) {
      const res = await post(
        '/v1/runs',
        member.token,
        config('terminal-bench-2-1', '[tasks]\ntask_set = "smoke"'),
      );
      expect(res.status).toBe(201);
      names.add(res.body.data.name);
    }
    expect(names.size).toBe(4);
  });

  it('HLE without the parity set is accepted with HLE_PARITY_RECOMMENDED', async () => {
    const res = await post(
      '/v1/runs',
      member.token,
      config('hle', '[execution]\njudge_api_key_secret = "JUDGE_KEY"'),
    );
    expect(res.status).toBe(201);
    expect(res.body.data.warnings.map((w: { code: string }) => w.code)).toEqual(['HLE_PARITY_RECOMMENDED']);
    const run = await api.db.run.findUniqueOrThrow({ where: { id: res.body.data.id } });
    expect(run.judgeModel).toBe('openai/o3-mini');
    expect(Object.keys(run.secretRefs as object).sort()).toEqual(['HF_TOKEN', 'JUDGE_KEY', 'OPENAI_API_KEY']);
    const parity = await post(
      '/v1/runs/preview',
      member.token,
      config('hle', '[tasks]\ntask_set = "parity"\n[execution]\njudge_api_key_secret = "JUDGE_KEY"'),
    );
    expect(parity.body.data.warnings).toEqual([]);
    expect(parity.body.data.tasks.task_count).toBe(1);
    expect(
      parity.body.data.secrets.map((s: { name: string; scope: string }) => `${s.name}:${s.scope}`),
    ).toEqual(['OPENAI_API_KEY:personal', 'JUDGE_KEY:workspace', 'HF_TOKEN:workspace']);
  });
});

describe('rejected submissions leave nothing behind', () => {
  const cases: {
    name: string;
    toml: string;
    status: number;
    code: string;
    words: string[];
    token?: () => string;
  }[] = [
    {
      name: 'broken TOML',
      toml: '[experiment]\nbenchmark = terminal\n',
      status: 400,
      code: 'INVALID_CONFIG',
      words: ['configs/benchmark/run.toml:2:13', 'invalid TOML'],
    },
    {
      name: 'unknown key',
      toml: config('terminal-bench-2-1', '[execution]\nmax_concurent_attempts = 2'),
      status: 400,
      code: 'INVALID_CONFIG',
      words: ['did you mean `max_concurrent_attempts`?', 'configs/benchmark/run.toml:4'],
    },
    {
      name: 'unknown benchmark',
      toml: config('no-such-bench'),
      status: 404,
      code: 'NOT_FOUND',
      words: ['no benchmark "no-such-bench"', 'osmosis benchmark list'],
    },
    {
      name: "another workspace's benchmark",
      toml: config('private-bench'),
      status: 404,
      code: 'NOT_FOUND',
      words: ['no benchmark "private-bench"'],
    },
    {
      name: 'benchmark still syncing',
      toml: config('syncing-bench'),
      status: 409,
      code: 'BENCHMARK_NOT_READY',
      words: ['not ready', 'still syncing (12 / 89 tasks)'],
    },
    {
      name: 'benchmark sync failed',
      toml: config('broken-bench'),
      status: 409,
      code: 'BENCHMARK_NOT_READY',
      words: ['sync failed', 'registry answered 404'],
    },
    {
      name: 'unknown task names',
      toml: config(
        'terminal-bench-2-1',
        '[tasks]\ntask_names = ["terminal-bench/nope", "git-multibranch", "also-nope"]',
      ),
      status: 400,
      code: 'INVALID_CONFIG',
      words: ['UNKNOWN_TASK_NAMES', 'terminal-bench/nope, also-nope'],
    },
    {
      name: 'unknown task set',
      toml: config('terminal-bench-2-1', '[tasks]\ntask_set = "parity"'),
      status: 400,
      code: 'INVALID_CONFIG',
      words: ['"parity"', 'use one of: smoke'],
    },
    {
      name: 'judge benchmark without a judge key',
      toml: config('hle', '[tasks]\ntask_set = "parity"'),
      status: 400,
      code: 'INVALID_CONFIG',
      words: ['JUDGE_SECRET_REQUIRED', 'judge_api_key_secret'],
    },
    {
      name: 'missing secret records, all listed at once',
      toml: config(
        'hle',
        '[tasks]\ntask_set = "parity"\n[execution]\njudge_api_key_secret = "MISSING_JUDGE_KEY"',
        `${PROVIDER_AGENT}\n[[agents]]\nharness = "claude-code"\n[agents.model]\ntype = "provider"\nmodel = "anthropic/claude-sonnet-4-5"\napi_key_secret = "ANTHROPIC_API_KEY"\n`,
      ),
      status: 422,
      code: 'MISSING_SECRETS',
      words: [
        'ANTHROPIC_API_KEY (agents[1].model.api_key_secret)',
        'MISSING_JUDGE_KEY',
        'osmosis secret set ANTHROPIC_API_KEY',
      ],
    },
    {
      name: 'a viewer',
      toml: config('terminal-bench-2-1'),
      status: 403,
      code: 'FORBIDDEN',
      words: ['read-only'],
      token: () => viewer.token,
    },
  ];

  it.each(cases)('$name → $code', async (c) => {
    const before = await submitRowCounts(api.db);
    const jobsBefore = await jobCount();
    for (const path of ['/v1/runs/preview', '/v1/runs']) {
      const res = await post(path, c.token?.() ?? member.token, c.toml);
      expect(res.status, res.text).toBe(c.status);
      expect(res.body.error.code).toBe(c.code);
      const text = `${res.body.error.message} ${JSON.stringify(res.body.error.details)}`;
      for (const w of c.words) expect(text).toContain(w);
    }
    expect(await submitRowCounts(api.db)).toEqual(before);
    expect(await jobCount()).toBe(jobsBefore);
  });

  it('MISSING_SECRETS details list every record and its command', async () => {
    const res = await post(
      '/v1/runs',
      stranger.token,
      config('private-bench', '', PROVIDER_AGENT.replace('OPENAI_API_KEY', 'STRANGER_KEY')),
    );
    expect(res.status).toBe(422);
    expect(res.body.error.details).toEqual({
      missing: ['STRANGER_KEY'],
      used_by: { STRANGER_KEY: ['agents[0].model.api_key_secret'] },
      commands: ['osmosis secret set STRANGER_KEY'],
    });
  });
});

describe('secret values', () => {
  it('never appear in responses, logs (trace level) or stored runs and events', async () => {
    expect(bodies.length).toBeGreaterThan(10);
    for (const b of bodies) expect(b).not.toContain(PLANTED);
    const logs = logLines.join('');
    expect(logs).toContain('run submitted');
    expect(logs).not.toContain(PLANTED);
    const dump = await api.db.$queryRawUnsafe<{ t: string | null }[]>(
      `SELECT concat_ws(E'\\n',
         (SELECT string_agg(row_to_json(r)::text, E'\\n') FROM runs r),
         (SELECT string_agg(row_to_json(a)::text, E'\\n') FROM run_agents a),
         (SELECT string_agg(row_to_json(e)::text, E'\\n') FROM run_events e),
         (SELECT string_agg(row_to_json(s)::text, E'\\n') FROM secrets s)) AS t`,
    );
    expect(dump[0]!.t).toContain('OPENAI_API_KEY');
    expect(dump[0]!.t).not.toContain(PLANTED);
    expect(dump[0]!.t).not.toContain(Buffer.from(PLANTED).toString('hex'));
  });
});
