// A sandbox's directories arrive with the first thing the platform puts in or runs, not with an
// upload of their own before the start.
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import tar from 'tar-stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox } from './create-sandbox.ts';
import { getDocker } from './docker.ts';
import type { Sandbox } from './sandbox.ts';

const IMAGE = 'osmosis/base:bookworm';
const scope = `test-${randomUUID()}`;
const DIRS = [
  { path: '/logs/agent', mode: 0o777 },
  { path: '/logs/verifier', mode: 0o777 },
];

/** The engine's view of a path, read without an exec: its tar header's type and mode, or null. */
async function engineStat(sandbox: Sandbox, p: string): Promise<{ type: string; mode: number } | null> {
  let archive: NodeJS.ReadableStream;
  try {
    archive = await getDocker().getContainer(sandbox.id).getArchive({ path: p });
  } catch (error) {
    if ((error as { statusCode?: number }).statusCode === 404) return null;
    throw error;
  }
  const extract = tar.extract();
  let first: { type: string; mode: number } | null = null;
  extract.on('entry', (header, stream, next) => {
    first ??= { type: header.type ?? '', mode: (header.mode ?? 0) & 0o7777 };
    stream.on('end', () => next());
    stream.resume();
  });
  await new Promise<void>((resolve, reject) => {
    extract.on('finish', resolve);
    extract.on('error', reject);
    archive.pipe(extract as unknown as NodeJS.WritableStream);
  });
  return first;
}

describe('deferred directories', () => {
  const made: Sandbox[] = [];
  let hostDir: string;
  beforeAll(async () => {
    hostDir = await mkdtemp(path.join(tmpdir(), 'osmosis-deferred-dirs-'));
    await writeFile(path.join(hostDir, 'test.sh'), 'echo hi\n');
  });
  afterAll(async () => {
    for (const s of made) await s.destroy();
    await rm(hostDir, { recursive: true, force: true });
  });
  const sandbox = async () => {
    const s = await createSandbox({
      image: IMAGE,
      scope,
      labels: { attempt: randomUUID() },
      directories: DIRS,
    });
    made.push(s);
    return s;
  };

  it('travel in the first upload (a folder) with their modes', async () => {
    const s = await sandbox();
    expect(await engineStat(s, '/logs/agent')).toBeNull();
    await s.putDir(hostDir, '/tests');
    expect(await engineStat(s, '/logs/agent')).toEqual({ type: 'directory', mode: 0o777 });
    expect(await engineStat(s, '/logs/verifier')).toEqual({ type: 'directory', mode: 0o777 });
    expect(await engineStat(s, '/tests/test.sh')).toMatchObject({ type: 'file' });
    // made once: an exec as another user writes into them
    const w = await s.exec('echo x > /logs/agent/a && stat -c %a /logs/verifier', { user: 'nobody' });
    expect(w).toMatchObject({ exitCode: 0, stdout: '777\n' });
  });

  it('travel in the first upload (files)', async () => {
    const s = await sandbox();
    await s.putFiles([{ path: '/logs/agent/seed.txt', content: 'seed' }]);
    expect(await engineStat(s, '/logs/agent')).toEqual({ type: 'directory', mode: 0o777 });
    expect(await engineStat(s, '/logs/verifier')).toEqual({ type: 'directory', mode: 0o777 });
  });

  it('are made before the first exec, even one as an unprivileged user', async () => {
    const s = await sandbox();
    const r = await s.exec('stat -c "%n %a" /logs/agent /logs/verifier && touch /logs/verifier/x', {
      user: 'nobody',
    });
    expect(r).toMatchObject({ exitCode: 0, stdout: '/logs/agent 777\n/logs/verifier 777\n' });
  });
});
