// Listing a folder of a source. Names are read as bytes: git keeps a file name as whatever
// bytes its author committed, and a name that is not UTF-8 would come back from a string
// listing with U+FFFD in it, naming a file that does not exist (every later lstat or read of it
// fails with ENOENT). Such a name is refused here, naming the file.
import type { Dirent } from 'node:fs';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { SourcePathError } from './source-path-error.ts';

export interface DirEntry {
  name: string;
  isFile(): boolean;
  isDirectory(): boolean;
  isSymbolicLink(): boolean;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The entries of `abs` (the folder `rel` of the source, '' for its root) with their UTF-8 names. */
export async function listDir(abs: string, rel: string): Promise<DirEntry[]> {
  const entries: Dirent<Buffer>[] = await readdir(abs, { withFileTypes: true, encoding: 'buffer' });
  return entries.map((e) => {
    let name: string;
    try {
      name = utf8.decode(e.name);
    } catch {
      const shown = path.posix.join(rel, e.name.toString('utf8'));
      throw new SourcePathError(
        shown,
        `${shown}: the file name is not valid UTF-8; rename it (names of task files must be UTF-8)`,
      );
    }
    return {
      name,
      isFile: () => e.isFile(),
      isDirectory: () => e.isDirectory(),
      isSymbolicLink: () => e.isSymbolicLink(),
    };
  });
}
