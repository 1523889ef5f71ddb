// Reading a CLI's output files out of the sandbox a piece at a time: the file stays whole in
// /logs/agent (collected as an artifact), and the harness feeds its lines to a usage reader
// without holding it in memory. A file is read in chunks of CHUNK_BYTES through `tail | head` as
// root; each chunk is cut after its last newline (the partial line is read again with the next
// chunk), and a line longer than a chunk is skipped (usage lines are short).
import type { HarnessSandbox } from '../harness.ts';
import type { LineReader } from './parsers.ts';

const CHUNK_BYTES = 1024 * 1024;
/** Beyond this much of one file, the rest is not read (the CLI's usage so far is kept). */
const MAX_FILE_BYTES = 512 * 1024 * 1024;

/** Feeds every line of the regular file at `path` to `reader`; false when there is no such file. */
export async function readSandboxLines(
  sandbox: HarnessSandbox,
  path: string,
  reader: LineReader,
  signal?: AbortSignal,
): Promise<boolean> {
  let offset = 0;
  let skipping = false;
  let first = true;
  while (offset < MAX_FILE_BYTES) {
    if (signal?.aborted) return !first;
    // a FIFO or device at the path would block: only regular files are read
    const r = await sandbox.exec(
      [
        '/bin/sh',
        '-c',
        'test -f "$2" && ! test -L "$2" || exit 3; tail -c +"$1" -- "$2" | head -c "$3"',
        'sh',
        String(offset + 1),
        path,
        String(CHUNK_BYTES),
      ],
      { user: '0', timeoutMs: 60_000, maxOutputBytes: CHUNK_BYTES + 1024, ...(signal ? { signal } : {}) },
    );
    if (r.exitCode === 3 && first) return false;
    if (r.exitCode !== 0 || r.timedOut) return !first;
    if (first) {
      reader.file?.(path);
      first = false;
    }
    const text = r.stdout;
    if (text.length === 0) break;
    const end = text.lastIndexOf('\n');
    const bytes = Buffer.byteLength(text, 'utf8');
    if (end < 0) {
      // no newline in a whole chunk: the end of the file, or a line longer than a chunk
      if (bytes < CHUNK_BYTES) {
        if (!skipping) reader.line(text);
        break;
      }
      skipping = true;
      offset += CHUNK_BYTES;
      continue;
    }
    const lines = text.slice(0, end).split('\n');
    if (skipping) lines.shift();
    skipping = false;
    for (const line of lines) reader.line(line);
    offset += Buffer.byteLength(text.slice(0, end + 1), 'utf8');
    if (bytes < CHUNK_BYTES) {
      const rest = text.slice(end + 1);
      if (rest) reader.line(rest);
      break;
    }
  }
  return true;
}

/** Regular files under `dir` (not following links) whose name matches `name` (find -name), sorted. */
export async function findSandboxFiles(
  sandbox: HarnessSandbox,
  dir: string,
  name: string,
): Promise<string[]> {
  const r = await sandbox.exec(['find', dir, '-type', 'f', '-name', name], { user: '0', timeoutMs: 60_000 });
  if (r.exitCode !== 0 && !r.stdout) return [];
  return r.stdout
    .split('\n')
    .filter((p) => p.startsWith(`${dir}/`))
    .sort()
    .slice(0, 1000);
}
