// A repository's size is its host's choice: a small pack of zeros that checks out gigabytes,
// or a pack that is itself huge. fetchGit with limits refuses both before the disk fills.
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseAllowList } from '@osmosis/egress';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchGit } from './git.ts';
import { type GitDaemon, gitAsCommitter as git, startGitDaemon } from './git-daemon.ts';
import { checkoutProblem, downloadWatch } from './git-size.ts';

const MiB = 1024 * 1024;
const policy = { allow: parseAllowList('127.0.0.1') };
let root: string;
let daemon: GitDaemon;

async function bareRepo(name: string, files: Record<string, Buffer | string>): Promise<string> {
  const work = path.join(root, `work-${name}`);
  await mkdir(work);
  git(work, 'init', '-q', '-b', 'main');
  for (const [file, content] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(work, file)), { recursive: true });
    await writeFile(path.join(work, file), content);
  }
  git(work, 'add', '.');
  git(work, 'commit', '-q', '-m', name);
  git(root, 'clone', '-q', '--bare', work, `${name}.git`);
  await rm(work, { recursive: true, force: true });
  return daemon.url(`${name}.git`);
}

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'osmosis-git-size-'));
  daemon = await startGitDaemon(root);
});

afterAll(async () => {
  await daemon?.stop();
  await rm(root, { recursive: true, force: true });
});

describe('fetchGit limits', () => {
  it('refuses a checkout of 64 MiB of zeros (a pack of kilobytes) before writing a file', async () => {
    const url = await bareRepo('zeros', {
      'tasks/big/data.bin': Buffer.alloc(64 * MiB),
      'tasks/small/task.toml': '',
    });
    const limits = { maxBytes: 16 * MiB, maxFiles: 100, names: { maxBytes: 'OSMOSIS_MAX_ARCHIVE_BYTES' } };
    const dest = path.join(root, 'zeros-all');
    await expect(fetchGit({ url, dest, policy, limits })).rejects.toThrow(
      `the checkout would write ${64 * MiB} bytes, more than the limit of ${16 * MiB} bytes (the limit is set by OSMOSIS_MAX_ARCHIVE_BYTES)`,
    );
    expect((await readdir(dest)).sort()).toEqual(['.git']);
    // a sparse path that leaves the big file out is within the limits
    const small = path.join(root, 'zeros-small');
    await fetchGit({ url, dest: small, policy, limits, paths: ['tasks/small'] });
    expect(existsSync(path.join(small, 'tasks/small/task.toml'))).toBe(true);
    expect(existsSync(path.join(small, 'tasks/big'))).toBe(false);
  });

  it('reads a sparse path literally: "tasks/*" checks out no folder the size check did not count', async () => {
    // the path was a --no-cone pattern: `/tasks/*/` matched every task, while the size check
    // counted the files under a folder named `*` (none), so the zeros were written whole
    const url = await bareRepo('glob', {
      'tasks/big/data.bin': Buffer.alloc(64 * MiB),
      'tasks/small/task.toml': '',
      'tasks/b*g/task.toml': '',
    });
    const limits = { maxBytes: 16 * MiB, maxFiles: 100 };
    // a folder whose name holds the character is still checked out by its name
    const named = path.join(root, 'glob-named');
    await fetchGit({ url, dest: named, policy, limits, paths: ['tasks/b*g'] });
    expect(existsSync(path.join(named, 'tasks/b*g/task.toml'))).toBe(true);
    expect(existsSync(path.join(named, 'tasks/big'))).toBe(false);
    for (const [i, pattern] of ['tasks/*', 'tasks/b?g', 'tasks/[b]ig', 'tasks/big*'].entries()) {
      const dest = path.join(root, `glob-${i}`);
      await fetchGit({ url, dest, policy, limits, paths: [pattern] }).catch(() => undefined);
      expect(existsSync(path.join(dest, 'tasks/big')), pattern).toBe(false);
    }
  });

  it('refuses more files than allowed, naming the paths', async () => {
    const files = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`tasks/t/f${i}`, `${i}`]));
    const url = await bareRepo('many', files);
    await expect(
      fetchGit({
        url,
        dest: path.join(root, 'many'),
        policy,
        paths: ['tasks'],
        limits: { maxBytes: MiB, maxFiles: 10 },
      }),
    ).rejects.toThrow('the checkout of tasks would write 30 files, more than 10');
  });

  it('stops a download larger than the limit', async () => {
    const url = await bareRepo('noise', { 'noise.bin': randomBytes(12 * MiB) });
    const dest = path.join(root, 'noise');
    // stopped while it downloads, or refused once the tree is known: never checked out
    await expect(
      fetchGit({ url, dest, policy, limits: { maxBytes: 4 * MiB, maxFiles: 10 } }),
    ).rejects.toThrow(
      /(download passed \d+ bytes|checkout would write \d+ bytes), more than the limit of 4194304 bytes/,
    );
    expect(existsSync(path.join(dest, 'noise.bin'))).toBe(false);
    // the watch itself, on a folder past the limit
    expect(await downloadWatch(dest, { maxBytes: 1024, maxFiles: 1 })()).toMatch(
      /^the download passed \d+ bytes, more than the limit of 1024 bytes$/,
    );
  });

  it('reads sizes from ls-tree, counting only blobs under the sparse paths', () => {
    const listing = [
      '100644 blob aaaa     100\ta/x',
      '100644 blob bbbb     200\tb/y',
      '160000 commit cccc       -\ta/sub',
      '120000 blob dddd       3\ta/link',
      '',
    ].join('\0');
    expect(checkoutProblem(listing, ['a'], { maxBytes: 103, maxFiles: 2 })).toBeNull();
    expect(checkoutProblem(listing, ['a'], { maxBytes: 102, maxFiles: 2 })).toBe(
      'the checkout of a would write 103 bytes, more than the limit of 102 bytes',
    );
    expect(checkoutProblem(listing, [], { maxBytes: 1000, maxFiles: 2 })).toBe(
      'the checkout would write 3 files, more than 2',
    );
  });
});
