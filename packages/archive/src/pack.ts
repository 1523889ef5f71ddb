// Deterministic tar(.gz) of a folder: the same files always give the same bytes (names sorted,
// zero mtimes and owners, modes 0644/0755). Links are never followed: a symlink is stored as a
// symlink, the folder itself must not be a link, and files are opened with O_NOFOLLOW, so a
// packer never reads anything outside the folder it was given.
import { constants as fsConstants } from 'node:fs';
import { lstat, open, readdir, readlink } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import tar from 'tar-stream';

export interface PackOptions {
  gzip?: boolean;
  /** a folder every entry is placed under (`fixtures` → `fixtures/a/b`) */
  prefix?: string;
  /** names left out wherever they appear (`.git`) */
  exclude?: readonly string[];
}

export interface PackedEntry {
  /** relative path, POSIX separators */
  path: string;
  kind: 'directory' | 'file' | 'symlink';
  size: number;
  executable: boolean;
  /** symlink target as stored in the link */
  target?: string;
}

const EPOCH = new Date(0);

/**
 * Every folder, regular file and symlink under `root`, depth first with names sorted; links
 * are listed, not followed; sockets, fifos and devices are left out. Throws when `root` itself
 * is a link or not a folder.
 */
export async function listTree(root: string, exclude: readonly string[] = []): Promise<PackedEntry[]> {
  const st = await lstat(root);
  if (st.isSymbolicLink()) throw new Error(`${root} is a link; give the folder it points to`);
  if (!st.isDirectory()) throw new Error(`${root} is not a folder`);
  const skip = new Set(exclude);
  const out: PackedEntry[] = [];
  const visit = async (rel: string): Promise<void> => {
    const names = (await readdir(rel ? path.join(root, rel) : root)).sort();
    for (const name of names) {
      if (skip.has(name)) continue;
      const childRel = rel ? `${rel}/${name}` : name;
      const child = await lstat(path.join(root, childRel));
      if (child.isDirectory()) {
        out.push({ path: childRel, kind: 'directory', size: 0, executable: false });
        await visit(childRel);
      } else if (child.isSymbolicLink()) {
        const target = await readlink(path.join(root, childRel));
        out.push({ path: childRel, kind: 'symlink', size: 0, executable: false, target });
      } else if (child.isFile()) {
        out.push({ path: childRel, kind: 'file', size: child.size, executable: (child.mode & 0o111) !== 0 });
      }
    }
  };
  await visit('');
  return out;
}

/**
 * Streams a file into a tar entry (tar-stream's entries are streamx writables), opened with
 * O_NOFOLLOW: a file swapped for a link after the walk looked at it is not read through.
 */
export async function copyFileIntoEntry(
  file: string,
  sink: NodeJS.WritableStream & { readonly destroyed?: boolean },
): Promise<void> {
  const handle = await open(file, fsConstants.O_RDONLY | fsConstants.O_NOFOLLOW);
  const source = handle.createReadStream();
  try {
    for await (const chunk of source) {
      if (sink.write(chunk as Buffer)) continue;
      // a destroyed entry (the reader went away) never drains: stop reading then
      await new Promise((resolve) => {
        sink.once('drain', resolve);
        sink.once('close', resolve);
      });
      if (sink.destroyed) throw new Error(`packing ${file} stopped: the tar stream was closed`);
    }
    sink.end();
  } finally {
    source.destroy();
  }
}

/** A deterministic tar of `dir`'s contents; errors (a file that vanished, a link as root) fail the stream. */
export function packDirectory(dir: string, options: PackOptions = {}): Readable {
  const pack = tar.pack();
  const prefix = options.prefix ? options.prefix.replace(/^\/+|\/+$/g, '') : '';
  const named = (rel: string) => (prefix ? `${prefix}/${rel}` : rel);
  const common = { mtime: EPOCH, uid: 0, gid: 0 };
  const write = async () => {
    const entries = await listTree(dir, options.exclude);
    if (prefix) {
      const parts = prefix.split('/');
      for (let i = 1; i <= parts.length; i++) {
        pack.entry({ ...common, name: parts.slice(0, i).join('/'), type: 'directory', mode: 0o755 });
      }
    }
    for (const e of entries) {
      const name = named(e.path);
      if (e.kind === 'directory') {
        pack.entry({ ...common, name, type: 'directory', mode: 0o755 });
      } else if (e.kind === 'symlink') {
        pack.entry({ ...common, name, type: 'symlink', linkname: e.target ?? '', mode: 0o777 });
      } else {
        await new Promise<void>((resolve, reject) => {
          const sink = pack.entry(
            { ...common, name, type: 'file', mode: e.executable ? 0o755 : 0o644, size: e.size },
            (error) => (error ? reject(error) : resolve()),
          );
          copyFileIntoEntry(path.join(dir, e.path), sink).catch(reject);
        });
      }
    }
    pack.finalize();
  };
  write().catch((error: unknown) => pack.destroy(error instanceof Error ? error : new Error(String(error))));
  if (!options.gzip) return pack as unknown as Readable;
  const gzip = createGzip();
  pipeline(pack as unknown as Readable, gzip).catch((error: unknown) =>
    gzip.destroy(error instanceof Error ? error : new Error(String(error))),
  );
  return gzip;
}

/** packDirectory into memory. */
export async function packDirectoryBuffer(dir: string, options: PackOptions = {}): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of packDirectory(dir, options)) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
