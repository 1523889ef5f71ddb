// The Harbor export's lock.json: the platform's run lock mapped to Harbor 0.9's JobLock
// (apps/api/src/services/harbor-export/job-lock.ts), checked against Harbor's field lists, with task
// digests in the one form Harbor's validator takes, git sources as git tasks, one TrialLock per
// exported trial carrying that trial's config.
import { type ExportAttempt, type ExportRun, harborJob, harborTaskDigest } from '@osmosis/api/testing';
import { describe, expect, it } from 'vitest';
import { harborFieldErrors } from './helpers/harbor-fields.ts';
import { runLockFixture } from './helpers/run-lock-fixture.ts';

const T0 = new Date('2026-12-01T10:00:00.000Z');
const HEX_A = 'ab'.repeat(32);
const HEX_B = 'CD'.repeat(32);

const run: ExportRun = {
  id: '00000000-0000-4000-8000-000000000001',
  name: 'calm-heron',
  status: 'finished',
  benchmarkKey: 'terminal-bench',
  timeoutMultiplier: 2,
  attemptsPerTask: 2,
  maxConcurrentAttempts: 3,
  maxRetries: 1,
  createdAt: T0,
  startedAt: T0,
  finishedAt: T0,
  agents: [
    {
      index: 0,
      harness: 'terminus-2',
      modelType: 'provider',
      model: 'openai/gpt-5',
      params: { temperature: 0 },
    },
  ],
  taskNames: ['hello-world', 'fix-git'],
};

let seq = 0;
function attempt(taskName: string, index: number, over: Partial<ExportAttempt> = {}): ExportAttempt {
  return {
    id: `00000000-0000-4000-8000-1${String(++seq).padStart(11, '0')}`,
    agentIndex: 0,
    taskName,
    taskDigest: '0'.repeat(64),
    index,
    tryCount: 1,
    status: 'finished',
    outcome: 'passed',
    reward: 1,
    rewards: { reward: 1 },
    errorClass: null,
    errorMessage: null,
    inputTokens: null,
    outputTokens: null,
    cacheTokens: null,
    costUsd: null,
    envMs: null,
    agentSetupMs: null,
    agentMs: null,
    verifierMs: null,
    startedAt: T0,
    finishedAt: T0,
    harnessVersion: null,
    steps: null,
    artifactPaths: [],
    ...over,
  };
}

const attempts = [
  attempt('hello-world', 0),
  attempt('hello-world', 1),
  attempt('fix-git', 0),
  // still running: no trial, so no TrialLock
  attempt('fix-git', 1, { status: 'running', outcome: null, finishedAt: null }),
];
const tasks = [
  { name: 'hello-world', digest: HEX_A },
  { name: 'fix-git', digest: `sha256:${HEX_B}` },
];

function lockJson(source: Parameters<typeof runLockFixture>[1] = {}) {
  const job = harborJob(run, attempts, runLockFixture(tasks, source));
  const file = job.jsonFiles.find((f) => f.path === 'lock.json');
  // through JSON, as the file is written
  return { job, lock: JSON.parse(JSON.stringify(file?.json)) };
}

describe("Harbor's JobLock from the run lock", () => {
  it('fits JobLock and has one TrialLock per exported trial, with its config', () => {
    const { job, lock } = lockJson();
    expect(harborFieldErrors('JobLock', lock, 'lock.json')).toEqual([]);
    expect(lock).toMatchObject({
      schema_version: 1,
      created_at: T0.toISOString(),
      harbor: { version: null, git_commit_hash: null, is_editable: null },
      invocation: null,
      n_concurrent_trials: 3,
    });
    const config = job.jsonFiles.find((f) => f.path === 'config.json')?.json as Record<string, unknown>;
    expect(lock.retry).toEqual(config.retry);
    expect(lock.trials).toHaveLength(3);
    for (const [i, trial] of job.trials.entries()) {
      const trialConfig = job.jsonFiles.find((f) => f.path === `${trial.name}/config.json`)?.json as Record<
        string,
        unknown
      >;
      const locked = lock.trials[i];
      expect(locked.task.name).toBe(trial.attempt.taskName);
      expect(locked.agent).toEqual(trialConfig.agent);
      expect(locked.environment).toEqual(trialConfig.environment);
      expect(locked.verifier).toEqual(trialConfig.verifier);
      expect(locked.timeout_multiplier).toBe(2);
      expect(locked.task.path).toBe(`terminal-bench/${trial.attempt.taskName}`);
    }
  });

  it("writes task digests as Harbor's validator wants them: sha256: and 64 lowercase hex", () => {
    const { lock } = lockJson();
    const digests = Object.fromEntries(
      lock.trials.map((t: { task: { name: string; digest: string } }) => [t.task.name, t.task.digest]),
    );
    expect(digests).toEqual({ 'hello-world': `sha256:${HEX_A}`, 'fix-git': `sha256:${HEX_B.toLowerCase()}` });
    for (const d of Object.values(digests)) expect(d).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  it('refuses a digest that is not a SHA-256 instead of writing one Harbor would reject', () => {
    for (const bad of [
      '',
      'sha256:',
      'ab'.repeat(31),
      `md5:${'ab'.repeat(32)}`,
      `${'ab'.repeat(32)}00`,
      'zz'.repeat(32),
    ])
      expect(() => harborTaskDigest(bad), bad).toThrow(/is not a SHA-256/);
    expect(() => harborJob(run, attempts, runLockFixture([{ name: 'hello-world', digest: 'nope' }]))).toThrow(
      /"nope" is not a SHA-256/,
    );
  });

  it('falls back to the digest the attempt ran at for a task the lock does not list', () => {
    const job = harborJob(run, attempts, runLockFixture([{ name: 'hello-world', digest: HEX_A }]));
    const lock = job.jsonFiles.find((f) => f.path === 'lock.json')?.json as {
      trials: { task: { name: string; digest: string } }[];
    };
    expect(lock.trials.find((t) => t.task.name === 'fix-git')?.task.digest).toBe(`sha256:${'0'.repeat(64)}`);
  });

  it('a task from git is a git TaskLock with the URL and commit; any other source is local', () => {
    const commit = 'a'.repeat(40);
    const git = lockJson({
      kind: 'git',
      url: 'https://example.test/tb.git',
      ref: 'main',
      commit,
      archive: null,
    });
    expect(harborFieldErrors('JobLock', git.lock)).toEqual([]);
    for (const t of git.lock.trials)
      expect(t.task).toMatchObject({
        type: 'git',
        git_url: 'https://example.test/tb.git',
        git_commit_id: commit,
      });
    for (const kind of ['archive', 'registry'] as const) {
      const { lock } = lockJson({ kind, url: kind === 'registry' ? 'https://registry.test' : null });
      for (const t of lock.trials)
        expect(t.task).toMatchObject({
          type: 'local',
          git_url: null,
          git_commit_id: null,
          source: 'terminal-bench',
        });
    }
  });

  it('without a run lock there is neither lock.json nor osmosis-lock.json', () => {
    const paths = harborJob(run, attempts).jsonFiles.map((f) => f.path);
    expect(paths).not.toContain('lock.json');
    expect(paths).not.toContain('osmosis-lock.json');
  });
});
