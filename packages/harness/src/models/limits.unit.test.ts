// Context limits: our table, then LiteLLM's by model name, then the operator's setting; never a
// silent 1,000,000.
import { describe, expect, it } from 'vitest';
import { loadModelLimits, lookupModelLimits } from './limits.ts';

const table = loadModelLimits({});

describe('model limits', () => {
  it("finds listed models, and others in LiteLLM's table by the name without the provider", () => {
    expect(lookupModelLimits(table, 'openai/gpt-5.2', {})).toMatchObject({
      source: 'table',
      limits: { max_input_tokens: 272000 },
    });
    const gemini = lookupModelLimits(table, 'gemini/gemini-2.5-pro', {});
    expect(gemini).toMatchObject({ source: 'table', limits: { max_input_tokens: 1048576 } });
    expect(lookupModelLimits(table, 'deepseek/deepseek-chat', {}).source).toBe('table');
  });

  it('an unknown model has no context size unless the operator sets one; a bad setting says how to fix it', () => {
    const unknown = lookupModelLimits(table, 'together/some-new-model', {});
    expect(unknown).toEqual({ source: 'unknown', limits: undefined });
    const set = lookupModelLimits(table, 'together/some-new-model', {
      OSMOSIS_UNKNOWN_MODEL_CONTEXT_TOKENS: '128000',
    });
    expect(set).toEqual({ source: 'setting', limits: { max_input_tokens: 128000 } });
    expect(() =>
      lookupModelLimits(table, 'together/some-new-model', { OSMOSIS_UNKNOWN_MODEL_CONTEXT_TOKENS: '128k' }),
    ).toThrow(/OSMOSIS_UNKNOWN_MODEL_CONTEXT_TOKENS=128k: .*positive integer/);
  });
});
