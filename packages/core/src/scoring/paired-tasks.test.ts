import { describe, expect, it } from 'vitest';
import { pairTaskRows } from './paired-tasks.ts';

describe('pairTaskRows', () => {
  it('pairs by task name, fills a missing side with zero scored, and sorts by name', () => {
    const { rates, digestMismatches } = pairTaskRows(
      [
        { task: 'b', digest: 'd2', passed: 1, scored: 2 },
        { task: 'a', digest: 'd1', passed: 0, scored: 1 },
      ],
      [
        { task: 'a', digest: 'd1', passed: 1, scored: 1 },
        { task: 'c', digest: 'd3', passed: 3, scored: 3 },
      ],
    );
    expect(digestMismatches).toEqual([]);
    expect(rates).toEqual([
      { task: 'a', a: { passed: 0, scored: 1 }, b: { passed: 1, scored: 1 } },
      { task: 'b', a: { passed: 1, scored: 2 }, b: { passed: 0, scored: 0 } },
      { task: 'c', a: { passed: 0, scored: 0 }, b: { passed: 3, scored: 3 } },
    ]);
  });

  it('names the tasks both sides ran with different digests', () => {
    const { digestMismatches } = pairTaskRows(
      [
        { task: 'x', digest: 'sha256:old', passed: 1, scored: 1 },
        { task: 'y', digest: 'same', passed: 1, scored: 1 },
      ],
      [
        { task: 'x', digest: 'sha256:new', passed: 1, scored: 1 },
        { task: 'y', digest: 'same', passed: 0, scored: 1 },
      ],
    );
    expect(digestMismatches).toEqual([{ task: 'x', a: 'sha256:old', b: 'sha256:new' }]);
  });
});
