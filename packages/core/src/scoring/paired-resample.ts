// The paired bootstrap and the Monte Carlo sign-flip test over COUNTS of distinct per-task
// differences. A resample of n tasks with replacement only matters through how many times each
// distinct difference was drawn, which is Multinomial(n; m_1/n, …, m_K/n) for m_k tasks with
// difference d_k, drawn here as K conditional binomials. A sign pattern only matters through how
// many of the m_k tasks with difference d_k were flipped, which is Binomial(m_k, 1/2). Both are
// the same distributions as drawing every task, at a cost of K binomial variates per resample
// instead of n uniforms: per-task pass rates take few values (with 3 attempts per side, a
// difference is one of 7), so 10,000 resamples of 10,000 tasks are ~10^5 draws, not 10^8.
import { binomialSampler } from './binomial.ts';

/** Distinct values (per-task differences, or rates) in ascending order and the number of tasks that have each. */
export interface ValueCounts {
  values: Float64Array;
  counts: Float64Array;
  /** Σ counts: the number of tasks */
  total: number;
}

/** Groups values (each with a number of tasks) by value, ascending: the same data always gives the same groups. */
export function countValues(entries: Iterable<readonly [difference: number, tasks: number]>): ValueCounts {
  const byValue = new Map<number, number>();
  for (const [d, tasks] of entries) {
    if (tasks > 0) byValue.set(d, (byValue.get(d) ?? 0) + tasks);
  }
  const values = Float64Array.from(byValue.keys()).sort();
  const counts = values.map((v) => byValue.get(v)!);
  let total = 0;
  for (const c of counts) total += c;
  return { values, counts, total };
}

/** The bootstrap distribution of the mean difference: `resamples` means of n tasks drawn with replacement, sorted. */
export function bootstrapMeans(groups: ValueCounts, resamples: number, random: () => number): Float64Array {
  const { values, counts, total: n } = groups;
  const K = values.length;
  const out = new Float64Array(resamples);
  if (K === 0) return out.fill(Number.NaN);
  // the k-th draw is Binomial(left, m_k / (m_k + … + m_K)): its p is fixed, and `left` takes a
  // few hundred values over all resamples, so each sampler (BTRS's constants) is made once
  const samplers = Array.from({ length: K }, () => new Map<number, (random: () => number) => number>());
  const shares = Array.from(counts, (m, k) => m / counts.subarray(k).reduce((s, x) => s + x, 0));
  for (let r = 0; r < resamples; r++) {
    let left = n;
    let sum = 0;
    for (let k = 0; k < K - 1 && left > 0; k++) {
      let draw = samplers[k]!.get(left);
      if (!draw) {
        draw = binomialSampler(left, shares[k]!);
        samplers[k]!.set(left, draw);
      }
      const drawn = draw(random);
      sum += drawn * values[k]!;
      left -= drawn;
    }
    if (left > 0) sum += left * values[K - 1]!;
    out[r] = sum / n;
  }
  return out.sort();
}

/** Σ d_k · s_k with the terms in one fixed order, so the observed pattern is reproduced to the bit. */
function signedSum(values: Float64Array, signed: (k: number) => number): number {
  let sum = 0;
  for (let k = 0; k < values.length; k++) sum += values[k]! * signed(k);
  return sum;
}

/**
 * Two-sided sign-flip test by Monte Carlo on non-zero differences: the (1 + hits) / (1 + R)
 * estimate of the share of sign patterns whose sum is at least as far from zero as the observed.
 */
export function signFlipMonteCarlo(nonZero: ValueCounts, resamples: number, random: () => number): number {
  const { values, counts } = nonZero;
  const observed = Math.abs(signedSum(values, (k) => counts[k]!));
  const tolerance = flipTolerance(nonZero);
  const flips = Array.from(counts, (m) => binomialSampler(m, 0.5));
  let hits = 0;
  for (let r = 0; r < resamples; r++) {
    // X_k of the m_k tasks keep their sign, the rest flip: Σ d_k (X_k − (m_k − X_k))
    const sum = signedSum(values, (k) => 2 * flips[k]!(random) - counts[k]!);
    if (Math.abs(sum) >= observed - tolerance) hits++;
  }
  return (1 + hits) / (1 + resamples);
}

/**
 * How far below the observed |sum| a pattern's |sum| may fall and still count as "as extreme":
 * rounding only (relative to Σ |d| over the tasks), far below the gap between two different sums
 * of rates with small denominators.
 */
export function flipTolerance(nonZero: ValueCounts): number {
  let scale = 0;
  for (let k = 0; k < nonZero.values.length; k++) scale += Math.abs(nonZero.values[k]!) * nonZero.counts[k]!;
  return 1e-12 * Math.max(1, scale);
}
