// An exact Binomial(n, p) sampler driven by a seeded uniform source, so the paired bootstrap and
// sign-flip test can resample the COUNTS of each distinct per-task difference instead of drawing
// every task (scoring/paired-resample.ts): the same distribution at a cost that does not grow with
// the number of tasks.
//
//   n·min(p, 1 − p) < 10: inversion (walk the pmf from 0; about n·p steps)
//   otherwise:            BTRS, the transformed rejection with squeeze of W. Hörmann, "The
//                         generation of binomial random variates", J. Statist. Comput. Simul. 46
//                         (1993): a handful of uniforms per variate whatever n is.

const HALF_LOG_2PI = 0.5 * Math.log(2 * Math.PI);
const SMALL = 16;
/** log(k!) for k < SMALL, summed exactly enough from the logs */
const LOG_FACTORIAL_TABLE: readonly number[] = (() => {
  const out = [0];
  for (let k = 1; k < SMALL; k++) out.push(out[k - 1]! + Math.log(k));
  return out;
})();

/** log(k!): a table below 16, Stirling's series beyond (error under 1e-11 there). */
export function logFactorial(k: number): number {
  if (k < SMALL) return LOG_FACTORIAL_TABLE[k]!;
  const k2 = k * k;
  return (k + 0.5) * Math.log(k) - k + HALF_LOG_2PI + (1 / 12 - (1 / 360 - 1 / (1260 * k2)) / k2) / k;
}

/** Inversion for a small mean: P(0) = q^n, P(x) = P(x − 1) · (n − x + 1)/x · p/q. */
function inversion(n: number, p: number, random: () => number): number {
  const q = 1 - p;
  const s = p / q;
  const a = (n + 1) * s;
  let r = q ** n;
  let u = random();
  let x = 0;
  // `x < n` ends the walk should rounding leave a sliver of u past the last term
  while (u > r && x < n) {
    u -= r;
    x++;
    r *= a / x - s;
  }
  return x;
}

interface BtrsConstants {
  n: number;
  a: number;
  b: number;
  c: number;
  alpha: number;
  vr: number;
  lpq: number;
  m: number;
  h: number;
}

/** BTRS's constants for n·p ≥ 10 and p ≤ 1/2 (Hörmann 1993, algorithm BTRS). */
function btrsConstants(n: number, p: number): BtrsConstants {
  const q = 1 - p;
  const spq = Math.sqrt(n * p * q);
  const b = 1.15 + 2.53 * spq;
  const m = Math.floor((n + 1) * p);
  return {
    n,
    a: -0.0873 + 0.0248 * b + 0.01 * p,
    b,
    c: n * p + 0.5,
    alpha: (2.83 + 5.1 / b) * spq,
    vr: 0.92 - 4.2 / b,
    lpq: Math.log(p / q),
    m,
    h: logFactorial(m) + logFactorial(n - m),
  };
}

function btrs(k: BtrsConstants, random: () => number): number {
  const { n, a, b, c, alpha, vr, lpq, m, h } = k;
  for (;;) {
    const u = random() - 0.5;
    const v = random();
    const us = 0.5 - Math.abs(u);
    const x = Math.floor(((2 * a) / us + b) * u + c);
    // also refuses NaN and ±Infinity (us = 0)
    if (!(x >= 0 && x <= n)) continue;
    if (us >= 0.07 && v <= vr) return x;
    const logV = Math.log((v * alpha) / (a / (us * us) + b));
    if (logV <= h - logFactorial(x) - logFactorial(n - x) + (x - m) * lpq) return x;
  }
}

/** One Binomial(n, p) variate; n a non-negative integer, 0 ≤ p ≤ 1. */
export function sampleBinomial(n: number, p: number, random: () => number): number {
  if (n <= 0 || p <= 0) return 0;
  if (p >= 1) return n;
  if (p > 0.5) return n - sampleBinomial(n, 1 - p, random);
  return n * p < 10 ? inversion(n, p, random) : btrs(btrsConstants(n, p), random);
}

/** sampleBinomial for one n and p drawn many times: BTRS's constants worked out once. */
export function binomialSampler(n: number, p: number): (random: () => number) => number {
  if (n <= 0 || p <= 0 || p >= 1 || n * Math.min(p, 1 - p) < 10) {
    return (random) => sampleBinomial(n, p, random);
  }
  const k = btrsConstants(n, Math.min(p, 1 - p));
  return p > 0.5 ? (random) => n - btrs(k, random) : (random) => btrs(k, random);
}
