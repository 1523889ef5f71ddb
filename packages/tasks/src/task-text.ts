// The text files of a task the platform reads itself (task.toml, instruction.md, a compose
// file, benchmark.toml) come from a benchmark author: they are read only up to a size no real
// task needs, and refused when they hold a NUL (Postgres text and jsonb cannot store one, and
// no text file has one) — as a problem naming the file, so one bad task never fails the sync
// of the others with an error of the database.
import { readFile } from 'node:fs/promises';

/** task.toml, instruction.md, a compose file or benchmark.toml larger than this is not read. */
export const MAX_TASK_TEXT_BYTES = 4 * 1024 * 1024;

export type TaskText = { text: string; problem: null } | { text: null; problem: string };

/** Why `text` of the file `rel` cannot be stored, or null. */
export function textFileProblem(rel: string, text: string): string | null {
  const nul = text.indexOf('\u0000');
  if (nul < 0) return null;
  const line = text.slice(0, nul).split('\n').length;
  return `${rel}: line ${line} holds a NUL byte; task text files must be text without NUL`;
}

/** The text of `file` (shown as `rel`) of `size` bytes, or the problem that keeps it unread. */
export async function readTaskText(file: string, rel: string, size: number): Promise<TaskText> {
  if (size > MAX_TASK_TEXT_BYTES) {
    return {
      text: null,
      problem: `${rel} is ${size} bytes; it may be at most ${MAX_TASK_TEXT_BYTES} bytes (${MAX_TASK_TEXT_BYTES / 1024 / 1024} MiB)`,
    };
  }
  const text = await readFile(file, 'utf8');
  const problem = textFileProblem(rel, text);
  return problem ? { text: null, problem } : { text, problem: null };
}

/**
 * Where a parsed document (TOML, YAML) holds a NUL in a string or a key: the path to it, e.g.
 * `['metadata', 'tags', '1']`, or null. Iterative, so a deep document cannot exhaust the stack.
 */
export function nulPath(doc: unknown): string[] | null {
  const stack: { value: unknown; path: string[] }[] = [{ value: doc, path: [] }];
  while (stack.length > 0) {
    const { value, path } = stack.pop() as { value: unknown; path: string[] };
    if (typeof value === 'string') {
      if (value.includes('\u0000')) return path;
      continue;
    }
    if (value === null || typeof value !== 'object' || value instanceof Date) continue;
    const entries = Array.isArray(value)
      ? value.map((v, i) => [String(i), v] as const)
      : Object.entries(value);
    for (const [key, child] of entries) {
      if (key.includes('\u0000')) return [...path, key];
      stack.push({ value: child, path: [...path, key] });
    }
  }
  return null;
}
