// The model-driven harnesses inside the real attempt pipeline (apps/worker executeAttempt):
// terminus-2 with a scripted model passes one task and fails it another time (the task's own
// verifier decides), its trajectory is stored as an artifact without secrets; an HLE-style task
// is graded by the worker-side LLM judge with the judge's tokens kept apart from the agent's.
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { atifProblems } from '@osmosis/contracts';
import { createJudgeClient, createJudgeVerifier, defaultHleJudgeTemplate } from '@osmosis/harness';
import { parseTaskConfig } from '@osmosis/tasks';
import { type AttemptInput, executeAttempt } from '@osmosis/worker/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type FakeModelServer, type FakeReply, startFakeModelServer } from './helpers/fake-model-server.ts';

const KEY = `sk-agent-${randomUUID()}`;
const JUDGE_KEY = `sk-judge-${randomUUID()}`;
const deps = { scope: `test-${randomUUID()}` };
const runId = randomUUID();
let fake: FakeModelServer;
let root: string;

const turn = (keystrokes: string | null, done: boolean, usage = { input: 500, output: 50 }): FakeReply => ({
  kind: 'text',
  text: JSON.stringify({
    analysis: 'a',
    plan: 'p',
    commands: keystrokes === null ? [] : [{ keystrokes, duration: 0.3 }],
    task_complete: done,
  }),
  usage,
});

async function attempt(fixture: string, extra: Partial<AttemptInput> = {}) {
  const dir = fixture.startsWith('/') ? fixture : path.join(import.meta.dirname, fixture);
  const { config } = parseTaskConfig(await readFile(path.join(dir, 'task.toml'), 'utf8'));
  const attemptId = randomUUID();
  const input: AttemptInput = {
    attemptId,
    runId,
    workerId: 'harness-pipeline-test',
    task: { name: path.basename(dir), dir, config },
    harness: 'terminus-2',
    agentConfig: {
      harness: 'terminus-2',
      model: { type: 'provider', model: 'openai/gpt-5.2', api_key_secret: 'OPENAI_API_KEY' },
    },
    agentEnv: { OPENAI_API_KEY: KEY, LOG_LEVEL: 'info' },
    secrets: [KEY],
    timeoutMultiplier: 2,
    passThreshold: 1,
    artifactsDir: path.join(root, attemptId),
    ...extra,
  };
  return executeAttempt(input, deps);
}

beforeAll(async () => {
  fake = await startFakeModelServer();
  process.env.OSMOSIS_PROVIDER_OPENAI_BASE_URL = fake.openaiBaseUrl;
  root = await mkdtemp(path.join(tmpdir(), 'osmosis-harness-pipeline-'));
});
afterAll(async () => {
  delete process.env.OSMOSIS_PROVIDER_OPENAI_BASE_URL;
  await fake?.close();
  await rm(root, { recursive: true, force: true });
});
beforeEach(() => fake.reset());

const HELLO = '../apps/worker/src/trial/fixtures/hello';

describe('model-driven harnesses in the attempt pipeline', { timeout: 240_000 }, () => {
  it('terminus-2 passes a task; the trajectory artifact is complete and holds no secret', async () => {
    fake.enqueue(
      turn(`printf hello > /app/answer.txt; echo "key=$OPENAI_API_KEY"\n`, false, {
        input: 1000,
        output: 80,
      }),
      turn(null, true, { input: 1100, output: 20 }),
      turn(null, true, { input: 1200, output: 10 }),
    );
    const result = await attempt(HELLO);
    expect(result.errorMessage).toBeNull();
    expect(result).toMatchObject({ outcome: 'passed', reward: 1, agentExitCode: 0, agentTimedOut: false });
    expect(result).toMatchObject({ inputTokens: 3300, outputTokens: 110, cacheTokens: 0, costUsd: 0.007315 });
    const artifact = result.artifacts.find((a) => a.path === 'agent/trajectory.json');
    expect(artifact).toBeDefined();
    // stored as valid ATIF: the prompt, three turns with their tokens, the key scrubbed from the output
    const trajectory = JSON.parse(await readFile(artifact!.hostPath, 'utf8'));
    expect(atifProblems(trajectory)).toEqual([]);
    expect(trajectory).toMatchObject({
      schema_version: 'ATIF-v1.7',
      agent: { name: 'terminus-2' },
      extra: { stop_reason: 'task_complete', turns: 3 },
      final_metrics: { total_prompt_tokens: 3300, total_completion_tokens: 110, total_cost_usd: 0.007315 },
    });
    expect(trajectory.steps.map((s: { source: string }) => s.source)).toEqual([
      'user',
      'agent',
      'agent',
      'agent',
    ]);
    expect(trajectory.steps[1].tool_calls[0]).toMatchObject({ function_name: 'bash_command' });
    expect(trajectory.steps[1].observation.results[0].content).toContain('key=');
    expect(
      trajectory.steps.slice(1).map((s: { metrics: { prompt_tokens: number } }) => s.metrics.prompt_tokens),
    ).toEqual([1000, 1100, 1200]);
    for (const a of result.artifacts) expect(await readFile(a.hostPath, 'utf8')).not.toContain(KEY);
    // what the attempt records as harness_info (docs/terminus-2.md, "Comparability")
    expect(result.harnessInfo).toMatchObject({
      harness: 'terminus-2',
      templates: { kind: 'default' },
      model_params: { temperature: 0.7 },
    });
  });

  it('terminus-2 fails the same task when its work is wrong (a model outcome, not an error)', async () => {
    fake.enqueue(turn('printf goodbye > /app/answer.txt\n', true), turn(null, true));
    const result = await attempt(HELLO);
    expect(result).toMatchObject({ outcome: 'failed', reward: 0, errorClass: null });
  });

  it('a rejected model key makes the attempt errored as a provider failure', async () => {
    // terminus-2 tries a turn three times, as its reference does (terminus_2.py L979–990)
    const rejected = { kind: 'error' as const, status: 401, message: 'bad key' };
    fake.enqueue(rejected, rejected, rejected);
    const result = await attempt(HELLO);
    expect(result).toMatchObject({ outcome: 'errored', errorClass: 'provider' });
  });

  it('an HLE-style task is graded by the judge; judge tokens are separate from the agent', async () => {
    const answer =
      'printf "Explanation: 41 is prime.\\nAnswer: 41\\nConfidence: 90%%\\n" > /logs/agent/response.txt\n';
    fake.enqueue(
      turn(answer, true, { input: 300, output: 30 }),
      turn(null, true, { input: 300, output: 30 }),
      {
        kind: 'text',
        text: JSON.stringify({
          extracted_final_answer: '41',
          reasoning: 'match',
          correct: 'yes',
          confidence: 90,
        }),
        usage: { input: 700, output: 40 },
      },
    );
    const judge = createJudgeClient('openai/gpt-5.2', JUDGE_KEY, {
      env: { OSMOSIS_PROVIDER_OPENAI_BASE_URL: fake.openaiBaseUrl },
    });
    const result = await attempt('fixtures/hle-mini', {
      verifier: createJudgeVerifier({ kind: 'hle', client: judge }),
      secrets: [KEY, JUDGE_KEY],
    });
    expect(result.errorMessage).toBeNull();
    expect(result).toMatchObject({ outcome: 'passed', reward: 1 });
    expect(result).toMatchObject({ inputTokens: 600, outputTokens: 60 });
    expect(result).toMatchObject({ judgeInputTokens: 700, judgeOutputTokens: 40, judgeCostUsd: 0.001785 });
    // the prompt it was graded with goes with the result, for the run's lock
    expect(result.judgeTemplate).toBe(`default:${defaultHleJudgeTemplate().digest}`);
    const judgeRequest = fake.requests[2]!;
    expect(judgeRequest.headers.authorization).toBe(`Bearer ${JUDGE_KEY}`);
    expect(JSON.stringify(judgeRequest.body)).toContain('Answer: 41');
    const paths = result.artifacts.map((a) => a.path);
    expect(paths).toContain('verifier/judgment.json');
  });
});
