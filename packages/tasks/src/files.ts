// Walking a task folder and hashing its content.
import { createHash } from 'node:crypto';
import { constants } from 'node:fs';
import { lstat, open, readlink } from 'node:fs/promises';
import path from 'node:path';
import { listDir } from './dir-entries.ts';

export interface WalkedFile {
  /** path relative to the walked root, with `/` separators */
  path: string;
  kind: 'file' | 'symlink';
  size: number;
  executable: boolean;
  /** symlink target, as stored in the link */
  target?: string;
}

const SKIPPED = new Set(['.git']);
/** a file of the walk is read as the file it was, never through a link put in its place */
const NOFOLLOW = constants.O_RDONLY | constants.O_NOFOLLOW;

/**
 * Every regular file and symlink under `root`, sorted by path. Directories are implied. Links
 * are listed, never followed (nor is `root`, which must be a real folder), so a walk — and the
 * digest and tar made from it — never reads outside the task.
 */
export async function walkFiles(root: string): Promise<WalkedFile[]> {
  const top = await lstat(root);
  if (!top.isDirectory()) throw new Error(`${root} is ${top.isSymbolicLink() ? 'a link' : 'not a folder'}`);
  const out: WalkedFile[] = [];
  async function visit(rel: string): Promise<void> {
    const abs = rel ? path.join(root, rel) : root;
    const entries = await listDir(abs, rel);
    for (const entry of entries) {
      const childRel = rel ? `${rel}/${entry.name}` : entry.name;
      const childAbs = path.join(abs, entry.name);
      if (SKIPPED.has(entry.name)) continue;
      if (entry.isDirectory()) {
        await visit(childRel);
      } else if (entry.isSymbolicLink()) {
        const target = await readlink(childAbs);
        out.push({ path: childRel, kind: 'symlink', size: 0, executable: false, target });
      } else if (entry.isFile()) {
        const st = await lstat(childAbs);
        out.push({ path: childRel, kind: 'file', size: st.size, executable: (st.mode & 0o111) !== 0 });
      }
      // sockets, fifos and devices are not task content: ignored
    }
  }
  await visit('');
  out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return out;
}

/**
 * sha256 over the sorted relative paths, kinds, executable bits and bytes of `files`: the same
 * files give the same digest wherever and whenever they are read. `extra` (e.g. image settings)
 * is mixed in last.
 */
export async function digestFiles(root: string, files: WalkedFile[], extra?: string): Promise<string> {
  const hash = createHash('sha256');
  for (const file of files) {
    hash.update(file.path).update('\0');
    if (file.kind === 'symlink') {
      hash
        .update('l\0')
        .update(file.target ?? '')
        .update('\0');
      continue;
    }
    // streamed: a task's file may be hundreds of MiB, and a worker syncs several at once
    hash
      .update(file.executable ? 'x\0' : 'f\0')
      .update(String(file.size))
      .update('\0');
    let read = 0;
    const handle = await open(path.join(root, file.path), NOFOLLOW);
    for await (const chunk of handle.createReadStream()) {
      read += (chunk as Buffer).length;
      hash.update(chunk as Buffer);
    }
    if (read !== file.size) throw new Error(`${file.path} changed while it was read`);
    hash.update('\0');
  }
  if (extra !== undefined) hash.update('extra\0').update(extra);
  return `sha256:${hash.digest('hex')}`;
}
