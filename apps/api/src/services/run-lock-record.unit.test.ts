import { isGitCommitId, type RunLockRecord } from '@osmosis/contracts';
import { describe, expect, it } from 'vitest';
import { lockSource } from './run-lock-record.ts';
import { changedTasks } from './run-reproduce.ts';

describe('the lock names a source without its credentials', () => {
  it('drops user, password and query from a git URL, and takes a full commit id as the commit', () => {
    const source = lockSource('git', {
      url: 'https://user:ghp_secret@example.test/org/repo.git?token=abc#frag',
      ref: 'a'.repeat(40),
      path: 'tasks',
    });
    expect(source.url).toBe('https://example.test/org/repo.git');
    expect(JSON.stringify(source)).not.toContain('secret');
    expect(JSON.stringify(source)).not.toContain('abc');
    expect(source.commit).toBe('a'.repeat(40));
    expect(lockSource('git', { url: 'https://example.test/r.git', ref: 'main' }).commit).toBeNull();
  });
  it('reads a hostile source description as nothing rather than failing', () => {
    expect(lockSource('git', { url: 42, ref: ['x'], path: { a: 1 } })).toEqual({
      kind: 'git',
      url: null,
      ref: null,
      commit: null,
      archive: null,
      path: null,
    });
    expect(lockSource('registry', null).kind).toBe('registry');
    expect(lockSource('archive', { archive_key: 'benchmarks/x.tar.gz' }).archive).toBe('benchmarks/x.tar.gz');
  });
});

describe("the lock's commit of a git source", () => {
  const git = { url: 'https://example.test/r.git', ref: 'main' };
  it('is the commit the last sync checked out, with the ref kept as asked', () => {
    const sha1 = '0123456789abcdef0123456789abcdef01234567';
    expect(lockSource('git', git, sha1)).toMatchObject({ ref: 'main', commit: sha1 });
    const sha256 = 'f'.repeat(64);
    expect(lockSource('git', git, sha256).commit).toBe(sha256);
    // a synced commit wins over a ref that names another one
    expect(lockSource('git', { ...git, ref: 'b'.repeat(40) }, sha1).commit).toBe(sha1);
  });
  it('never takes text that is not a full hex commit id', () => {
    const hostile = [
      'HEAD',
      'main',
      `${'a'.repeat(40)}\nextra`,
      `${'a'.repeat(40)} `,
      'a'.repeat(39),
      'a'.repeat(41),
      'a'.repeat(63),
      'A'.repeat(40),
      'g'.repeat(40),
      '<script>alert(1)</script>',
      '',
    ];
    for (const commit of hostile) {
      expect(lockSource('git', git, commit).commit, JSON.stringify(commit)).toBeNull();
      expect(isGitCommitId(commit), JSON.stringify(commit)).toBe(false);
    }
    expect(isGitCommitId(42)).toBe(false);
    expect(isGitCommitId(null)).toBe(false);
    // an archive or registry source has no commit, whatever is stored
    expect(lockSource('archive', { archive_key: 'k' }, 'a'.repeat(40)).commit).toBeNull();
    expect(lockSource('registry', { dataset: 'd' }, 'a'.repeat(40)).commit).toBeNull();
  });
});

describe('a reproduction names each task that differs from the lock', () => {
  const record = (tasks: [string, string][]) =>
    ({
      tasks: tasks.map(([name, digest]) => ({ name, digest, env_digest: 'e', image: null })),
    }) as RunLockRecord;
  it('names changed, gone and new tasks and nothing else', () => {
    const before = record([
      ['a', 'sha256:1'],
      ['b', 'sha256:2'],
      ['c', 'sha256:3'],
    ]);
    const now = record([
      ['a', 'sha256:1'],
      ['b', 'sha256:9'],
      ['d', 'sha256:4'],
    ]);
    const changed = changedTasks(before, now);
    expect(changed).toHaveLength(3);
    expect(changed[0]).toMatch(/^tasks\.b\.digest/);
    expect(changed[1]).toMatch(/^tasks\.c \(gone/);
    expect(changed[2]).toMatch(/^tasks\.d \(new/);
    expect(changedTasks(before, before)).toEqual([]);
  });
});
