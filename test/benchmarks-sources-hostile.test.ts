// Task content a benchmark author controls, through a git source (the one kind of source whose
// bytes reach the worker's disk as the author wrote them: git keeps file names as raw bytes),
// against the real API and the real benchmark-sync worker with `git daemon` on loopback
// (allow-listed for this file only). Each hostile task either fails the sync with a sync_error
// naming the file and the fix, or is imported with a parse_error naming it, next to a good task
// that still imports — never an `internal error`, and never a worker that stops.
import { cp, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { packTarBuffer } from '@osmosis/tasks';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  type BenchmarkEnv,
  commitRepo,
  type GitDaemon,
  SAMPLE_DIR,
  startBenchmarkEnv,
  startGitDaemon,
  waitFor,
} from './benchmarks-support.ts';

vi.setConfig({ testTimeout: 180_000 });

let env: BenchmarkEnv;
let daemon: GitDaemon;
let token: string;
let gitRoot: string;

/** A bare repository `<name>.git` whose one commit is what `build` writes into the work tree. */
const repo = (name: string, build: (work: string) => Promise<void>) =>
  commitRepo(gitRoot, daemon, name, build);

const greeting = (dir: string) => cp(path.join(SAMPLE_DIR, 'create-greeting'), dir, { recursive: true });

async function addAndSettle(key: string, url: string) {
  const res = await env.api.request('POST', '/v1/benchmarks', {
    token,
    body: { kind: 'git', url, path: 'tasks', metadata: { key } },
  });
  expect(res.status).toBe(202);
  return waitFor(async () => {
    const got = await env.api.request('GET', `/v1/benchmarks/${key}`, { token });
    const b = got.body.data;
    return b?.sync_status === 'ready' || b?.sync_status === 'failed' ? b : null;
  });
}

beforeAll(async () => {
  // a small byte limit, so a repository past it is cheap to make
  env = await startBenchmarkEnv({
    privateNetworkAllowlist: '127.0.0.1',
    limits: { maxBytes: 8 * 1024 * 1024, limitNames: { maxBytes: 'OSMOSIS_MAX_ARCHIVE_BYTES' } },
  });
  token = (await env.api.seedWorkspace()).token;
  gitRoot = path.join(env.root, 'git');
  await mkdir(gitRoot);
  daemon = await startGitDaemon(gitRoot);
});

afterAll(async () => {
  await daemon?.stop();
  await env?.close();
});

describe('task content a git source can carry', () => {
  it('fails the sync naming a file whose name is not UTF-8 (not an internal error)', async () => {
    const url = await repo('latin1-name', async (w) => {
      await greeting(path.join(w, 'tasks/greeting'));
      // "café.txt" written in Latin-1: the byte 0xE9 alone is not UTF-8
      const name = Buffer.concat([
        Buffer.from(path.join(w, 'tasks/greeting/tests/caf')),
        Buffer.from([0xe9]),
        Buffer.from('.txt'),
      ]);
      await writeFile(name, 'x');
    });
    const b = await addAndSettle('latin1-name', url);
    expect(b.sync_status).toBe('failed');
    expect(b.sync_error).toBe(
      'greeting/tests/caf\uFFFD.txt: the file name is not valid UTF-8; rename it (names of task files must be UTF-8)',
    );
    expect(b.task_count).toBe(0);
  });

  it('imports NUL bytes, NUL escapes and oversize text files as parse errors naming the file, beside a good task', async () => {
    const url = await repo('nul-and-huge', async (w) => {
      await greeting(path.join(w, 'tasks/good'));
      await greeting(path.join(w, 'tasks/nul-instruction'));
      await writeFile(path.join(w, 'tasks/nul-instruction/instruction.md'), 'Write a file.\n\0\n');
      await greeting(path.join(w, 'tasks/nul-escape'));
      await writeFile(
        path.join(w, 'tasks/nul-escape/task.toml'),
        '[metadata]\ncategory = "files"\ntags = ["a", "b\\u0000c"]\n',
      );
      await greeting(path.join(w, 'tasks/huge-toml'));
      // 5 MiB of comments: valid TOML, but no task needs a task.toml that large
      await writeFile(
        path.join(w, 'tasks/huge-toml/task.toml'),
        `${'# padding padding padding padding padding padding padding\n'.repeat(90_000)}[metadata]\n`,
      );
    });
    const b = await addAndSettle('nul-and-huge', url);
    expect(b.sync_error).toBeNull();
    expect(b.sync_status).toBe('ready');
    const byName = Object.fromEntries(
      (b.tasks as { name: string; parse_error: string | null }[]).map((t) => [t.name, t.parse_error]),
    );
    expect(byName).toEqual({
      good: null,
      'nul-instruction': 'instruction.md: line 2 holds a NUL byte; task text files must be text without NUL',
      'nul-escape': 'task.toml:3: [metadata].tags.1 holds a NUL character (\\u0000); remove it',
      'huge-toml': 'task.toml is 5220011 bytes; it may be at most 4194304 bytes (4 MiB)',
    });
    // the API still answers and shows the good task's instruction
    const info = await env.api.request('GET', '/v1/benchmarks/nul-and-huge', { token });
    expect(info.status).toBe(200);
  });

  it('fails the sync of a repository whose checkout is past the byte limit, before checking it out', async () => {
    const url = await repo('zeros', async (w) => {
      await greeting(path.join(w, 'tasks/greeting'));
      // 32 MiB of zeros: a pack of kilobytes
      await writeFile(path.join(w, 'tasks/greeting/environment/blob.bin'), Buffer.alloc(32 * 1024 * 1024));
    });
    const b = await addAndSettle('zeros', url);
    expect(b.sync_status).toBe('failed');
    expect(b.sync_error).toMatch(
      /^git fetch of git:\/\/127\.0\.0\.1:\d+\/zeros\.git failed: the checkout of tasks would write \d+ bytes, more than the limit of 8388608 bytes \(the limit is set by OSMOSIS_MAX_ARCHIVE_BYTES\)$/,
    );
    expect(b.task_count).toBe(0);
  });

  it('checks out every file as its blob, whatever the repository’s .gitattributes say', async () => {
    // 5 MiB of line ends under `eol=crlf`: git would write 10 MiB, past the 8 MiB limit the size
    // check (which counts blobs) had passed; the sync failed after writing them
    const url = await repo('crlf-growth', async (w) => {
      await greeting(path.join(w, 'tasks/greeting'));
      await writeFile(path.join(w, 'tasks/greeting/environment/lines.txt'), '\n'.repeat(5 * 1024 * 1024));
      await writeFile(path.join(w, '.gitattributes'), '* text eol=crlf\n');
    });
    const b = await addAndSettle('crlf-growth', url);
    expect(b.sync_error).toBeNull();
    expect(b.sync_status).toBe('ready');
    expect(b.task_count).toBe(1);
  });

  it('fails the sync naming a file whose name the worker could not extract (a backslash), and stores no such task', async () => {
    const url = await repo('backslash-name', async (w) => {
      await greeting(path.join(w, 'tasks/greeting'));
      // an ordinary file name on Linux, refused by the extractor that unpacks the stored task
      await writeFile(path.join(w, 'tasks/greeting/tests/a\\b.txt'), 'x');
    });
    const b = await addAndSettle('backslash-name', url);
    expect(b.sync_status).toBe('failed');
    expect(b.sync_error).toBe(
      "task greeting: greeting/tests/a\\b.txt: the name contains a backslash; rename it (a task's file names must be the same on every system)",
    );
    expect(b.task_count).toBe(0);
  });

  it('imports a task asking for less memory than a container can have with a parse error naming the field, beside a good task', async () => {
    const url = await repo('tiny-memory', async (w) => {
      await greeting(path.join(w, 'tasks/good'));
      await greeting(path.join(w, 'tasks/tiny'));
      const toml = path.join(w, 'tasks/tiny/task.toml');
      await writeFile(toml, (await readFile(toml, 'utf8')).replace('memory_mb = 512', 'memory_mb = 1'));
    });
    const b = await addAndSettle('tiny-memory', url);
    expect(b.sync_status).toBe('ready');
    const byName = Object.fromEntries(
      (b.tasks as { name: string; parse_error: string | null }[]).map((t) => [t.name, t.parse_error]),
    );
    expect(byName.good).toBeNull();
    expect(byName.tiny).toMatch(
      /^task\.toml:\d+: \[environment\]\.memory_mb: must be at least 6 MiB \(the least memory a container can be limited to\), got 1 MiB/,
    );
  });

  it('answers an uploaded benchmark.toml whose description escapes a NUL with 400 naming it, and adds nothing', async () => {
    const dir = path.join(env.root, 'nul-benchmark-toml');
    await greeting(path.join(dir, 'greeting'));
    await writeFile(
      path.join(dir, 'benchmark.toml'),
      'key = "nul-meta"\nname = "NUL"\ndescription = "before\\u0000after"\n',
    );
    const res = await fetch(`${env.api.url}/v1/benchmarks/archive`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/gzip' },
      body: await packTarBuffer(dir, { gzip: true }),
    });
    expect(res.status).toBe(400);
    const message = 'benchmark.toml: description holds a NUL character (\\u0000); remove it';
    expect(await res.json()).toMatchObject({
      error: { code: 'VALIDATION_ERROR', message, details: { issues: [{ path: 'archive:benchmark.toml' }] } },
    });
    const got = await env.api.request('GET', '/v1/benchmarks/nul-meta', { token });
    expect(got.status).toBe(404);
  });
});
