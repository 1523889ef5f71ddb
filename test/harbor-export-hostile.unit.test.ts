// `runs export` against a fake platform on loopback whose archive is hostile: entries climbing out
// of DIR, absolute names, a truncated archive: each is refused, nothing is written outside DIR,
// DIR is left as it was, and no staging folder is left next to it. A link is left out.
import { lstat, mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildContext, CliError, fakeIO, runsExportAction } from '@osmosis/cli/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RawEntry, rawTarGz } from './helpers/raw-tar.ts';

const ARCHIVES: Record<string, Buffer> = {
  climb: rawTarGz([
    { name: 'config.json', content: '{}' },
    { name: '../outside.txt', content: 'escaped' },
  ]),
  nested: rawTarGz([{ name: 'trial__abc/agent/../../../outside.txt', content: 'escaped' }]),
  absolute: rawTarGz([{ name: '/tmp/osmosis-export-absolute.txt', content: 'escaped' }]),
  link: rawTarGz([
    { name: 'trial__abc/agent', type: 'symlink', linkname: '../../..' } as RawEntry,
    { name: 'trial__abc/agent/outside.txt', content: 'escaped' },
  ]),
  truncated: rawTarGz([{ name: 'config.json', content: 'x'.repeat(4000) }]).subarray(0, 60),
  good: rawTarGz([
    { name: 'config.json', content: '{}' },
    { name: 'trial__abc/result.json', content: '{}' },
  ]),
};

let server: http.Server;
let url: string;
let root: string;

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'osmosis-export-hostile-'));
  server = http.createServer((req, res) => {
    const m = /^\/v1\/runs\/([^/]+)\/export/.exec(req.url ?? '');
    const body = m ? ARCHIVES[decodeURIComponent(m[1] as string)] : undefined;
    if (!body) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { code: 'NOT_FOUND', message: 'run not found', details: null } }));
      return;
    }
    res.writeHead(200, { 'content-type': 'application/gzip', 'x-osmosis-trials': '1' });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await rm(root, { recursive: true, force: true });
});

async function exportInto(run: string, output: string) {
  const io = fakeIO({ env: { OSMOSIS_TOKEN: 'osm_test' }, cwd: root });
  await runsExportAction(buildContext(io, { json: true, platform: url }, 'benchmark runs export'), run, {
    format: 'harbor',
    output,
  });
}

describe('runs export with a hostile archive', () => {
  for (const run of ['climb', 'nested', 'absolute', 'truncated']) {
    it(`${run}: refused, nothing outside DIR, DIR untouched, no staging folder left`, async () => {
      const base = path.join(root, run);
      await mkdir(base);
      const error = await exportInto(run, `${run}/job`).then(
        () => null,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(CliError);
      expect((error as CliError).message).toMatch(/could not be written/);
      expect((error as CliError).hint).toMatch(/left as it was/);
      // neither the job folder nor anything next to it was written
      expect(await readdir(base)).toEqual([]);
      expect((await readdir(root)).sort()).not.toContain('outside.txt');
    });
  }

  it('link: left out, so the file under it lands in a real folder inside DIR', async () => {
    await exportInto('link', 'link/job');
    const job = path.join(root, 'link', 'job');
    const agent = await lstat(path.join(job, 'trial__abc', 'agent'));
    expect(agent.isSymbolicLink()).toBe(false);
    expect(await readdir(path.join(job, 'trial__abc', 'agent'))).toEqual(['outside.txt']);
    expect(await readdir(root)).not.toContain('outside.txt');
  });

  it('a folder with files in it is refused before anything is fetched', async () => {
    await mkdir(path.join(root, 'full'));
    await writeFile(path.join(root, 'full', 'mine.txt'), 'mine');
    const error = await exportInto('good', 'full').then(
      () => null,
      (e: unknown) => e,
    );
    expect((error as CliError).code).toBe('USAGE_ERROR');
    expect(await readdir(path.join(root, 'full'))).toEqual(['mine.txt']);
  });

  it('a good archive is extracted into DIR', async () => {
    await exportInto('good', 'fine');
    expect((await readdir(path.join(root, 'fine'), { recursive: true })).sort()).toEqual([
      'config.json',
      'trial__abc',
      'trial__abc/result.json',
    ]);
  });
});
