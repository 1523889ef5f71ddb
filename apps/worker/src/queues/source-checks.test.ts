// The sync's own checks of what a source hands it: a task over the operator's size limits, and
// a registry document fetched under the egress policy with a size cap.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseAllowList } from '@osmosis/egress';
import { ArchiveError, extractTar, packTar } from '@osmosis/tasks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchRegistryText, MAX_REGISTRY_BYTES, taskNameProblem, taskSizeProblem } from './source-checks.ts';

describe('taskSizeProblem', () => {
  const names = {
    maxBytes: 'OSMOSIS_MAX_ARCHIVE_BYTES',
    maxEntryBytes: 'OSMOSIS_MAX_ARCHIVE_ENTRY_BYTES',
    maxEntries: 'OSMOSIS_MAX_ARCHIVE_FILES',
    maxRatio: 'OSMOSIS_MAX_ARCHIVE_RATIO',
  };
  const files = [
    { path: 'instruction.md', size: 10 },
    { path: 'environment/data.bin', size: 600 },
  ];
  it('names the file, the size and the setting', () => {
    expect(taskSizeProblem({ files }, 'tasks/big', { maxEntryBytes: 500, limitNames: names })).toBe(
      'tasks/big/environment/data.bin is 600 bytes, more than 500 bytes per file (the limit is set by OSMOSIS_MAX_ARCHIVE_ENTRY_BYTES)',
    );
    expect(taskSizeProblem({ files }, '.', { maxBytes: 500, limitNames: names })).toBe(
      '. holds 610 bytes, more than 500 (the limit is set by OSMOSIS_MAX_ARCHIVE_BYTES)',
    );
    expect(taskSizeProblem({ files }, 't', { maxEntries: 1 })).toBe('t has 2 files, more than 1');
    expect(taskSizeProblem({ files }, 't')).toBeNull();
  });
});

describe('taskNameProblem', () => {
  // a git checkout is Linux: these names are ordinary files there, yet the task's stored tar is
  // extracted by the worker with portable names, which refuses them: every attempt would fail
  const deep = `${Array.from({ length: 70 }, (_, i) => `d${i}`).join('/')}/f`;
  const bad: [string, RegExp][] = [
    ['tests/a\\b.txt', /^tasks\/t\/tests\/a\\b\.txt: the name contains a backslash; rename it/],
    ['C:notes.txt', /^tasks\/t\/C:notes\.txt: absolute path; rename it/],
    [deep, /: the path is nested more than 64 folders deep; rename it/],
  ];

  it("refuses, naming the file, a name the worker could not extract from the task's tar", async () => {
    const root = await mkdtemp(path.join(tmpdir(), 'osmosis-names-'));
    try {
      for (const [name, message] of bad) {
        const dir = path.join(root, String(bad.findIndex(([n]) => n === name)));
        await mkdir(path.dirname(path.join(dir, name)), { recursive: true });
        await writeFile(path.join(dir, name), 'x');
        // the hole: the packed task does not extract
        const out = await extractTar(packTar(dir), path.join(dir, '..', `x${path.basename(dir)}`)).then(
          () => null,
          (e: unknown) => e,
        );
        expect(out, name).toBeInstanceOf(ArchiveError);
        expect(taskNameProblem({ files: [{ path: name, size: 1 }] }, 'tasks/t')).toMatch(message);
      }
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });

  it('accepts names that extract: spaces, unicode, a colon past the first letter', () => {
    const files = ['instruction.md', 'tests/my file.txt', 'environment/données/é.txt', 'tests/a:b', 'ab:c'];
    expect(taskNameProblem({ files: files.map((p) => ({ path: p, size: 1 })) }, '.')).toBeNull();
  });
});

describe('fetchRegistryText', () => {
  let server: Server;
  let base: string;
  beforeAll(async () => {
    server = createServer((req, res) => {
      if (req.url === '/big.json') {
        res.writeHead(200);
        const chunk = Buffer.alloc(1024 * 1024, 0x20);
        let sent = 0;
        const push = () => {
          while (sent <= MAX_REGISTRY_BYTES) {
            sent += chunk.length;
            if (!res.write(chunk)) return void res.once('drain', push);
          }
          res.end();
        };
        push();
      } else res.writeHead(200, { 'content-type': 'application/json' }).end('[]');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const address = server.address();
    base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  it('reads through the egress policy: loopback only when allow-listed', async () => {
    expect(await fetchRegistryText(`${base}/r.json`, { allow: parseAllowList('127.0.0.1') })).toBe('[]');
    await expect(fetchRegistryText(`${base}/r.json`, { allow: parseAllowList('') })).rejects.toThrow(
      /"127\.0\.0\.1" is not a public internet address/,
    );
    await expect(fetchRegistryText('file:///etc/passwd', { allow: parseAllowList('') })).rejects.toThrow(
      'registry_url uses the scheme "file", which is not allowed; use https://, http://',
    );
  });

  it('stops reading a document past the cap', async () => {
    await expect(
      fetchRegistryText(`${base}/big.json`, { allow: parseAllowList('127.0.0.1') }),
    ).rejects.toThrow(`the registry document is larger than ${MAX_REGISTRY_BYTES} bytes`);
  });
});
