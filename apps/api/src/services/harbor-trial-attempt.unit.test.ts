// A Harbor trial's result.json as an attempt, and the JSON depth count on the text: what each
// reward shape gives, and nesting counted outside strings only.
import type { HarborTrialResult } from '@osmosis/contracts';
import { describe, expect, it } from 'vitest';
import { textJsonDepth } from './harbor-json.ts';
import { trialAgent, trialAttempt } from './harbor-trial-attempt.ts';

const base: HarborTrialResult = {
  task_name: 'hello',
  trial_name: 'hello__abc',
  trial_uri: 'file:///jobs/demo/hello__abc',
  task_id: { path: 'hello' },
  task_checksum: 'x',
  config: {},
  agent_info: { name: 'claude-code', version: '1.0', model_info: { name: 'sonnet', provider: 'anthropic' } },
  started_at: '2026-11-02T10:00:00+00:00',
  finished_at: '2026-11-02T10:01:00+00:00',
  agent_execution: { started_at: '2026-11-02T10:00:05+00:00', finished_at: '2026-11-02T10:00:47.5+00:00' },
};

describe('trialAttempt', () => {
  it('passes at the threshold with the reward key, fails below it', () => {
    const pass = trialAttempt({ ...base, verifier_result: { rewards: { reward: 0.5, style: 0.1 } } }, 0.5);
    expect(pass).toMatchObject({ outcome: 'passed', reward: 0.5, rewards: { reward: 0.5, style: 0.1 } });
    expect(pass.agentMs).toBe(42_500);
    expect(trialAttempt({ ...base, verifier_result: { rewards: { reward: 0.49 } } }, 0.5).outcome).toBe(
      'failed',
    );
  });

  it('takes the only value of a one-key map', () => {
    expect(trialAttempt({ ...base, verifier_result: { rewards: { score: 1 } } }, 1)).toMatchObject({
      outcome: 'passed',
      reward: 1,
    });
  });

  it('errors without a usable reward, saying why', () => {
    const several = trialAttempt({ ...base, verifier_result: { rewards: { a: 1, b: 0 } } }, 1);
    expect(several).toMatchObject({
      outcome: 'errored',
      reward: null,
      errorClass: 'verifier_missing_reward',
    });
    expect(several.errorMessage).toContain('several values (a, b)');
    const nan = trialAttempt({ ...base, verifier_result: { rewards: { reward: null } } }, 1);
    expect(nan.errorMessage).toContain('NaN and inf');
    expect(nan.rewards).toEqual({});
    const raised = trialAttempt(
      {
        ...base,
        verifier_result: null,
        exception_info: {
          exception_type: 'RewardFileNotFoundError',
          exception_message: 'No reward file',
          exception_traceback: '',
          occurred_at: '2026-11-02T10:00:50+00:00',
        },
      },
      1,
    );
    expect(raised).toMatchObject({
      outcome: 'errored',
      errorClass: 'RewardFileNotFoundError',
      agentTimedOut: false,
    });
  });

  it('names the agent provider/model, or none without a model', () => {
    expect(trialAgent(base)).toEqual({ harness: 'claude-code', model: 'anthropic/sonnet' });
    expect(trialAgent({ ...base, agent_info: { name: 'oracle', version: '0', model_info: null } })).toEqual({
      harness: 'oracle',
      model: 'none',
    });
  });
});

describe('textJsonDepth', () => {
  it('counts brackets outside strings only, and stops past the limit', () => {
    expect(textJsonDepth('{"a": [1, {"b": []}]}', 32)).toBe(4);
    expect(textJsonDepth('{"a": "[[[[\\"[[[["}', 32)).toBe(1);
    expect(textJsonDepth('['.repeat(1_000_000), 32)).toBe(33);
  });
});
