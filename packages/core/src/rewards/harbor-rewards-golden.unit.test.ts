// The reward reader against Harbor's own readers run on the golden inputs
// (packages/harness/test-data/harbor-golden, rewards.*.golden.json): every 0.9.0 case gives
// Harbor 0.9's result; 0.6.4 differs only where both files exist, as it reads reward.txt first.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { type HarborRewards, readHarborRewards } from './harbor-rewards.ts';

type GoldenValue = ['int' | 'float', string];
interface GoldenCase {
  input: { reward_txt: string | null; reward_json: string | null };
  harbor:
    | { file: 'text' | 'json'; rewards: Record<string, GoldenValue> | null }
    | { file: 'text' | 'json' | null; error: string };
}

const golden = (version: string): GoldenCase[] =>
  JSON.parse(
    readFileSync(
      new URL(`../../../harness/test-data/harbor-golden/rewards.${version}.golden.json`, import.meta.url),
      'utf8',
    ),
  ).cases;

/** Python's repr of a float or int as a number. */
const numberOf = ([, repr]: GoldenValue) =>
  repr === 'nan' ? Number.NaN : repr === 'inf' ? Infinity : repr === '-inf' ? -Infinity : Number(repr);

/** Ours, in the golden file's shape. */
function asGolden(r: HarborRewards) {
  const file = r.file === null ? null : r.file === 'reward.txt' ? 'text' : 'json';
  if (!r.ok) return { file, error: r.error };
  return {
    file,
    rewards: r.rewards === null ? null : r.rewards.map(([key, v]) => [key, v.type, v.value] as const),
  };
}

function expected(c: GoldenCase) {
  const h = c.harbor;
  if ('error' in h) return { file: h.file, error: h.error };
  return {
    file: h.file,
    rewards:
      h.rewards === null
        ? null
        : Object.entries(h.rewards).map(([key, v]) => [key, v[0], numberOf(v)] as const),
  };
}

const read = (input: GoldenCase['input']) =>
  readHarborRewards({
    json: input.reward_json === null ? null : Buffer.from(input.reward_json, 'utf8'),
    txt: input.reward_txt === null ? null : Buffer.from(input.reward_txt, 'utf8'),
  });

describe("reward files as Harbor's readers read them (golden)", () => {
  it('Harbor 0.9.0: every case, file, values, Python types and error class', () => {
    const cases = golden('0.9.0');
    expect(cases.length).toBeGreaterThan(50);
    for (const c of cases) expect(asGolden(read(c.input)), JSON.stringify(c.input)).toEqual(expected(c));
  });

  it('Harbor 0.6.4: the same wherever one file exists; with both it read reward.txt, we read reward.json', () => {
    const cases = golden('0.6.4');
    const both = cases.filter((c) => c.input.reward_txt !== null && c.input.reward_json !== null);
    expect(both.length).toBeGreaterThan(0);
    for (const c of cases) {
      const ours = asGolden(read(c.input));
      if (!both.includes(c)) {
        expect(ours, JSON.stringify(c.input)).toEqual(expected(c));
        continue;
      }
      expect(c.harbor.file).toBe('text');
      expect(ours.file).toBe('json');
      // the difference is the order alone: reward.txt on its own reads as 0.6.4 read it
      expect(asGolden(read({ ...c.input, reward_json: null }))).toEqual(expected(c));
    }
  });
});
