// lstat that says "nothing there" with null: the checks of what an archive or a task folder holds
// ask it of names that may not exist yet, and must still see a link as a link.
import type { Stats } from 'node:fs';
import { lstat } from 'node:fs/promises';

/** The entry at `p` itself (a link is not followed), or null when there is none. */
export async function lstatOrNull(p: string): Promise<Stats | null> {
  try {
    return await lstat(p);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}
