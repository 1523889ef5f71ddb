import type { CostEstimate } from '@osmosis/contracts';
import { describe, expect, it } from 'vitest';
import { estimateWithoutReused } from './submit-reuse-preview.ts';

const estimate: CostEstimate = {
  usd: 8,
  agents: [
    {
      index: 0,
      model: 'a',
      attempts: 4,
      basis_attempts: 10,
      mean_cost_per_attempt_usd: 1.5,
      usd: 6,
      note: null,
    },
    {
      index: 1,
      model: 'b',
      attempts: 4,
      basis_attempts: 10,
      mean_cost_per_attempt_usd: 0.5,
      usd: 2,
      note: null,
    },
  ],
  note: null,
};

describe('the cost estimate of a run that takes attempts over', () => {
  it('leaves the taken-over attempts out of each agent and of the total', () => {
    const out = estimateWithoutReused(estimate, new Map([[0, 3]]));
    expect(out.agents.map((a) => [a.attempts, a.usd])).toEqual([
      [1, 1.5],
      [4, 2],
    ]);
    expect(out.usd).toBe(3.5);
  });

  it('stays unknown when an agent has no estimate', () => {
    const unknown = {
      ...estimate,
      agents: [
        { ...estimate.agents[0]!, mean_cost_per_attempt_usd: null, usd: null, note: 'no earlier run' },
      ],
    };
    expect(estimateWithoutReused(unknown, new Map([[0, 1]])).usd).toBeNull();
  });
});
