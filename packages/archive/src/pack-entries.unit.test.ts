// packEntries: named entries (bytes or streams opened on demand) into a tar.gz the extractor
// takes back whole, parent folders written once, the same entries giving the same bytes; a name
// the extractor would refuse, or a stream whose length is not the size given, fails the archive.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { extractArchive } from './extract.ts';
import { type EntrySource, packEntries } from './pack-entries.ts';

let base: string;
beforeAll(async () => {
  base = await mkdtemp(path.join(tmpdir(), 'osmosis-pack-entries-'));
});
afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

async function bytesOf(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

const entries = (): EntrySource[] => [
  { name: 'config.json', size: 2, content: Buffer.from('{}') },
  {
    name: 'trial__a/agent/log.txt',
    size: 5,
    content: async () => Readable.from([Buffer.from('he'), Buffer.from('llo')]),
  },
  { name: 'trial__a/verifier/reward.txt', size: 1, content: Buffer.from('1') },
];

describe('packEntries', () => {
  it('round-trips through the extractor, and is deterministic', async () => {
    const first = await bytesOf(packEntries(entries(), { gzip: true }));
    expect(await bytesOf(packEntries(entries(), { gzip: true }))).toEqual(first);
    const dest = path.join(base, 'out');
    const result = await extractArchive(first, dest);
    expect(result.files.map((f) => f.path).sort()).toEqual([
      'config.json',
      'trial__a/agent/log.txt',
      'trial__a/verifier/reward.txt',
    ]);
    expect(await readFile(path.join(dest, 'trial__a/agent/log.txt'), 'utf8')).toBe('hello');
  });

  for (const name of ['../x', '/abs', 'a/../../b', 'a//b', 'a\\b', '']) {
    it(`refuses the entry name ${JSON.stringify(name)}`, async () => {
      await expect(bytesOf(packEntries([{ name, size: 1, content: Buffer.from('x') }]))).rejects.toThrow();
    });
  }

  it('fails when a stream is shorter or longer than its size', async () => {
    const short: EntrySource = {
      name: 'a',
      size: 10,
      content: async () => Readable.from([Buffer.from('abc')]),
    };
    const long: EntrySource = {
      name: 'b',
      size: 1,
      content: async () => Readable.from([Buffer.from('abc')]),
    };
    await expect(bytesOf(packEntries([short]))).rejects.toThrow();
    await expect(bytesOf(packEntries([long]))).rejects.toThrow();
  });
});
