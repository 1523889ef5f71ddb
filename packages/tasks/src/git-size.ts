// How much a git fetch may bring onto the worker's disk. A repository is written by whoever
// hosts it: a few kilobytes of pack can hold gigabytes of zeros, and a pack itself can be as
// large as its host likes. So the download is measured while git runs (stopped past the limit),
// and what the checkout would write is summed from the fetched tree before one file is written.
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';

export interface GitSizeLimits {
  /** bytes the download may take, and the checkout may write */
  maxBytes: number;
  /** files the checkout may write */
  maxFiles: number;
  /** the settings that set them, named in messages */
  names?: { maxBytes?: string; maxFiles?: string };
}

const setBy = (name: string | undefined) => (name ? ` (the limit is set by ${name})` : '');

/** Bytes of the files under `dir` (a few thousand at most in a fresh .git: packs, refs, index). */
async function bytesUnder(dir: string): Promise<number> {
  let total = 0;
  const entries = await readdir(dir, { withFileTypes: true, recursive: true }).catch(() => []);
  for (const e of entries) {
    if (!e.isFile()) continue;
    const st = await stat(path.join(e.parentPath, e.name)).catch(() => null);
    total += st?.size ?? 0;
  }
  return total;
}

/** The watch of a fetch into `dest`: a message once its .git holds more than `limits.maxBytes`. */
export function downloadWatch(dest: string, limits: GitSizeLimits): () => Promise<string | null> {
  return async () => {
    const bytes = await bytesUnder(path.join(dest, '.git'));
    return bytes > limits.maxBytes
      ? `the download passed ${bytes} bytes, more than the limit of ${limits.maxBytes} bytes${setBy(limits.names?.maxBytes)}`
      : null;
  };
}

/**
 * Why the checkout of `paths` (all when empty) of a `git ls-tree -r -l -z --full-tree` listing
 * is too large, or null.
 */
export function checkoutProblem(listing: string, paths: string[], limits: GitSizeLimits): string | null {
  let bytes = 0;
  let files = 0;
  for (const record of listing.split('\0')) {
    const tab = record.indexOf('\t');
    if (tab < 0) continue;
    const [, type, , size] = record.slice(0, tab).trim().split(/\s+/);
    const file = record.slice(tab + 1);
    if (type !== 'blob') continue;
    if (paths.length > 0 && !paths.some((p) => file.startsWith(`${p}/`))) continue;
    files += 1;
    bytes += Number(size) || 0;
  }
  const where = paths.length > 0 ? ` of ${paths.join(', ')}` : '';
  if (files > limits.maxFiles) {
    return `the checkout${where} would write ${files} files, more than ${limits.maxFiles}${setBy(limits.names?.maxFiles)}`;
  }
  if (bytes > limits.maxBytes) {
    return `the checkout${where} would write ${bytes} bytes, more than the limit of ${limits.maxBytes} bytes${setBy(limits.names?.maxBytes)}`;
  }
  return null;
}
