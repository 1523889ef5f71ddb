// biome-ignore-all lint/suspicious/noExplicitAny: tests read loosely typed JSON bodies
// A judge benchmark end to end: the agent's response lives in a real sandbox (no network), the
// worker-side judge verifier grades it against the task's reference with the fake model server
// as the judge, and writes the verdict and reward where the pipeline reads them.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  createJudgeClient,
  defaultHleJudgeTemplate,
  rubricJudgeTemplate,
  runHleJudgeVerifier,
  runRubricJudgeVerifier,
} from '@osmosis/harness';
import { createSandbox, type Sandbox } from '@osmosis/sandbox';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type FakeModelServer, startFakeModelServer } from './helpers/fake-model-server.ts';

const IMAGE = process.env.OSMOSIS_BASE_IMAGE ?? 'osmosis/base:bookworm';
const JUDGE_KEY = 'sk-judge-e2e-planted-424242';

let fake: FakeModelServer;
let sandbox: Sandbox;
let taskDir: string;

beforeAll(async () => {
  fake = await startFakeModelServer();
  sandbox = await createSandbox({ image: IMAGE, labels: { extra: { test: 'harness-judge' } } });
  taskDir = mkdtempSync(path.join(tmpdir(), 'osmosis-judge-task-'));
  mkdirSync(path.join(taskDir, 'tests'));
  writeFileSync(path.join(taskDir, 'tests/question.txt'), 'What is the smallest prime greater than 40?\n');
  writeFileSync(path.join(taskDir, 'tests/answer.txt'), '41\n');
  writeFileSync(
    path.join(taskDir, 'tests/rubric.json'),
    JSON.stringify({
      items: [
        { criterion: 'Names the prime', points: 3 },
        { criterion: 'Explains why', points: 1 },
      ],
    }),
  );
});
afterAll(async () => {
  await sandbox?.destroy();
  await fake?.close();
  rmSync(taskDir, { recursive: true, force: true });
});
beforeEach(async () => {
  fake.reset();
  await sandbox.exec('rm -rf /logs/agent /logs/verifier && mkdir -p /logs/agent /logs/verifier');
});

const judge = () =>
  createJudgeClient('openai/gpt-5.2', JUDGE_KEY, {
    env: { OSMOSIS_PROVIDER_OPENAI_BASE_URL: fake.openaiBaseUrl },
  });
const respond = (text: string) => sandbox.putFiles([{ path: '/logs/agent/response.txt', content: text }]);
const verdict = (correct: 'yes' | 'no', extracted: string) =>
  JSON.stringify({
    extracted_final_answer: extracted,
    reasoning: 'compared with 41',
    correct,
    confidence: 70,
  });
const rewardFile = async () => JSON.parse((await sandbox.getFile('/logs/verifier/reward.json'))!.toString());

describe('LLM judge verifiers', { timeout: 120_000 }, () => {
  it('HLE: a correct answer passes, a wrong one fails, with the judge accounted separately', async () => {
    await respond('Explanation: 41 is prime.\nAnswer: 41\nConfidence: 70%');
    fake.enqueue({ kind: 'text', text: verdict('yes', '41'), usage: { input: 800, output: 60 } });
    const right = await runHleJudgeVerifier({ sandbox, taskDir, client: judge() });
    expect(right.reward).toBe(1);
    expect(right.judgement).toMatchObject({ correct: true, extracted_answer: '41', confidence: 70 });
    expect(right.judge).toMatchObject({ calls: 1, usage: { input: 800, output: 60 }, cost_usd: 0.00224 });
    expect(right.template).toEqual({ kind: 'default', digest: defaultHleJudgeTemplate().digest });
    // the stated confidence rides along for the calibration error (compute_calibration.py)
    expect(await rewardFile()).toEqual({ reward: 1, confidence: 70 });
    const prompt = fake.requests[0]!.body.messages[0].content as string;
    expect(prompt).toContain('smallest prime greater than 40');
    expect(prompt).toContain('[correct_answer]: 41');
    expect(prompt).toContain('Answer: 41');
    const judgment = (await sandbox.getFile('/logs/verifier/judgment.json'))!.toString();
    expect(judgment).toContain('"correct": true');
    expect(judgment).not.toContain(JUDGE_KEY);

    await respond('Answer: 43\nConfidence: 90%');
    fake.enqueue({ kind: 'text', text: verdict('no', '43') });
    const wrong = await runHleJudgeVerifier({ sandbox, taskDir, client: judge() });
    expect(wrong.reward).toBe(0);
    expect(wrong.judgement?.correct).toBe(false);
    expect(await rewardFile()).toEqual({ reward: 0, confidence: 70 });
  });

  it('HLE: an answer left only in the agent’s output is recovered as the adapter’s test.sh does, and graded', async () => {
    const events = [
      JSON.stringify({ type: 'turn.started' }),
      JSON.stringify({
        type: 'item.completed',
        item: { type: 'agent_message', text: 'Answer: 41\nConfidence: 55%' },
      }),
    ].join('\n');
    await sandbox.putFiles([{ path: '/logs/agent/codex.stdout.txt', content: events }]);
    fake.enqueue({ kind: 'text', text: verdict('yes', '41') });
    const r = await runHleJudgeVerifier({ sandbox, taskDir, client: judge() });
    expect(r.reward).toBe(1);
    expect(fake.requests[0]!.body.messages[0].content).toContain('Answer: 41\nConfidence: 55%');
    expect((await sandbox.getFile('/logs/agent/response.txt'))!.toString()).toBe(
      'Answer: 41\nConfidence: 55%\n',
    );
    expect((await sandbox.getFile('/logs/verifier/judgment.json'))!.toString()).toContain(
      '"response_source": "codex"',
    );
  });

  it('HLE: no response means reward 0 without calling the judge (the configured prompt is still reported)', async () => {
    const r = await runHleJudgeVerifier({ sandbox, taskDir, client: judge() });
    expect(r).toMatchObject({ reward: 0, judgement: null, judge: { calls: 0 } });
    const configured = defaultHleJudgeTemplate();
    expect(r.template).toEqual({ kind: 'default', digest: configured.digest });
    expect(fake.requests).toHaveLength(0);
    expect(await rewardFile()).toEqual({ reward: 0 });
  });

  it('GDPVal-style rubric: partial credit becomes a reward in [0, 1]', async () => {
    await respond('The smallest prime greater than 40 is 41.');
    fake.enqueue({
      kind: 'text',
      text: JSON.stringify({
        scores: [
          { index: 0, awarded: 3, justification: 'named' },
          { index: 1, awarded: 0, justification: 'no reason given' },
        ],
      }),
    });
    const r = await runRubricJudgeVerifier({
      sandbox,
      taskDir,
      client: judge(),
      instruction: 'Find the prime.',
    });
    expect(r.reward).toBe(0.75);
    expect(await rewardFile()).toEqual({ reward: 0.75 });
    expect(r.template).toEqual(rubricJudgeTemplate());
  });

  it('GDPVal-style rubric: delivered files reach the judge — text inline, a PDF attached for a model that reads files', async () => {
    await sandbox.exec('rm -rf /logs/artifacts && mkdir -p /logs/artifacts/out');
    await sandbox.putFiles([
      { path: '/logs/artifacts/out/memo.md', content: '# Memo\n41 is prime.' },
      { path: '/logs/artifacts/out/report.pdf', content: Buffer.from('%PDF-1.4 fake') },
      { path: '/logs/artifacts/out/data.xlsx', content: Buffer.from('PK fake') },
    ]);
    const scores = JSON.stringify({
      scores: [
        { index: 0, awarded: 3, justification: 'named' },
        { index: 1, awarded: 1, justification: 'explained' },
      ],
    });
    fake.enqueue({ kind: 'text', text: scores });
    const reader = createJudgeClient('openai/gpt-4.1', JUDGE_KEY, {
      env: { OSMOSIS_PROVIDER_OPENAI_BASE_URL: fake.openaiBaseUrl },
    });
    const r = await runRubricJudgeVerifier({
      sandbox,
      taskDir,
      client: reader,
      instruction: 'Write a memo.',
    });
    expect(r.reward).toBe(1);
    const content = fake.requests[0]!.body.messages[0].content as any[];
    expect(content[0].text).toContain('--- out/memo.md (19 bytes) ---\n# Memo\n41 is prime.');
    expect(content[0].text).toContain('out/report.pdf (13 bytes): attached');
    expect(content[0].text).toContain('out/data.xlsx (7 bytes): a file you cannot open');
    expect(content[1]).toEqual({
      type: 'file',
      file: {
        filename: 'report.pdf',
        file_data: `data:application/pdf;base64,${Buffer.from('%PDF-1.4 fake').toString('base64')}`,
      },
    });
    await sandbox.exec('rm -rf /logs/artifacts');
  });
});
