// Hostile inputs to GET /v1/runs/:name/downloads/file: the snapshot time `at` and the Range
// header. Each answer is the file, a 206 of it, or a clean 4xx naming what was wrong.
import { ErrorBody } from '@osmosis/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedRun } from '../../../../test/results-seed.ts';
import { type SeededMember, startTestApi, type TestApi } from '../testing.ts';

let api: TestApi;
let owner: SeededMember;
let runId: string;

beforeAll(async () => {
  api = await startTestApi();
  owner = await api.seedWorkspace();
  // running: `at` is honoured (a snapshot), so it reaches the queries
  ({ runId } = await seedRun(api.db, {
    workspaceId: owner.workspaceId,
    userId: owner.userId,
    tasks: 2,
    agents: [{ harness: 'oracle', model: 'oracle' }],
    attemptsPerTask: 1,
    status: 'running',
    runName: 'dl-run',
    events: 3,
  }));
});
afterAll(async () => {
  await api?.close();
});

const file = (path: string, at?: string) =>
  `/v1/runs/dl-run/downloads/file?path=${path}${at ? `&at=${encodeURIComponent(at)}` : ''}`;

describe('the snapshot time `at`', () => {
  it('before 1970 (year 0 is valid ISO but not a Postgres time): 400 naming query.at, for every file', async () => {
    for (const path of ['summary.csv', 'results.csv', 'logs.txt']) {
      for (const range of [undefined, 'bytes=0-3']) {
        const res = await api.request('GET', file(path, '0000-01-01T00:00:00Z'), {
          token: owner.token,
          headers: range ? { range } : {},
        });
        expect(res.status, `${path} ${range}: ${res.text}`).toBe(400);
        const body = ErrorBody.parse(res.body);
        expect(body.error.code).toBe('VALIDATION_ERROR');
        expect(body.error.message).toContain('query.at');
        expect(body.error.message).toContain('generated_at');
      }
    }
  });

  it('the manifest’s own generated_at is accepted', async () => {
    const manifest = await api.request('GET', '/v1/runs/dl-run/downloads/manifest', { token: owner.token });
    expect(manifest.status).toBe(200);
    const res = await api.request('GET', file('summary.csv', manifest.body.data.generated_at), {
      token: owner.token,
    });
    expect(res.status, res.text).toBe(200);
    expect(res.text.startsWith('rank,')).toBe(true);
  });
});

describe('an `at` still in the future', () => {
  it('is not pinned: an event landing before it is in the next download, and every answer is whole', async () => {
    const at = new Date(Date.now() + 3_600_000).toISOString();
    const first = await api.request('GET', file('logs.txt', at), {
      token: owner.token,
      headers: { range: 'bytes=0-' },
    });
    expect(first.status, first.text).toBe(206);
    expect(first.text).not.toContain('landed after the first download');
    await api.db.$executeRaw`
      INSERT INTO run_events (run_id, timestamp, level, step, message, details)
      VALUES (${runId}::uuid, now(), 'info', 'attempt', 'landed after the first download', '{}'::jsonb)`;
    const second = await api.request('GET', file('logs.txt', at), {
      token: owner.token,
      headers: { range: 'bytes=0-' },
    });
    expect(second.status, second.text).toBe(206);
    expect(second.text).toContain('landed after the first download');
    expect(second.headers.get('content-range')).toBe(
      `bytes 0-${Buffer.byteLength(second.text) - 1}/${Buffer.byteLength(second.text)}`,
    );
  });
});

describe('Range', () => {
  const get = (range: string) =>
    api.request('GET', file('summary.csv'), { token: owner.token, headers: { range } });

  it('reversed, beyond the end, or malformed: 416 with the size and how to ask; never a 500', async () => {
    const size = (await api.request('GET', file('summary.csv'), { token: owner.token })).text.length;
    for (const range of [
      'bytes=5-2',
      `bytes=${size}-`,
      'bytes=99999999999999999999999-',
      'bytes=-0',
      'bytes=1.5-2',
    ]) {
      const res = await get(range);
      expect(res.status, range).toBe(416);
      expect(res.headers.get('content-range')).toBe(`bytes */${size}`);
      const { error } = ErrorBody.parse(res.body);
      expect(error.code).toBe('VALIDATION_ERROR');
      expect(error.message).toContain(`the file has ${size} bytes`);
      expect(error.message).toContain('bytes=START-END');
    }
  });

  it('a unit other than bytes is ignored (RFC 9110): the whole file', async () => {
    const whole = (await api.request('GET', file('summary.csv'), { token: owner.token })).text;
    const res = await get('items=0-1');
    expect(res.status).toBe(200);
    expect(res.text).toBe(whole);
  });

  it('a suffix larger than the file is the whole file; an end past it is cut; several ranges are ignored', async () => {
    const whole = (await api.request('GET', file('summary.csv'), { token: owner.token })).text;
    const suffix = await get('bytes=-99999999999999999999');
    expect(suffix.status).toBe(206);
    expect(suffix.text).toBe(whole);
    const cut = await get('bytes=2-99999999999999999999');
    expect(cut.status).toBe(206);
    expect(cut.text).toBe(whole.slice(2));
    const several = await get('bytes=0-1,5-6');
    expect(several.status).toBe(200);
    expect(several.text).toBe(whole);
  });
});
