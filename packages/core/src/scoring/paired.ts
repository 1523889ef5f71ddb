// Paired comparison of two agents on the same tasks. Each task is scored by both, so the
// difference of their pass@1 is estimated from per-task differences (paired, clustered by task)
// instead of from two independent intervals, which wastes the pairing and overstates the
// uncertainty.
//
//   difference   = mean over tasks of (rate_a − rate_b), rate = passed / scored attempts
//   interval     = percentile interval of the paired bootstrap: tasks resampled with replacement
//                  (each resample keeps a task's two rates together), seeded and reproducible
//   p-value      = the paired randomization (sign-flip) test: under "no difference" the two agents'
//                  rates of a task are exchangeable, so each task's difference is as likely +d as
//                  −d. Exact over all sign patterns when few tasks differ; seeded Monte Carlo
//                  otherwise. With one attempt per task on both sides this exact test is McNemar's
//                  exact test (the binomial test on the discordant tasks), and it is named so.
//
// Why not a bootstrap p-value: the bootstrap distribution is centred on the observed difference,
// not on zero, so a p-value read off it needs re-centring assumptions; the randomization test is
// the exact paired test and needs none.

import type { PairedComparison, PairedPValueMethod } from '@osmosis/contracts';

export interface PairedTaskRates {
  task: string;
  a: { passed: number; scored: number };
  b: { passed: number; scored: number };
}

// The result's shape is the API's (contracts api/runs-compare.ts): one schema, one type.
export type { PairedComparison, PairedPValueMethod };

export interface PairedOptions {
  /** bootstrap (and Monte Carlo sign-flip) resamples; default 10 000 */
  resamples?: number;
  /** default 1: the same data always gives the same interval */
  seed?: number;
  /** exact sign-flip enumeration up to this many differing tasks (2^n patterns); default 16 */
  exactUpTo?: number;
}

/** mulberry32: a small, fast, well-mixed 32-bit PRNG; enough for resampling, and reproducible. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The q-quantile of sorted values with linear interpolation (numpy's default, "type 7"). */
export function quantileSorted(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const h = (sorted.length - 1) * q;
  const lo = Math.floor(h);
  const hi = Math.ceil(h);
  return sorted[lo]! + (h - lo) * (sorted[hi]! - sorted[lo]!);
}

/** log C(n, k), exact enough for the binomial tails used here (n up to millions). */
function logChoose(n: number, k: number): number {
  let s = 0;
  for (let i = 1; i <= k; i++) s += Math.log(n - k + i) - Math.log(i);
  return s;
}

/**
 * McNemar's exact test: two-sided p-value of `b` tasks where only a passed against `c` where only
 * b passed, p = min(1, 2 · P(X ≤ min(b, c))) with X ~ Binomial(b + c, 1/2).
 */
export function mcnemarExact(b: number, c: number): number {
  const n = b + c;
  if (n === 0) return 1;
  const k = Math.min(b, c);
  let tail = 0;
  for (let i = 0; i <= k; i++) tail += Math.exp(logChoose(n, i) - n * Math.LN2);
  return Math.min(1, 2 * tail);
}

const EPS = 1e-12;

/**
 * Two-sided sign-flip test of per-task differences: the share of sign patterns whose mean is at
 * least as far from zero as the observed one. Exact when at most `exactUpTo` differences are
 * non-zero (zeros do not change under a flip), else `resamples` random patterns with the
 * (1 + hits) / (1 + R) estimate, which is never 0.
 */
export function signFlipTest(
  diffs: readonly number[],
  options: { resamples: number; random: () => number; exactUpTo: number },
): { p: number; exact: boolean } {
  const nonZero = diffs.filter((d) => Math.abs(d) > EPS);
  const observed = Math.abs(nonZero.reduce((s, d) => s + d, 0));
  if (nonZero.length === 0) return { p: 1, exact: true };
  if (nonZero.length <= options.exactUpTo) {
    let hits = 0;
    const patterns = 2 ** nonZero.length;
    for (let mask = 0; mask < patterns; mask++) {
      let sum = 0;
      for (let i = 0; i < nonZero.length; i++) sum += mask & (1 << i) ? -nonZero[i]! : nonZero[i]!;
      if (Math.abs(sum) >= observed - EPS) hits++;
    }
    return { p: hits / patterns, exact: true };
  }
  let hits = 0;
  for (let r = 0; r < options.resamples; r++) {
    let sum = 0;
    for (const d of nonZero) sum += options.random() < 0.5 ? -d : d;
    if (Math.abs(sum) >= observed - EPS) hits++;
  }
  return { p: (1 + hits) / (1 + options.resamples), exact: false };
}

/**
 * The bootstrap distribution of the mean per-task difference: `resamples` means of n tasks drawn
 * with replacement (a task's difference keeps its two rates together), sorted.
 */
export function pairedBootstrap(diffs: readonly number[], resamples: number, random: () => number): number[] {
  const n = diffs.length;
  const boot = new Array<number>(resamples);
  for (let r = 0; r < resamples; r++) {
    let sum = 0;
    for (let i = 0; i < n; i++) sum += diffs[Math.floor(random() * n)]!;
    boot[r] = sum / n;
  }
  return boot.sort((x, y) => x - y);
}

/** Compares agent a with agent b on the tasks both have scored attempts of. */
export function comparePaired(
  rates: readonly PairedTaskRates[],
  options: PairedOptions = {},
): PairedComparison {
  const resamples = options.resamples ?? 10_000;
  const seed = options.seed ?? 1;
  const exactUpTo = options.exactUpTo ?? 16;
  const paired = rates.filter((t) => t.a.scored > 0 && t.b.scored > 0);
  const n = paired.length;
  const rateA = paired.map((t) => t.a.passed / t.a.scored);
  const rateB = paired.map((t) => t.b.passed / t.b.scored);
  const diffs = rateA.map((r, i) => r - rateB[i]!);
  const mean = (xs: readonly number[]) => (xs.length ? xs.reduce((s, x) => s + x, 0) / xs.length : 0);
  let wins = 0;
  let losses = 0;
  for (const d of diffs) {
    if (d > EPS) wins++;
    else if (d < -EPS) losses++;
  }
  const base = {
    tasks: n,
    excluded: rates.length - n,
    pass_at_1_a: mean(rateA),
    pass_at_1_b: mean(rateB),
    difference: mean(diffs),
    wins,
    losses,
    ties: n - wins - losses,
    resamples,
    seed,
  };
  if (n === 0) {
    return {
      ...base,
      interval: { low: 0, high: 0, level: 0.95, method: 'paired_bootstrap_percentile' },
      p_value: 1,
      p_value_method: 'sign_flip_exact',
    };
  }

  const random = seededRandom(seed);
  const boot = pairedBootstrap(diffs, resamples, random);

  const single = paired.every((t) => t.a.scored === 1 && t.b.scored === 1);
  let p: number;
  let method: PairedPValueMethod;
  if (single) {
    p = mcnemarExact(wins, losses);
    method = 'mcnemar_exact';
  } else {
    const test = signFlipTest(diffs, { resamples, random, exactUpTo });
    p = test.p;
    method = test.exact ? 'sign_flip_exact' : 'sign_flip_monte_carlo';
  }
  return {
    ...base,
    interval: {
      low: quantileSorted(boot, 0.025),
      high: quantileSorted(boot, 0.975),
      level: 0.95,
      method: 'paired_bootstrap_percentile',
    },
    p_value: p,
    p_value_method: method,
  };
}
