// A verifier names its rewards, and its reward file's faults end up in the attempt's error
// message: a NUL there (JSON's \u0000) was handed to Postgres as it was, which refuses NUL in
// text and jsonb, so the finished attempt's result could not be written. What an attempt's
// result holds from a sandbox is storable: a NUL is written as U+2400 (␀).
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseTaskConfig } from '@osmosis/tasks';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type AttemptInput, executeAttempt } from './pipeline.ts';

vi.setConfig({ testTimeout: 240_000 });

const FIXTURE = path.join(import.meta.dirname, 'fixtures', 'nul-reward');
const deps = { scope: `test-${randomUUID()}` };
let root: string;

async function attempt(harness: string) {
  const { config } = parseTaskConfig(await readFile(path.join(FIXTURE, 'task.toml'), 'utf8'));
  const attemptId = randomUUID();
  const input: AttemptInput = {
    attemptId,
    runId: randomUUID(),
    workerId: 'storable-result-test',
    task: { name: 'fixtures/nul-reward', dir: FIXTURE, config },
    harness,
    agentEnv: {},
    secrets: [],
    timeoutMultiplier: 1,
    passThreshold: 1,
    artifactsDir: path.join(root, attemptId),
  };
  return executeAttempt(input, deps);
}

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'osmosis-storable-'));
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('a result Postgres can store', () => {
  it('writes a reward name holding a NUL with U+2400, keeping its score', async () => {
    const result = await attempt('nop');
    expect(result.errorMessage).toBeNull();
    expect(result.outcome).toBe('passed');
    expect(result.rewards).toEqual({ reward: 1, 'a\u2400b': 0.5 });
  });

  it('writes an error message naming such a reward without the NUL', async () => {
    const result = await attempt('oracle');
    expect(result.outcome).toBe('errored');
    expect(result.errorMessage).toContain('reward.json: "x\u2400y" is not a number');
    expect(result.errorMessage).not.toContain('\u0000');
  });
});
