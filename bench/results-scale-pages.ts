// The run page part of bench/results-scale.ts: the server-rendered run page of the big run (signed
// in through the real /login form) beside the same page of a 50-attempt run as the baseline,
// over HTTP (time and HTML bytes of the grid's page 1, page 20, the errored filter's page 3 and
// one attempt page, and the bytes of the page's inline script), then, with --chromium, in
// headless Chromium (the Navigation and Paint Timing APIs' responseEnd, first-contentful-paint,
// domContentLoaded and load, and the transferred bytes).
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Page } from 'playwright-core';
import { LIVE_SCRIPT } from '../apps/api/src/pages/live-script.ts';
import { CHROMIUM, CHROMIUM_ARGS, signIn } from '../test/pages-support.ts';
import { fmtMs, quantile, type Row, row, timeHttp } from './results-scale-stats.ts';

/** Bytes of the inline <script> elements (the run page's live-update script; none once the run is over). */
function scriptBytes(htmlText: string): number {
  return [...htmlText.matchAll(/<script>([\s\S]*?)<\/script>/g)].reduce(
    (sum, m) => sum + Buffer.byteLength(m[1] ?? ''),
    0,
  );
}

interface PageTiming {
  responseEnd: number;
  fcp: number | null;
  domContentLoaded: number;
  load: number;
  transferred: number;
}

interface NavigationEntry {
  responseEnd: number;
  domContentLoadedEventEnd: number;
  loadEventEnd: number;
  transferSize: number;
}
interface BrowserPerformance {
  getEntriesByType(type: string): unknown[];
  getEntriesByName(name: string): { startTime: number }[];
}

/**
 * The Navigation and Paint Timing entries of the page's document. loadEventEnd and the paint entry
 * can land after goto() resolves, so it waits for both (up to 2 s) inside one evaluate: Playwright
 * runs that function through the DevTools protocol, outside the CSP, whereas waitForFunction's
 * polling would eval a predicate in the page, which the pages' CSP forbids.
 */
function navigationTiming(page: Page): Promise<PageTiming> {
  return page.evaluate(async () => {
    // the browser's performance object (the bench's types are Node's, which lack these entries)
    const perf = performance as unknown as BrowserPerformance;
    const nav = () => perf.getEntriesByType('navigation')[0] as NavigationEntry | undefined;
    const fcp = () => perf.getEntriesByName('first-contentful-paint')[0];
    for (let i = 0; i < 200 && !((nav()?.loadEventEnd ?? 0) > 0 && fcp()); i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const n = nav();
    if (!n) throw new Error('no navigation timing entry');
    return {
      responseEnd: n.responseEnd,
      fcp: fcp()?.startTime ?? null,
      domContentLoaded: n.domContentLoadedEventEnd,
      load: n.loadEventEnd,
      transferred: n.transferSize,
    };
  });
}

/** Navigates to each path reps + 2 times (two warm-ups) with the session cookie; medians per path. */
async function timeInChromium(
  base: string,
  session: string,
  paths: string[],
  reps: number,
): Promise<Map<string, PageTiming>> {
  const profile = await mkdtemp(path.join(os.tmpdir(), 'osmosis-bench-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_ARGS,
    viewport: { width: 1280, height: 900 },
  });
  try {
    await context.addCookies([{ name: 'osm_session', value: session, url: base }]);
    const page = context.pages()[0] ?? (await context.newPage());
    const out = new Map<string, PageTiming>();
    for (const p of paths) {
      const runs: PageTiming[] = [];
      for (let i = 0; i < reps + 2; i++) {
        const res = await page.goto(base + p, { waitUntil: 'load' });
        // a lost session would measure the /login redirect instead of the run page
        if (res?.status() !== 200 || new URL(page.url()).pathname === '/login')
          throw new Error(`${p}: HTTP ${res?.status()} at ${page.url()}`);
        const timing = await navigationTiming(page);
        if (i >= 2) runs.push(timing);
      }
      const med = (pick: (t: PageTiming) => number | null) => {
        const xs = runs.map(pick).filter((x): x is number => x !== null);
        return xs.length ? quantile(xs, 0.5) : null;
      };
      out.set(p, {
        responseEnd: med((t) => t.responseEnd) ?? 0,
        fcp: med((t) => t.fcp),
        domContentLoaded: med((t) => t.domContentLoaded) ?? 0,
        load: med((t) => t.load) ?? 0,
        transferred: med((t) => t.transferred) ?? 0,
      });
    }
    return out;
  } finally {
    await context.close();
    await rm(profile, { recursive: true, force: true });
  }
}

export interface PageIds {
  scaleAttempt: string;
  baselineRun: string;
  baselineAttempt: string;
}

/** x over the baseline: "3.2× (+41.0 ms)" */
function over(x: number, baseline: number, unit: 'ms' | 'KB'): string {
  const scale = unit === 'KB' ? 1024 : 1;
  const plus = ((x - baseline) / scale).toFixed(1);
  return `${(x / baseline).toFixed(1)}× (+${plus} ${unit})`;
}

/**
 * The run page of scale-run against the 50-attempt baseline: HTML over HTTP, then in Chromium
 * when `chromiumToo`. Returns the HTTP rows (the first is the grid's page 1 of the big run).
 */
export async function measurePages(
  base: string,
  token: string,
  ids: PageIds,
  options: { reps: number; chromiumToo: boolean; attempts: string },
): Promise<Row[]> {
  const REPS = options.reps;
  const who = await signIn(base, token);
  const headers = { cookie: who.cookie };
  const scale = '/runs/scale-run';
  const small = `/runs/${ids.baselineRun}`;
  const cases: [string, string][] = [
    ['run page, grid page 1 (/runs/scale-run)', scale],
    ['run page, grid page 20 (?page=20)', `${scale}?page=20`],
    ['run page, errored, page 3 (?show=errored&page=3)', `${scale}?show=errored&page=3`],
    ['attempt page (/runs/scale-run/attempts/:id)', `${scale}/attempts/${ids.scaleAttempt}`],
    [`baseline: run page of ${ids.baselineRun} (50 attempts)`, small],
    ['baseline: attempt page of that run', `${small}/attempts/${ids.baselineAttempt}`],
  ];
  const rows: (Row & { script: number })[] = [];
  for (const [label, p] of cases) {
    const { times, first, body } = await timeHttp(base + p, headers, REPS);
    rows.push({ ...row(label, first, times, Buffer.byteLength(body)), script: scriptBytes(body) });
  }
  console.log(
    `\nRun page (server-rendered HTML, signed in): the first (cold) request, then ${REPS} after 2 warm-ups.`,
  );
  // the runs here are finished, so their pages carry no script; say what a live run adds
  console.log(
    `script: bytes of inline <script> (the live-update script, ${Buffer.byteLength(LIVE_SCRIPT)} B, is only on a run that is not over).`,
  );
  console.log(
    `  ${'page'.padEnd(58)} ${'first'.padStart(8)} ${'median'.padStart(8)} ${'p95'.padStart(8)} ${'max'.padStart(8)} ${'bytes'.padStart(10)} ${'script'.padStart(7)}`,
  );
  for (const r of rows) {
    console.log(
      `  ${r.name.padEnd(58)} ${fmtMs(r.first)} ${fmtMs(r.median)} ${fmtMs(r.p95)} ${fmtMs(r.max)} ${String(r.bytes).padStart(10)} ${String(r.script).padStart(7)}`,
    );
  }
  const [page1, , , , baseline] = rows;
  if (page1 && baseline) {
    console.log(
      `  ${options.attempts} attempts over 50, grid page 1: median time ${over(page1.median, baseline.median, 'ms')}, HTML ${over(page1.bytes, baseline.bytes, 'KB')}`,
    );
  }

  if (!options.chromiumToo) return rows;
  if (!existsSync(CHROMIUM)) {
    console.log(`\nChromium: skipped (${CHROMIUM} is absent; apt-get install -y chromium)`);
    return rows;
  }
  const session = who.cookie.slice(who.cookie.indexOf('=') + 1);
  const timings = await timeInChromium(base, session, [scale, small], REPS);
  console.log(
    `\nRun page in Chromium (headless): medians of ${REPS} navigations after 2 warm-ups, ms from the navigation's start.`,
  );
  console.log(
    `  ${'page'.padEnd(58)} ${'response'.padStart(8)} ${'FCP'.padStart(8)} ${'DCL'.padStart(8)} ${'load'.padStart(8)} ${'transferred'.padStart(11)}`,
  );
  for (const [label, p] of [
    ['run page, grid page 1 (/runs/scale-run)', scale],
    [`baseline: run page of ${ids.baselineRun} (50 attempts)`, small],
  ] as const) {
    const t = timings.get(p);
    if (!t) continue;
    const fcp = t.fcp === null ? '       —' : fmtMs(t.fcp);
    console.log(
      `  ${label.padEnd(58)} ${fmtMs(t.responseEnd)} ${fcp} ${fmtMs(t.domContentLoaded)} ${fmtMs(t.load)} ${String(t.transferred).padStart(11)}`,
    );
  }
  const big = timings.get(scale);
  const little = timings.get(small);
  if (big && little) {
    const fcp = big.fcp !== null && little.fcp !== null ? `FCP ${over(big.fcp, little.fcp, 'ms')}, ` : '';
    console.log(
      `  ${options.attempts} attempts over 50: ${fcp}load ${over(big.load, little.load, 'ms')}, transferred ${over(big.transferred, little.transferred, 'KB')}`,
    );
  }
  return rows;
}
