// The platform pages over loopback HTTP against a real database: sign-in/out, CSRF, workspace
// isolation (404 pages), the key content of the benchmark, run and attempt pages, and the run
// page's event stream.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  type SeededMember,
  STREAM_ACCESS_RECHECK_MS,
  startTestApi,
  type TestApi,
} from '@osmosis/api/testing';
import { defaultTaskConfig } from '@osmosis/tasks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { patience } from './helpers/wait.ts';
import { type Browserish, get, postForm, postLogin, signIn } from './pages-support.ts';
import { type SeededRun, seedBenchmark, seedRun } from './results-seed.ts';

let api: TestApi;
let owner: SeededMember;
let other: SeededMember;
let run: SeededRun;
let running: SeededRun;
let foreign: SeededRun;
let dataDir: string;
const previousDataDir = process.env.OSMOSIS_DATA_DIR;

/** terminus-2's ATIF trajectory: 12 agent steps, more than one page (10 per page) */
const TRAJECTORY = {
  schema_version: 'ATIF-v1.7',
  agent: { name: 'terminus-2', version: '2.0.0', model_name: 'openai/gpt-x' },
  extra: { stop_reason: 'task_complete' },
  steps: Array.from({ length: 12 }, (_, i) => ({
    step_id: i + 1,
    source: 'agent',
    message: `analysis of turn ${i} <script>alert(1)</script>\nplan ${i}`,
    tool_calls: [
      {
        tool_call_id: `call_${i}_1`,
        function_name: 'bash_command',
        arguments: { keystrokes: `echo step-${i}\n`, duration: 0.5 },
      },
    ],
    observation: { results: [{ content: `output-${i}` }] },
  })),
};

/** Full paths of the routes in Fastify's printRoutes tree (children are indented by 4). */
function postRoutes(tree: string): string[] {
  const stack: string[] = [];
  const out: string[] = [];
  for (const line of tree.split('\n')) {
    const m = /^((?:│ {3}| {4})*)[├└]── (\S+)(?: \((.+)\))?/.exec(line);
    if (!m) continue;
    const depth = (m[1] as string).length / 4;
    const full = (depth > 0 ? (stack[depth - 1] ?? '') : '') + (m[2] as string);
    stack[depth] = full;
    if (m[3]?.split(', ').includes('POST')) out.push(full);
  }
  return out;
}

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), 'osmosis-pages-'));
  process.env.OSMOSIS_DATA_DIR = dataDir;
  api = await startTestApi();
  owner = await api.seedWorkspace();
  other = await api.seedWorkspace();
  const bench = await seedBenchmark(api.db, owner.workspaceId, 5, 'sample-bench');
  // the stored manifest form benchmark sync writes (the API serialises its `config`)
  await api.db.task.updateMany({
    where: { benchmarkId: bench.benchmarkId },
    data: { config: { config: defaultTaskConfig() } as object },
  });
  const common = {
    workspaceId: owner.workspaceId,
    userId: owner.userId,
    benchmarkId: bench.benchmarkId,
    tasks: 5,
  };
  run = await seedRun(api.db, {
    ...common,
    runName: 'bright-otter',
    attemptsPerTask: 2,
    agents: [
      { harness: 'oracle', model: 'oracle' },
      { harness: 'terminus-2', model: 'openai/gpt-x' },
    ],
    attempt: (agent, task) => ({
      outcome: agent === 0 ? 'passed' : task === 0 ? 'errored' : task % 2 ? 'failed' : 'passed',
      cost_usd: agent === 1 ? 0.02 : null,
      input_tokens: agent === 1 ? 500 : null,
      agent_ms: 1500,
    }),
  });
  running = await seedRun(api.db, {
    ...common,
    runName: 'busy-heron',
    status: 'running',
    attemptsPerTask: 1,
    agents: [{ harness: 'nop', model: 'none' }],
    attempt: (_a, task) => ({ outcome: task < 2 ? 'failed' : null }),
  });
  foreign = await seedRun(api.db, {
    workspaceId: other.workspaceId,
    userId: other.userId,
    tasks: 2,
    runName: 'secret-lynx',
    attemptsPerTask: 1,
    agents: [{ harness: 'oracle', model: 'oracle' }],
  });
  // artifacts of the terminus-2 attempt on task 1
  const attempt = run.attempts.find((a) => a.agent === 1 && a.task === 1 && a.index === 0);
  if (!attempt) throw new Error('no attempt');
  const files: Record<string, string> = {
    'agent/trajectory.json': JSON.stringify(TRAJECTORY),
    'verifier/test-stdout.txt': 'FAILED test_outputs.py::test_hello <b>',
  };
  for (const [p, content] of Object.entries(files)) {
    const key = `artifacts/${attempt.id}/${p}`;
    await mkdir(path.dirname(path.join(dataDir, key)), { recursive: true });
    await writeFile(path.join(dataDir, key), content);
    await api.db.artifact.create({
      data: { attemptId: attempt.id, path: p, size: Buffer.byteLength(content), storageKey: key },
    });
  }
  await api.db.attempt.update({
    where: { id: attempt.id },
    data: {
      errorClass: 'agent_timeout',
      errorMessage: 'agent ran out of time',
      envMs: 1200,
      verifierMs: 800,
    },
  });
  await api.db.runEvent.create({
    data: {
      runId: run.runId,
      attemptId: attempt.id,
      level: 'info',
      step: 'attempt.verified',
      message: 'verifier done',
    },
  });
});

afterAll(async () => {
  await api?.close();
  if (previousDataDir === undefined) delete process.env.OSMOSIS_DATA_DIR;
  else process.env.OSMOSIS_DATA_DIR = previousDataDir;
  await rm(dataDir, { recursive: true, force: true });
});

describe('sign-in', () => {
  it('redirects to /login when not signed in, naming the page to come back to', async () => {
    for (const p of ['/benchmarks', '/runs/bright-otter', '/runs/bright-otter/stream', '/']) {
      const res = await get(api.url, p, null);
      expect(res.status).toBe(303);
      const back = p === '/' || p.endsWith('/stream') ? '/login' : `/login?next=${encodeURIComponent(p)}`;
      expect(res.headers.get('location')).toBe(back);
    }
  });

  it('sets an HTTP-only SameSite=Strict session cookie for a valid token', async () => {
    const res = await postLogin(api.url, owner.token);
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/benchmarks');
    const session = res.headers.getSetCookie().find((c) => c.startsWith('osm_session='));
    expect(session).toMatch(/HttpOnly/);
    expect(session).toMatch(/SameSite=Strict/);
    expect(session).not.toContain(owner.token);
  });

  it('refuses a wrong token and a missing CSRF value', async () => {
    const bad = await postLogin(api.url, 'osm_not_a_real_token');
    expect(bad.status).toBe(401);
    expect(await bad.text()).toContain('Sign-in failed');
    const noCsrf = await fetch(`${api.url}/login`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: owner.token }).toString(),
    });
    expect(noCsrf.status).toBe(403);
    expect(
      noCsrf.headers
        .getSetCookie()
        .some((c) => c.startsWith('osm_session=') && !c.startsWith('osm_session=;')),
    ).toBe(false);
  });

  it('rejects a tampered session cookie', async () => {
    const res = await get(api.url, '/benchmarks', {
      cookie: 'osm_session=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
      csrf: '',
    });
    expect(res.status).toBe(303);
  });

  it('signs out with the CSRF token; without it the POST is refused', async () => {
    const who = await signIn(api.url, owner.token);
    const refused = await postForm(api.url, '/logout', who, {});
    expect(refused.status).toBe(403);
    const wrong = await postForm(api.url, '/logout', who, { _csrf: 'nope' });
    expect(wrong.status).toBe(403);
    const out = await postForm(api.url, '/logout', who, { _csrf: who.csrf });
    expect(out.status).toBe(303);
    expect(out.headers.get('location')).toBe('/login');
    expect(out.headers.getSetCookie().find((c) => c.startsWith('osm_session='))).toMatch(/Max-Age=0/);
  });

  it('signing out ends the session on the server: a copy of the cookie is refused afterwards', async () => {
    const who = await signIn(api.url, owner.token);
    const copy: Browserish = { ...who };
    expect((await get(api.url, '/benchmarks', copy)).status).toBe(200);
    const before = await api.db.pageSession.count();
    const out = await postForm(api.url, '/logout', who, { _csrf: who.csrf });
    expect(out.status).toBe(303);
    expect(await api.db.pageSession.count()).toBe(before - 1);
    // the copied cookie (a stolen one, or a second tab) now opens nothing
    const after = await get(api.url, '/benchmarks', copy);
    expect(after.status).toBe(303);
    expect(after.headers.get('location')).toBe('/login?next=%2Fbenchmarks');
    const stop = await postForm(api.url, '/runs/bright-otter/stop', copy, { _csrf: who.csrf });
    expect(stop.status).toBe(401);
  });

  it('the session store holds neither the API token nor the session id', async () => {
    const who = await signIn(api.url, owner.token);
    const sessionId = decodeURIComponent(who.cookie.replace(/^osm_session=/, '')).split('.')[0] as string;
    expect(sessionId.length).toBeGreaterThan(20);
    const rows = await api.db.pageSession.findMany();
    const dump = JSON.stringify(rows);
    expect(dump).not.toContain(owner.token);
    expect(dump).not.toContain(owner.token.slice(12));
    expect(dump).not.toContain(sessionId);
    expect(rows.some((r) => r.tokenId === owner.tokenId)).toBe(true);
  });

  it('every state-changing page route refuses a POST without the session CSRF token', async () => {
    // the page routes that change state, read from the app itself so a new one cannot be missed
    const routes = postRoutes(api.app.printRoutes({ method: 'POST', commonPrefix: false })).filter(
      (route) => !route.startsWith('/v1') && !route.startsWith('/api/'),
    );
    expect(routes.sort()).toEqual([
      '/benchmarks/:key/sync',
      '/device',
      '/invitations/:code',
      '/join/:code',
      '/login',
      '/login/sso',
      '/logout',
      '/reset/:code',
      '/runs/:name/retry',
      '/runs/:name/stop',
      '/tokens',
      '/tokens/:id/revoke',
      '/workspaces',
    ]);
    const member = await api.addMember(owner.workspaceId, 'member');
    const who = await signIn(api.url, member.token);
    for (const route of routes) {
      const url = route
        .replace(':name', 'busy-heron')
        .replace(':key', 'sample-bench')
        .replace(':code', 'osminv_bogus')
        .replace(':id', '00000000-0000-4000-8000-000000000000');
      for (const form of [{}, { _csrf: 'forged' }, { _csrf: `${who.csrf}x` }] as Record<string, string>[]) {
        const res = await postForm(api.url, url, who, form);
        expect(res.status, `${route} ${JSON.stringify(form)}`).toBe(403);
        expect(res.text).toContain('CSRF');
      }
    }
    // a token from another session does not fit this one
    const otherSession = await signIn(api.url, member.token);
    const crossed = await postForm(api.url, '/logout', who, { _csrf: otherSession.csrf });
    expect(crossed.status).toBe(403);
    expect((await get(api.url, '/benchmarks', who)).status).toBe(200);
  });

  it('ends the session when the token is revoked', async () => {
    const member = await api.addMember(owner.workspaceId, 'member');
    const who = await signIn(api.url, member.token);
    expect((await get(api.url, '/benchmarks', who)).status).toBe(200);
    await api.db.apiToken.update({ where: { id: member.tokenId }, data: { revokedAt: new Date() } });
    expect((await get(api.url, '/benchmarks', who)).status).toBe(303);
  });
});

describe('pages', () => {
  let who: Browserish;
  beforeAll(async () => {
    who = await signIn(api.url, owner.token);
  });

  it('lists benchmarks and shows a benchmark with its leaderboard, runs and filtered tasks', async () => {
    const list = await get(api.url, '/benchmarks', who);
    expect(list.status).toBe(200);
    expect(list.text).toContain('sample-bench');
    const page = await get(api.url, '/benchmarks/sample-bench', who);
    expect(page.status).toBe(200);
    expect(page.text).toContain('Leaderboard');
    expect(page.text).toContain('oracle (oracle)');
    expect(page.text).toContain('#1');
    expect(page.text).toContain('href="/runs/bright-otter"');
    expect(page.text).toContain('task-00004');
    const filtered = await get(api.url, '/benchmarks/sample-bench?q=00003', who);
    expect(filtered.text).toContain('task-00003');
    expect(filtered.text).not.toContain('<td>task-00004</td>');
    const byCategory = await get(api.url, '/benchmarks/sample-bench?category=cat-2', who);
    expect(byCategory.text).toContain('1 of 5 tasks');
  });

  it("pages a benchmark's runs: the newest 20 on its page, then every one on /runs?benchmark=", async () => {
    const busy = await seedBenchmark(api.db, owner.workspaceId, 1, 'busy-bench');
    await api.db.task.updateMany({
      where: { benchmarkId: busy.benchmarkId },
      data: { config: { config: defaultTaskConfig() } as object },
    });
    for (let i = 0; i < 21; i++)
      await seedRun(api.db, {
        workspaceId: owner.workspaceId,
        userId: owner.userId,
        benchmarkId: busy.benchmarkId,
        tasks: 1,
        runName: `busy-run-${String(i).padStart(2, '0')}`,
        attemptsPerTask: 1,
        agents: [{ harness: 'oracle', model: 'oracle' }],
      });
    const bench = await get(api.url, '/benchmarks/busy-bench', who);
    expect(bench.text).toContain('Showing the newest 20 of 21 runs');
    expect(bench.text).toContain('href="/runs?benchmark=busy-bench"');
    const all = await get(api.url, '/runs?benchmark=busy-bench', who);
    expect(all.status).toBe(200);
    expect(all.text).toContain('21 run(s)');
    expect(all.text.match(/href="\/runs\/busy-run-\d\d"/g)).toHaveLength(21);
    expect(all.text).not.toContain('href="/runs/bright-otter"'); // another benchmark's run
    const everything = await get(api.url, '/runs', who);
    expect(everything.text).toContain('href="/runs/bright-otter"');
  });

  it('shows a run: status, agents with intervals, grid with labels, downloads', async () => {
    const res = await get(api.url, '/runs/bright-otter', who);
    expect(res.status).toBe(200);
    expect(res.text).toContain('finished');
    expect(res.text).toContain('openai/gpt-x (terminus-2)');
    expect(res.text).toContain('<svg');
    expect(res.text).toContain('pass@2');
    // each agent's pass@k curve carries the API's numbers (no second copy of the scoring)
    const scores = await api.request('GET', '/v1/runs/bright-otter/results', { token: owner.token });
    const agents = scores.body.data.agents as { pass_at_k: { k: number; value: number }[] }[];
    expect(agents).toHaveLength(2);
    for (const a of agents) {
      const label = a.pass_at_k.map((p) => `pass@${p.k} ${(p.value * 100).toFixed(1)}%`).join(', ');
      expect(res.text).toContain(
        `<svg class="curve" width="96" height="40" role="img" aria-label="${label}">`,
      );
    }
    expect(res.text).toMatch(/class="b errored"[^>]*>error</);
    expect(res.text).toContain('/runs/bright-otter/files/summary.csv');
    expect(res.text).not.toContain('Stop this run');
    expect(res.text).not.toContain('<script>');
    const failedOnly = await get(api.url, '/runs/bright-otter?show=errored', who);
    expect(failedOnly.text).toContain('1 task(s)');
    const summary = await fetch(`${api.url}/runs/bright-otter/files/summary.csv`, {
      headers: { cookie: who.cookie },
    });
    expect(summary.status).toBe(200);
    expect(summary.headers.get('content-disposition')).toContain('summary.csv');
    expect(await summary.text()).toContain('openai/gpt-x');
  });

  it('shows a running run with the live script, and stops it after confirmation', async () => {
    const res = await get(api.url, '/runs/busy-heron', who);
    expect(res.text).toContain('<script>');
    expect(res.text).toContain('data-stream="/runs/busy-heron/stream"');
    expect(res.text).toContain('Stop this run');
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).toMatch(/script-src 'sha256-[A-Za-z0-9+/=]+'/);
    expect(csp).not.toContain("unsafe-inline'; script");
    const confirm = await get(api.url, '/runs/busy-heron/stop', who);
    expect(confirm.text).toContain('Yes, stop the run');
    const noCsrf = await postForm(api.url, '/runs/busy-heron/stop', who, {});
    expect(noCsrf.status).toBe(403);
    expect((await api.db.run.findUniqueOrThrow({ where: { id: running.runId } })).status).toBe('running');
    const stop = await postForm(api.url, '/runs/busy-heron/stop', who, { _csrf: who.csrf });
    expect(stop.status).toBe(303);
    expect((await api.db.run.findUniqueOrThrow({ where: { id: running.runId } })).status).toBe('stopped');
  });

  it('viewers see no stop button and cannot stop', async () => {
    const viewer = await api.addMember(owner.workspaceId, 'viewer');
    const v = await signIn(api.url, viewer.token);
    const confirm = await get(api.url, '/runs/bright-otter/stop', v);
    expect(confirm.status).toBe(403);
  });

  it('shows an attempt: error, phases, events, verifier output, paged trajectory, artifacts', async () => {
    const attempt = run.attempts.find((a) => a.agent === 1 && a.task === 1 && a.index === 0);
    const base = `/runs/bright-otter/attempts/${attempt?.id}`;
    const res = await get(api.url, base, who);
    expect(res.status).toBe(200);
    expect(res.text).toContain('agent_timeout');
    expect(res.text).toContain('verifier done');
    expect(res.text).toContain('FAILED test_outputs.py::test_hello &lt;b&gt;');
    expect(res.text).toContain('analysis of turn 0 &lt;script&gt;');
    expect(res.text).not.toContain('<script>alert');
    expect(res.text).toContain('echo step-9');
    expect(res.text).not.toContain('echo step-10');
    const later = await get(api.url, `${base}?steps=2`, who);
    expect(later.text).toContain('echo step-11');
    expect(res.text).toContain(`${base}/artifacts/agent/trajectory.json`);
    const file = await fetch(`${api.url}${base}/artifacts/verifier/test-stdout.txt`, {
      headers: { cookie: who.cookie },
    });
    expect(file.status).toBe(200);
    expect(await file.text()).toBe('FAILED test_outputs.py::test_hello <b>');
  });

  it("shows an agent's error on a scored attempt as a note, not as the attempt's error", async () => {
    const attempt = run.attempts.find((a) => a.agent === 0 && a.task === 0 && a.index === 0);
    await api.db.attempt.update({
      where: { id: attempt?.id },
      data: {
        status: 'finished',
        outcome: 'passed',
        errorClass: 'agent_error',
        errorMessage: 'opencode reported an error',
      },
    });
    const res = await get(api.url, `/runs/bright-otter/attempts/${attempt?.id}`, who);
    expect(res.status).toBe(200);
    expect(res.text).toContain('<dt>Agent error</dt>');
    expect(res.text).toContain('the verifier still ran and scored the attempt');
    expect(res.text).not.toContain('<dt>Error</dt>');
    const errored = run.attempts.find((a) => a.agent === 1 && a.task === 0 && a.index === 0);
    await api.db.attempt.update({
      where: { id: errored?.id },
      data: { errorClass: 'environment_error', errorMessage: 'the image could not be built' },
    });
    const erroredPage = await get(api.url, `/runs/bright-otter/attempts/${errored?.id}`, who);
    expect(erroredPage.text).toContain('<dt>Error</dt>');
    expect(erroredPage.text).not.toContain('<dt>Agent error</dt>');
  });

  it("another workspace's run, attempt and benchmark are 404 pages", async () => {
    const foreignAttempt = foreign.attempts[0]?.id;
    for (const p of [
      '/runs/secret-lynx',
      '/runs/secret-lynx/stream',
      '/runs/no-such-run/stream',
      '/runs/secret-lynx/stop',
      '/runs/secret-lynx/files/summary.csv',
      `/runs/secret-lynx/attempts/${foreignAttempt}`,
      `/runs/bright-otter/attempts/${foreignAttempt}`,
      `/runs/secret-lynx/attempts/${foreignAttempt}/artifacts/agent/x.txt`,
      `/benchmarks/${foreign.benchmarkKey}`,
      '/runs/no-such-run',
    ]) {
      const res = await get(api.url, p, who);
      expect(res.status, p).toBe(404);
      expect(res.text).not.toContain('secret-lynx</h1>');
    }
    const stop = await postForm(api.url, '/runs/secret-lynx/stop', who, { _csrf: who.csrf });
    expect(stop.status).toBe(404);
    expect((await api.db.run.findUniqueOrThrow({ where: { id: foreign.runId } })).status).toBe('finished');
  });
});

describe('the run page stream (GET /runs/:name/stream)', () => {
  let who: Browserish;
  beforeAll(async () => {
    who = await signIn(api.url, owner.token);
  });

  // biome-ignore lint/suspicious/noExplicitAny: SSE payloads are checked field by field
  type Frame = { event: string; data: any; id?: string };
  /** Reads frames until `until` matches one (returns it), or the stream ends (returns null). */
  async function readUntil(
    reader: ReadableStreamDefaultReader<Uint8Array>,
    frames: Frame[],
    until: (f: Frame) => boolean,
  ): Promise<Frame | null> {
    const decoder = new TextDecoder();
    let buffer = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return null;
      buffer += decoder.decode(value, { stream: true });
      for (let idx = buffer.indexOf('\n\n'); idx >= 0; idx = buffer.indexOf('\n\n')) {
        const raw = buffer.slice(0, idx);
        buffer = buffer.slice(idx + 2);
        const event = /^event: (.*)$/m.exec(raw)?.[1];
        const data = /^data: (.*)$/m.exec(raw)?.[1];
        const id = /^id: (.*)$/m.exec(raw)?.[1];
        if (!event || !data) continue;
        const frame: Frame = { event, data: JSON.parse(data), ...(id ? { id } : {}) };
        frames.push(frame);
        if (until(frame)) return frame;
      }
    }
  }

  it('streams progress of a running run (no events), then end when it finishes, then closes', async () => {
    const live = await seedRun(api.db, {
      workspaceId: owner.workspaceId,
      userId: owner.userId,
      benchmarkId: run.benchmarkId,
      tasks: 4,
      runName: 'swift-tern',
      status: 'running',
      attemptsPerTask: 1,
      events: 3,
      agents: [{ harness: 'nop', model: 'none' }],
      attempt: (_a, task) => ({ outcome: task < 1 ? 'passed' : null }),
    });
    const page = await get(api.url, '/runs/swift-tern', who);
    expect(page.text).toContain('data-stream="/runs/swift-tern/stream"');
    expect(page.text).toContain('data-version="running:1:');
    const res = await fetch(`${api.url}/runs/swift-tern/stream?backlog=50`, {
      headers: { cookie: who.cookie },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const frames: Frame[] = [];
    const first = await readUntil(reader, frames, (f) => f.event === 'progress');
    expect(first?.data).toMatchObject({ run_name: 'swift-tern', status: 'running' });
    expect(first?.data.progress).toMatchObject({ total: 4, done: 1, passed: 1 });

    await api.db.attempt.updateMany({
      where: { runId: live.runId, outcome: null },
      data: { outcome: 'failed', status: 'finished', finishedAt: new Date() },
    });
    await api.db.runEvent.create({
      data: { runId: live.runId, level: 'info', step: 'run', message: 'run finished' },
    });
    await api.db.run.update({
      where: { id: live.runId },
      data: { status: 'finished', finishedAt: new Date() },
    });
    const end = await readUntil(reader, frames, (f) => f.event === 'end');
    expect(end?.data.status).toBe('finished');
    expect(frames.filter((f) => f.event === 'progress').at(-1)?.data.progress).toMatchObject({
      done: 4,
      failed: 3,
    });
    // only progress and end: no backlog (whatever the query says) and no new events
    expect(frames.map((f) => f.event).filter((e) => e !== 'progress')).toEqual(['end']);
    expect(frames.some((f) => f.id !== undefined)).toBe(false);
    expect(await readUntil(reader, frames, () => true)).toBeNull(); // closed by the server
  });

  it('refuses a Last-Event-ID that is no event id with a 400 naming it', async () => {
    const res = await fetch(`${api.url}/runs/bright-otter/stream`, {
      headers: { cookie: who.cookie, 'last-event-id': '99999999999999999999' },
    });
    expect(res.status).toBe(400);
    expect(await res.text()).toContain('Last-Event-ID is not an event id');
  });

  it('sends progress and end for a finished run, then closes', async () => {
    const res = await fetch(`${api.url}/runs/bright-otter/stream`, { headers: { cookie: who.cookie } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const text = await res.text(); // resolves: the server ends the stream
    expect(text).toMatch(/event: progress\n[\s\S]*event: end\n/);
    expect(text).not.toContain('event: run-event');
    expect(text).toContain('"status":"finished"');
  });

  it('ends within a re-check period after its session signs out (in another tab), the token still valid', async () => {
    await seedRun(api.db, {
      workspaceId: owner.workspaceId,
      userId: owner.userId,
      benchmarkId: run.benchmarkId,
      tasks: 2,
      runName: 'long-wren',
      status: 'running',
      attemptsPerTask: 1,
      agents: [{ harness: 'nop', model: 'none' }],
      attempt: () => ({ outcome: null }),
    });
    const member = await api.addMember(owner.workspaceId, 'member');
    const session = await signIn(api.url, member.token);
    const controller = new AbortController();
    const res = await fetch(`${api.url}/runs/long-wren/stream`, {
      headers: { cookie: session.cookie },
      signal: controller.signal,
    });
    expect(res.status).toBe(200);
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const frames: Frame[] = [];
    expect(await readUntil(reader, frames, (f) => f.event === 'progress')).not.toBeNull();
    const out = await postForm(api.url, '/logout', session, { _csrf: session.csrf });
    expect(out.status).toBe(303);
    const ended = await Promise.race([
      readUntil(reader, frames, () => false).then(() => 'ended'),
      new Promise((resolve) =>
        setTimeout(() => resolve('still open'), patience(STREAM_ACCESS_RECHECK_MS + 5_000)),
      ),
    ]);
    controller.abort();
    expect(ended).toBe('ended');
    expect((await api.request('GET', '/v1/me', { token: member.token })).status).toBe(200);
  });

  it("answers another workspace's run and an unknown run with the 404 page, and redirects when signed out", async () => {
    for (const p of ['/runs/secret-lynx/stream', '/runs/no-such-run/stream']) {
      const res = await get(api.url, p, who);
      expect(res.status, p).toBe(404);
      expect(res.headers.get('content-type')).toContain('text/html');
      expect(res.text).toContain('There is nothing here in this workspace.');
      expect(res.text).not.toContain('event:');
    }
    const out = await get(api.url, '/runs/bright-otter/stream', null);
    expect(out.status).toBe(303);
    expect(out.headers.get('location')).toBe('/login');
  });
});
