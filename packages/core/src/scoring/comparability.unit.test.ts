import { type HarnessInfo, TERMINUS2_HARNESS_VERSION, TERMINUS2_REFERENCE } from '@osmosis/contracts';
import { describe, expect, it } from 'vitest';
import { meanTaskScore, terminus2Comparability } from './comparability.ts';

const reference: HarnessInfo = {
  harness: 'terminus-2',
  version: TERMINUS2_HARNESS_VERSION,
  reference: { project: 'harbor', version: '0.6.4', commit: TERMINUS2_REFERENCE.commit },
  templates: { kind: 'reference', files: { ...TERMINUS2_REFERENCE.files }, digest: 'x' },
  model_params: {
    temperature: 0.7,
    temperature_sent: true,
    reasoning_effort: null,
    thinking_budget_tokens: null,
    max_tokens: null,
    prompt_caching: false,
  },
  max_turns: 1_000_000,
  summarize_threshold_tokens: 8000,
};
const tb = (harness: string, infos: Array<{ info: HarnessInfo | null; attempts: number }>) =>
  terminus2Comparability({ benchmarkDefaultHarness: 'terminus-2', judgeKind: null, harness, infos });

describe('terminus2Comparability', () => {
  it('comparable with the reference templates, version and sampling', () => {
    expect(tb('terminus-2', [{ info: reference, attempts: 3 }])).toEqual({
      comparable: true,
      with: 'published terminus-2 scores (Harbor 0.6.4)',
      reasons: [],
    });
  });

  it('says why not: default templates, another temperature, another harness, missing records', () => {
    const ours = { ...reference, templates: { kind: 'default' as const, files: {}, digest: 'y' } };
    const hot = { ...reference, model_params: { ...reference.model_params!, temperature: 1 } };
    const r = tb('terminus-2', [
      { info: ours, attempts: 2 },
      { info: hot, attempts: 1 },
      { info: null, attempts: 1 },
    ])!;
    expect(r.comparable).toBe(false);
    expect(r.reasons).toEqual([
      '1 attempt without a recorded harness version',
      "templates: the platform's own wording, not the reference's (the operator sets OSMOSIS_TERMINUS2_TEMPLATES to Harbor's files)",
      'temperature 1 (published scores: 0.7)',
    ]);
    expect(tb('claude-code', [])!.reasons).toEqual(['harness claude-code (published scores: terminus-2)']);
    const tampered = {
      ...reference,
      templates: { ...reference.templates!, files: { 'terminus_2.py': 'other' } },
    };
    expect(tb('terminus-2', [{ info: tampered, attempts: 1 }])!.reasons[0]).toMatch(/digests differ/);
  });

  it('a harbor-0.9 run and a Gemini run are not comparable with the published (harbor-0.6.4) scores', () => {
    const v09: HarnessInfo = {
      ...reference,
      reference: { project: 'harbor', version: '0.9.0', commit: '1b1dbc43729edff705071a797bb0f98a90cf62f5' },
      model_params: { ...reference.model_params!, temperature: null, temperature_sent: false },
    };
    expect(tb('terminus-2', [{ info: v09, attempts: 1 }])!.reasons).toEqual([
      'behaviour profile harbor-0.9 (published scores: harbor-0.6.4; [agents.params] reference)',
      'temperature not sent (published scores: 0.7)',
    ]);
    const gemini = {
      ...reference,
      differences: ['not comparable with Harbor: Gemini through the OpenAI-compatible endpoint'],
    };
    const r = tb('terminus-2', [{ info: gemini, attempts: 2 }])!;
    expect(r.comparable).toBe(false);
    expect(r.reasons).toEqual(['not comparable with Harbor: Gemini through the OpenAI-compatible endpoint']);
  });

  it('does not apply where no terminus-2 scores are published', () => {
    const args = { harness: 'terminus-2', infos: [{ info: reference, attempts: 1 }] };
    expect(
      terminus2Comparability({ ...args, benchmarkDefaultHarness: 'claude-code', judgeKind: null }),
    ).toBeNull();
    expect(
      terminus2Comparability({ ...args, benchmarkDefaultHarness: 'terminus-2', judgeKind: 'hle' }),
    ).toBeNull();
  });
});

describe('meanTaskScore', () => {
  it('averages each task’s mean reward', () => {
    expect(
      meanTaskScore([
        { sum: 1.5, attempts: 2 },
        { sum: 0.25, attempts: 1 },
      ]),
    ).toBe(0.5);
    expect(meanTaskScore([])).toBeNull();
  });
});
