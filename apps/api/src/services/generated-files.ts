// The generated files of a download (summary.csv, results.csv, logs.txt, lock.json) as the routes serve
// them. A manifest needs each file's size and the download that follows asks for the same bytes,
// so what one pass learnt is kept briefly: the size of every file, and the bytes of small ones
// (up to 16 MiB each, 64 MiB in all; services/generated-file-cache.ts). A big file is generated
// again for each download and streamed page by page, so the API's memory stays flat whatever the
// run's size. The key pins the content: a snapshot by its as-of time (content as of a past
// instant: an `at` still in the future is not pinned, events may yet land before it), a terminal
// run by its status and finish time; entries live 30 s. Another API instance simply generates
// again.
import { Readable } from 'node:stream';
import { isTerminalRunStatus } from '@osmosis/core';
import type { Db } from '@osmosis/db';
import { logsTxtChunks, resultsCsvChunks, summaryCsv } from './download-csv.ts';
import { GeneratedFileCache } from './generated-file-cache.ts';
import { runLockFor } from './run-lock.ts';
import { loadRunResults, type RunForResults } from './run-results.ts';

export type GeneratedKind = 'summary' | 'results' | 'logs' | 'lock';

const cache = new GeneratedFileCache({
  ttlMs: 30_000,
  maxBytes: 64 * 1024 * 1024,
  maxEntries: 10_000,
});

function keyOf(run: RunForResults, kind: GeneratedKind, asOf: Date | null): string | null {
  if (asOf) return asOf.getTime() < Date.now() ? `${run.id}|${kind}|asof:${asOf.toISOString()}` : null;
  if (isTerminalRunStatus(run.status)) {
    return `${run.id}|${kind}|${run.status}:${run.finishedAt?.toISOString() ?? ''}`;
  }
  return null;
}

function remember(key: string | null, size: number, buf: Buffer | null): void {
  if (key) cache.remember(key, size, buf);
}

async function* chunksOf(
  db: Db,
  run: RunForResults,
  kind: GeneratedKind,
  asOf: Date | null,
): AsyncGenerator<Buffer> {
  if (kind === 'summary')
    yield Buffer.from(summaryCsv(await loadRunResults(db, run, asOf ?? undefined, asOf)));
  else if (kind === 'results') yield* resultsCsvChunks(db, run, asOf);
  else if (kind === 'lock') {
    // a run older than locks has none: an empty file, left out of the manifest
    const lock = await runLockFor(db, run.id);
    if (lock) yield Buffer.from(`${JSON.stringify(lock, null, 2)}\n`);
  } else yield* logsTxtChunks(db, run.id, asOf);
}

/** A generated file: its bytes when small and known, its size when known, and a fresh stream. */
export interface GeneratedFile {
  size: number | null;
  buf: Buffer | null;
  stream(): Readable;
}

/**
 * The file of `kind`. With `needSize` (a manifest, a range request) an unknown size is counted
 * by generating the file once (its bytes kept when small); else a file not seen yet has size
 * null and its stream records the size when it ends.
 */
export async function generatedFile(
  db: Db,
  run: RunForResults,
  kind: GeneratedKind,
  asOf: Date | null,
  needSize: boolean,
): Promise<GeneratedFile> {
  const key = keyOf(run, kind, asOf);
  const hit = key ? cache.get(key) : undefined;
  const fresh = () => Readable.from(chunksOf(db, run, kind, asOf), { objectMode: false });
  if (hit)
    return { size: hit.size, buf: hit.buf, stream: () => (hit.buf ? Readable.from([hit.buf]) : fresh()) };
  if (needSize) {
    let size = 0;
    const parts: Buffer[] = [];
    for await (const chunk of chunksOf(db, run, kind, asOf)) {
      size += chunk.length;
      if (size <= cache.maxKeptFile) parts.push(chunk);
      else parts.length = 0;
    }
    const buf = size <= cache.maxKeptFile ? Buffer.concat(parts) : null;
    remember(key, size, buf);
    return { size, buf, stream: () => (buf ? Readable.from([buf]) : fresh()) };
  }
  const counted = async function* (): AsyncGenerator<Buffer> {
    let size = 0;
    for await (const chunk of chunksOf(db, run, kind, asOf)) {
      size += chunk.length;
      yield chunk;
    }
    remember(key, size, null);
  };
  return { size: null, buf: null, stream: () => Readable.from(counted(), { objectMode: false }) };
}
