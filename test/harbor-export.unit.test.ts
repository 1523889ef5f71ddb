// The Harbor export's pure mapping (apps/api/src/services/harbor-export/): every JSON file it writes
// checked against Harbor 0.9's field lists (packages/contracts/test-data/harbor-0.9/fields.json),
// trial names as Harbor makes them and safe for hostile task names, metadata.yaml that no name
// can break, and the Terminal-Bench leaderboard's rules, each named when broken.

import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import {
  type ExportAttempt,
  type ExportRun,
  harborJob,
  leaderboardBreaks,
  leaderboardModels,
  metadataYaml,
  reuseFromHint,
  submissionFolder,
  trialNames,
} from '@osmosis/api/testing';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { harborFieldErrors, harborVersionOfFieldLists } from './helpers/harbor-fields.ts';
import { runLockFixture } from './helpers/run-lock-fixture.ts';

const T0 = new Date('2026-12-01T10:00:00.000Z');
let seq = 0;
const uuid = () => `00000000-0000-4000-8000-${String(++seq).padStart(12, '0')}`;

function run(over: Partial<ExportRun> = {}): ExportRun {
  return {
    id: uuid(),
    name: 'calm-heron',
    status: 'finished',
    benchmarkKey: 'terminal-bench',
    timeoutMultiplier: 1,
    attemptsPerTask: 5,
    maxConcurrentAttempts: 4,
    maxRetries: 0,
    createdAt: T0,
    startedAt: T0,
    finishedAt: new Date(T0.getTime() + 3_600_000),
    agents: [{ index: 0, harness: 'terminus-2', modelType: 'provider', model: 'openai/gpt-5', params: {} }],
    taskNames: ['hello-world', 'fix-git'],
    ...over,
  };
}

function attempt(taskName: string, index: number, over: Partial<ExportAttempt> = {}): ExportAttempt {
  return {
    id: uuid(),
    agentIndex: 0,
    taskName,
    taskDigest: `sha256:${'ab'.repeat(32)}`,
    index,
    tryCount: 1,
    status: 'finished',
    outcome: 'passed',
    reward: 1,
    rewards: { reward: 1 },
    errorClass: null,
    errorMessage: null,
    inputTokens: 1200,
    outputTokens: 300,
    cacheTokens: 200,
    costUsd: 0.012,
    envMs: 2000,
    agentSetupMs: 500,
    agentMs: 30_000,
    verifierMs: 1500,
    startedAt: T0,
    finishedAt: new Date(T0.getTime() + 40_000),
    harnessVersion: '2.0.0',
    steps: null,
    artifactPaths: [
      'agent/terminus-2.txt',
      'agent/trajectory.json',
      'verifier/reward.txt',
      'verifier/test-stdout.txt',
    ],
    ...over,
  };
}

const full = (r: ExportRun, over: (task: string, i: number) => Partial<ExportAttempt> = () => ({})) =>
  r.taskNames.flatMap((t) => Array.from({ length: r.attemptsPerTask }, (_, i) => attempt(t, i, over(t, i))));

/** The Harbor model each JSON file of a job is. */
function modelOf(path: string): string | null {
  if (path === 'config.json') return 'JobConfig';
  if (path === 'result.json') return 'JobResult';
  if (path === 'lock.json') return 'JobLock';
  if (/^[^/]+\/config\.json$/.test(path)) return 'TrialConfig';
  if (/^[^/]+\/result\.json$/.test(path)) return 'TrialResult';
  return null;
}

describe('Harbor job files against Harbor 0.9 field lists', () => {
  it('the field lists are those of Harbor 0.9.0', () => {
    expect(harborVersionOfFieldLists()).toBe('0.9.0');
  });

  it("the checker takes Harbor's own trajectories (ATIF) as they are", async () => {
    const dir = path.resolve(import.meta.dirname, '../packages/contracts/src/atif.fixtures');
    const names = (await readdir(dir)).filter((n) => /^harbor-.*\.json$/.test(n));
    expect(names.length).toBeGreaterThan(3);
    for (const name of names) {
      const value = JSON.parse(await readFile(path.join(dir, name), 'utf8'));
      expect(harborFieldErrors('Trajectory', value, name)).toEqual([]);
    }
  });

  it('the checker catches a missing field, a wrong type and an unknown key', () => {
    const job = harborJob(run(), [attempt('hello-world', 0)]);
    const result = structuredClone(job.trials[0]!.result) as Record<string, unknown>;
    delete result.task_name;
    result.started_at = 'yesterday';
    result.score = 1;
    const errors = harborFieldErrors('TrialResult', result);
    expect(errors.join('\n')).toMatch(/TrialResult\.task_name is required/);
    expect(errors.join('\n')).toMatch(/started_at: .*matches none/);
    expect(errors.join('\n')).toMatch(/has no field "score"/);
  });

  it('every file of a mixed run fits: passed, failed, errored, agent timeout, multi-step, no model, several agents', () => {
    const r = run({
      attemptsPerTask: 2,
      taskNames: ['hello-world', 'build-greeter'],
      agents: [
        {
          index: 0,
          harness: 'terminus-2',
          modelType: 'provider',
          model: 'anthropic/claude-sonnet-4-5',
          params: { temperature: 0.7 },
        },
        { index: 1, harness: 'oracle', modelType: 'none', model: 'reference solution', params: {} },
        { index: 2, harness: 'terminus-2', modelType: 'endpoint', model: 'qwen3 @ llm.example', params: {} },
      ],
    });
    const steps = [
      {
        name: 'scaffold',
        outcome: 'passed' as const,
        reward: 1,
        rewards: { reward: 1 },
        error_class: null,
        error_message: null,
        agent_ms: 100,
        verifier_ms: 50,
        agent_exit_code: 0,
        agent_timed_out: false,
      },
      {
        name: 'configure',
        outcome: 'failed' as const,
        reward: 0,
        rewards: null,
        error_class: 'agent_timeout',
        error_message: 'timed out',
        agent_ms: 900,
        verifier_ms: null,
        agent_exit_code: null,
        agent_timed_out: true,
      },
    ];
    const attempts = [
      attempt('hello-world', 0),
      attempt('hello-world', 1, {
        outcome: 'failed',
        reward: 0,
        rewards: null,
        inputTokens: null,
        outputTokens: null,
        cacheTokens: null,
        costUsd: null,
      }),
      attempt('build-greeter', 0, { steps, rewards: { reward: 0.5, style: 1 } }),
      attempt('build-greeter', 1, {
        outcome: 'errored',
        reward: null,
        rewards: null,
        errorClass: 'environment_build',
        errorMessage: 'build failed',
        agentMs: null,
        verifierMs: null,
      }),
      attempt('hello-world', 0, { agentIndex: 1, harnessVersion: null }),
      attempt('hello-world', 0, {
        agentIndex: 2,
        errorClass: 'agent_timeout',
        errorMessage: 'agent timed out after 900 s',
      }),
      attempt('hello-world', 1, { agentIndex: 2, status: 'running', outcome: null, finishedAt: null }),
    ];
    const lock = runLockFixture([
      { name: 'hello-world', digest: 'ab'.repeat(32) },
      { name: 'build-greeter', digest: 'cd'.repeat(32) },
    ]);
    const job = harborJob(r, attempts, lock);
    expect(job.trials).toHaveLength(6); // the running attempt has no trial
    expect(job.jsonFiles.map((f) => f.path).slice(0, 4)).toEqual([
      'config.json',
      'result.json',
      'lock.json',
      'osmosis-lock.json',
    ]);
    expect(job.jsonFiles[3]?.json).toBe(lock);
    for (const file of job.jsonFiles.filter((f) => f.path !== 'osmosis-lock.json')) {
      const model = modelOf(file.path);
      expect(model, file.path).not.toBeNull();
      // through JSON, as the file is written
      expect(harborFieldErrors(model as string, JSON.parse(JSON.stringify(file.json)), file.path)).toEqual(
        [],
      );
    }
    const byTask = (task: string, agent = 0) =>
      job.trials
        .filter((t) => t.attempt.taskName === task && t.attempt.agentIndex === agent)
        .map((t) => t.result);
    const multi = byTask('build-greeter')[0]!;
    expect(multi.step_results?.map((s) => [s.step_name, s.verifier_result?.rewards ?? null])).toEqual([
      ['scaffold', { reward: 1 }],
      ['configure', { reward: 0 }],
    ]);
    expect(multi.step_results?.[1]?.exception_info?.exception_type).toBe('AgentTimeoutError');
    expect(multi.verifier_result).toEqual({ rewards: { reward: 0.5, style: 1 } });
    const errored = byTask('build-greeter')[1]!;
    expect(errored.exception_info).toMatchObject({
      exception_type: 'EnvironmentBuildError',
      exception_message: 'build failed',
    });
    expect(errored.verifier_result).toBeNull();
    const passed = byTask('hello-world')[0]!;
    expect(passed.agent_info).toEqual({
      name: 'terminus-2',
      version: '2.0.0',
      model_info: { name: 'claude-sonnet-4-5', provider: 'anthropic' },
    });
    expect(passed.agent_result).toMatchObject({
      n_input_tokens: 1200,
      n_cache_tokens: 200,
      n_output_tokens: 300,
      cost_usd: 0.012,
    });
    expect(passed.environment_setup).toEqual({
      started_at: '2026-12-01T10:00:00.000Z',
      finished_at: '2026-12-01T10:00:02.000Z',
    });
    expect(passed.agent_execution).toEqual({
      started_at: '2026-12-01T10:00:02.500Z',
      finished_at: '2026-12-01T10:00:32.500Z',
    });
    expect(passed.task_checksum).toBe('ab'.repeat(32));
    expect(byTask('hello-world', 1)[0]!.agent_info).toEqual({
      name: 'oracle',
      version: 'unknown',
      model_info: null,
    });
    expect(byTask('hello-world', 2)[0]!.agent_info.model_info).toEqual({ name: 'qwen3', provider: null });
    expect(byTask('hello-world', 2)[0]!.config.agent.model_name).toBe('qwen3');
    const result = job.jsonFiles.find((f) => f.path === 'result.json')!.json as {
      n_total_trials: number;
      stats: Record<string, unknown>;
    };
    expect(result.n_total_trials).toBe(12);
    expect(result.stats).toMatchObject({ n_completed_trials: 6, n_errored_trials: 2, n_running_trials: 1 });
    // artifacts go into the trial folders under their own paths
    expect(job.artifacts.filter((a) => a.path.endsWith('/agent/trajectory.json'))).toHaveLength(6);
  });

  it('pass@k and the evals key as Harbor computes them', () => {
    const r = run({ attemptsPerTask: 2, taskNames: ['a'] });
    const job = harborJob(r, [attempt('a', 0), attempt('a', 1, { reward: 0, rewards: { reward: 0 } })]);
    const result = job.jsonFiles[1]!.json as {
      stats: { evals: Record<string, { pass_at_k: Record<string, number>; metrics: unknown[] }> };
    };
    expect(Object.keys(result.stats.evals)).toEqual(['terminus-2__openai/gpt-5__terminal-bench']);
    const e = result.stats.evals['terminus-2__openai/gpt-5__terminal-bench']!;
    expect(e.pass_at_k).toEqual({ 2: 1 });
    expect(e.metrics).toEqual([{ mean: 0.5 }]);
  });
});

describe('exception types', () => {
  it("Harbor's names for the classes it has, the class's own name otherwise", () => {
    const typeOf = (errorClass: string) =>
      harborJob(run({ taskNames: ['t'], attemptsPerTask: 1 }), [attempt('t', 0, { errorClass })]).trials[0]!
        .result.exception_info?.exception_type;
    expect(typeOf('agent_timeout')).toBe('AgentTimeoutError');
    expect(typeOf('verifier_missing_reward')).toBe('RewardFileNotFoundError');
    expect(typeOf('cancelled')).toBe('CancelledError');
    expect(typeOf('agent_error')).toBe('AgentError');
    expect(typeOf('image_pull')).toBe('ImagePullError');
  });
});

describe('trial names', () => {
  it('are <task[:32]>__<7 characters>, the same for the same attempt, and unique', () => {
    const a = { id: '7d9c2f7a-1111-4222-8333-444455556666', taskName: 'a'.repeat(40) };
    const names = trialNames([a, { id: uuid(), taskName: 'fix-git' }]);
    expect(names.get(a.id)).toMatch(/^a{32}__[2-9A-HJ-NP-Za-km-z]{7}$/);
    expect(trialNames([a]).get(a.id)).toBe(names.get(a.id));
  });

  it('hostile task names become one plain path segment', () => {
    const hostile = ['../../etc/passwd', '..', '.hidden', 'a/b\\c', 'x\u0000y\nz', '', '___', 'ünïcode'];
    const names = trialNames(hostile.map((taskName) => ({ id: uuid(), taskName })));
    for (const name of names.values()) {
      expect(name).toMatch(/^[A-Za-z0-9_-][A-Za-z0-9._-]*__[A-Za-z0-9]{7,}$/);
      expect(name).not.toContain('..');
    }
    expect(new Set(names.values()).size).toBe(hostile.length);
  });
});

describe('metadata.yaml', () => {
  it('has the leaderboard README shape with one entry per model', () => {
    const r = run({
      agents: [
        { index: 0, harness: 'terminus-2', modelType: 'provider', model: 'openai/gpt-5', params: {} },
        {
          index: 1,
          harness: 'terminus-2',
          modelType: 'provider',
          model: 'anthropic/claude-opus-4-1',
          params: {},
        },
        { index: 2, harness: 'oracle', modelType: 'none', model: 'reference solution', params: {} },
      ],
    });
    const info = { agentUrl: 'https://github.com/acme/agent', agentName: 'Acme Agent', org: 'Acme' };
    const models = leaderboardModels(r);
    expect(parseYaml(metadataYaml(info, models))).toEqual({
      agent_url: 'https://github.com/acme/agent',
      agent_display_name: 'Acme Agent',
      agent_org_display_name: 'Acme',
      models: [
        {
          model_name: 'gpt-5',
          model_provider: 'openai',
          model_display_name: 'gpt-5',
          model_org_display_name: 'OpenAI',
        },
        {
          model_name: 'claude-opus-4-1',
          model_provider: 'anthropic',
          model_display_name: 'claude-opus-4-1',
          model_org_display_name: 'Anthropic',
        },
      ],
    });
    expect(submissionFolder(info, models)).toBe('Acme-Agent__gpt-5+claude-opus-4-1');
  });

  it('a hostile name stays one value: no added key, no line break, no document end', () => {
    const evil = 'x"\nmodels: []\n--- \u2028\u0085#\u007f: y';
    const yaml = metadataYaml(
      { agentUrl: 'https://a.example/', agentName: evil, org: evil },
      leaderboardModels(run()),
    );
    const parsed = parseYaml(yaml);
    expect(parsed.agent_display_name).toBe(evil);
    expect(parsed.agent_org_display_name).toBe(evil);
    expect(parsed.models).toHaveLength(1);
    expect(yaml.split('\n')).toHaveLength(9);
    expect(submissionFolder({ agentUrl: '', agentName: '../../x', org: '' }, [])).toBe('x__no-model');
  });
});

describe('leaderboard rules', () => {
  it('a run of 5 trials per task at multiplier 1.0 with its artifacts breaks none', () => {
    const r = run();
    expect(leaderboardBreaks(r, harborJob(r, full(r)))).toEqual([]);
  });

  it('timeout_multiplier = 2 is refused, naming the rule', () => {
    const r = run({ timeoutMultiplier: 2 });
    const breaks = leaderboardBreaks(r, harborJob(r, full(r)));
    expect(breaks.map((b) => b.rule)).toEqual(['timeout_multiplier']);
    expect(breaks[0]!.message).toMatch(/timeout multiplier must be 1\.0 \(found config\.json: 2/);
  });

  it('3 trials per task is refused, naming the tasks and the reuse_from that completes them', () => {
    const r = run({ attemptsPerTask: 3 });
    const breaks = leaderboardBreaks(r, harborJob(r, full(r)));
    expect(breaks.map((b) => b.rule)).toEqual(['min_trials']);
    expect(breaks[0]!.tasks).toEqual([
      { task: 'hello-world', trials: 3 },
      { task: 'fix-git', trials: 3 },
    ]);
    expect(breaks[0]!.message).toMatch(/at least 5 trials; 2 have fewer: hello-world \(3\), fix-git \(3\)/);
    expect(reuseFromHint(r)).toBe(
      '[execution]\nattempts_per_task = 5\ntimeout_multiplier = 1.0\nreuse_from = "calm-heron"',
    );
  });

  it('a missing trial and a trial without its verifier output are refused, each named', () => {
    const r = run();
    const attempts = full(r, (t, i) =>
      t === 'fix-git' && i === 0
        ? { status: 'running', outcome: null, finishedAt: null }
        : i === 1
          ? { artifactPaths: ['agent/trajectory.json'] }
          : {},
    );
    const rules = leaderboardBreaks(r, harborJob(r, attempts)).map((b) => b.rule);
    expect(rules).toEqual(['missing_trial', 'min_trials', 'missing_artifact']);
  });

  it('overrides in a trial config are found, whatever level they are at', () => {
    const r = run();
    const job = harborJob(r, full(r));
    const config = job.trials[0]!.result.config as unknown as Record<string, Record<string, unknown>>;
    config.agent!.override_timeout_sec = 3600;
    config.verifier!.max_timeout_sec = 10;
    config.environment!.override_cpus = 8;
    (config as unknown as Record<string, unknown>).agent_timeout_multiplier = 3;
    const rules = leaderboardBreaks(r, job).map((b) => b.rule);
    expect(rules).toEqual([
      'timeout_multiplier',
      'agent_timeout_override',
      'verifier_timeout_override',
      'resource_override',
    ]);
  });
});
