// Hostile query strings and path parts against every server-rendered page that calls the API's
// services directly (not through /v1): each answer is a page with a 4xx status or the page itself,
// never a 5xx, and nothing a member typed is echoed unescaped. Another workspace's run stays a 404.

import { type SeededMember, startTestApi, type TestApi } from '@osmosis/api/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Browserish, get, postForm, signIn } from './pages-support.ts';
import { seedBenchmark, seedRun } from './results-seed.ts';

let api: TestApi;
let owner: SeededMember;
let viewer: SeededMember;
let who: Browserish;
let viewerWho: Browserish;

const MARK = '<script>alert(1)</script>';
const LONG = 'x'.repeat(20_000);

beforeAll(async () => {
  api = await startTestApi();
  owner = await api.seedWorkspace();
  viewer = await api.addMember(owner.workspaceId, 'viewer');
  const other = await api.seedWorkspace();
  const bench = await seedBenchmark(api.db, owner.workspaceId, 3, 'hostile-bench');
  await seedRun(api.db, {
    workspaceId: owner.workspaceId,
    userId: owner.userId,
    benchmarkId: bench.benchmarkId,
    tasks: 3,
    runName: 'calm-heron',
    attemptsPerTask: 1,
    agents: [
      { harness: 'oracle', model: 'oracle' },
      { harness: 'nop', model: 'none' },
    ],
  });
  await seedRun(api.db, {
    workspaceId: owner.workspaceId,
    userId: owner.userId,
    benchmarkId: bench.benchmarkId,
    tasks: 3,
    runName: 'queued-wren',
    status: 'queued',
    attemptsPerTask: 1,
    agents: [{ harness: 'oracle', model: 'oracle' }],
  });
  const theirs = await seedBenchmark(api.db, other.workspaceId, 1, 'their-bench');
  await seedRun(api.db, {
    workspaceId: other.workspaceId,
    userId: other.userId,
    benchmarkId: theirs.benchmarkId,
    tasks: 1,
    runName: 'their-run',
    attemptsPerTask: 1,
    agents: [{ harness: 'oracle', model: 'oracle' }],
  });
  who = await signIn(api.url, owner.token);
  viewerWho = await signIn(api.url, viewer.token);
}, 60_000);

afterAll(async () => {
  await api?.close();
});

const enc = encodeURIComponent;

describe('pages under hostile input', () => {
  it('answers every hostile GET with a 4xx or the page, never a 5xx, never the raw markup', async () => {
    const paths = [
      `/runs?offset=${enc('-1')}`,
      '/runs?offset=1e309',
      '/runs?offset=99999999999999999999999',
      `/runs?benchmark=${enc(MARK)}`,
      '/runs?benchmark[]=a&benchmark[]=b',
      `/runs?benchmark=${LONG}`,
      `/runs/${enc(MARK)}`,
      `/runs/${LONG}`,
      `/runs/calm-heron?page=-5&show=${enc(MARK)}&category=${enc(MARK)}`,
      '/runs/calm-heron?page=1e309',
      '/runs/calm-heron?page[]=1',
      `/runs/calm-heron?cmp_a=${enc(MARK)}&cmp_b=-1`,
      '/runs/calm-heron/attempts/not-a-uuid',
      '/runs/calm-heron/attempts/00000000-0000-0000-0000-000000000000',
      `/runs/calm-heron/attempts/${enc('../../etc/passwd')}`,
      '/runs/calm-heron/stop',
      '/runs/their-run',
      '/runs/their-run/stop',
      `/benchmarks/${enc(MARK)}`,
      `/benchmarks/hostile-bench?q=${enc(MARK)}`,
      `/benchmarks/hostile-bench?q=${LONG}`,
      '/benchmarks/hostile-bench?q[]=a',
      `/benchmarks/hostile-bench?scatter=${enc(MARK)}`,
      '/benchmarks/hostile-bench?scatter[]=time',
      '/benchmarks/their-bench',
      `/quality?benchmark=${enc(MARK)}`,
      '/operators',
    ];
    for (const p of paths) {
      const res = await get(api.url, p, who);
      expect(res.status, p).toBeLessThan(500);
      expect(res.text, p).not.toContain(MARK);
    }
    // another workspace's run and benchmark are not found, not forbidden and not shown
    expect((await get(api.url, '/runs/their-run', who)).status).toBe(404);
    expect((await get(api.url, '/benchmarks/their-bench', who)).status).toBe(404);
  });

  it('refuses a page position that is not one with a 400 naming it, never a silent first page', async () => {
    const refused: Array<[string, string]> = [
      ['/runs?offset=-1', 'invalid offset: "-1" is not an offset'],
      ['/runs?offset=1e3', 'invalid offset: "1e3" is not an offset'],
      ['/runs?offset=2', 'invalid offset: 2 is past the end of the list (2 row(s))'],
      ['/runs/calm-heron?page=0', 'invalid page: "0" is not a page number'],
      ['/runs/calm-heron?page=abc', 'invalid page: "abc" is not a page number'],
      ['/runs/calm-heron?page=2', 'invalid page: page 2 is past the last page, 1'],
      ['/benchmarks/hostile-bench?page=1.5', 'invalid page: "1.5" is not a page number'],
      ['/benchmarks/hostile-bench?page=9', 'invalid page: page 9 is past the last page, 1'],
    ];
    for (const [p, message] of refused) {
      const res = await get(api.url, p, who);
      expect(res.status, p).toBe(400);
      expect(res.text, p).toContain(message.replaceAll('"', '&quot;'));
    }
    for (const p of [
      '/runs?offset=0',
      '/runs?offset=1',
      '/runs/calm-heron?page=1',
      '/benchmarks/hostile-bench?page=1',
    ]) {
      expect((await get(api.url, p, who)).status, p).toBe(200);
    }
  });

  it("answers the download links as the /v1 download route does: 409 before outputs, 404 for a hostile or another workspace's file", async () => {
    const summary = await get(api.url, '/runs/calm-heron/files/summary.csv', who);
    expect(summary.status).toBe(200);
    expect(summary.headers.get('content-disposition')).toBe('attachment; filename="summary.csv"');
    expect(summary.headers.get('content-type')).toBe('application/octet-stream');
    const v1 = await fetch(`${api.url}/v1/runs/calm-heron/downloads/file?path=summary.csv`, {
      headers: { authorization: `Bearer ${owner.token}` },
    });
    expect(v1.status).toBe(200);
    expect(summary.text).toBe(await v1.text());
    expect(summary.text).toMatch(/^rank,/);
    const queued = await get(api.url, '/runs/queued-wren/files/results.csv', who);
    expect(queued.status).toBe(409);
    expect(queued.text).toContain('run queued-wren is queued: it has no outputs yet');
    const attempt = '00000000-0000-0000-0000-000000000000';
    for (const p of [
      '/runs/calm-heron/files/..%2F..%2Fetc%2Fpasswd',
      `/runs/calm-heron/attempts/${attempt}/artifacts/..%2F..%2Fx`,
      `/runs/calm-heron/attempts/not-a-uuid/artifacts/${enc(MARK)}`,
      `/runs/calm-heron/attempts/${attempt}/artifacts/agent/x.txt`,
      '/runs/their-run/files/summary.csv',
    ]) {
      const res = await get(api.url, p, who);
      expect(res.status, p).toBe(404);
      expect(res.text, p).not.toContain(MARK);
    }
  });

  it('refuses a viewer the write pages with a 403 and a hostile run name with a 4xx', async () => {
    const stopPage = await get(api.url, '/runs/calm-heron', viewerWho);
    expect(stopPage.status).toBe(200);
    const csrf = /name="_csrf" value="([^"]+)"/.exec(stopPage.text)?.[1] ?? '';
    for (const p of ['/runs/calm-heron/stop', '/runs/calm-heron/retry']) {
      const res = await postForm(api.url, p, viewerWho, { _csrf: csrf });
      expect(res.status, p).toBe(403);
    }
    const foreign = await postForm(api.url, `/runs/${enc(MARK)}/stop`, who, { _csrf: csrf });
    expect(foreign.status).toBeGreaterThanOrEqual(400);
    expect(foreign.status).toBeLessThan(500);
  });
});
