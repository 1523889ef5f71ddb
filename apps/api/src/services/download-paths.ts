// The paths a run's download names: the manifest's files and the artifact paths it may list.
import { isUuid } from '../auth.ts';

/**
 * A relative `/`-separated path made of plain segments (no empty, `.`, `..`, backslash, NUL or
 * control characters, no drive letter): the only artifact paths the manifest lists.
 */
export function isSafeRelativePath(p: string): boolean {
  if (p.length === 0 || p.length > 1024 || p.startsWith('/')) return false;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what we refuse
  if (/[\\\u0000-\u001f\u007f]/.test(p)) return false;
  if (/^[A-Za-z]:/.test(p)) return false;
  return p.split('/').every((s) => s !== '' && s !== '.' && s !== '..');
}

type FileRef =
  | { kind: 'summary' }
  | { kind: 'results' }
  | { kind: 'logs' }
  | { kind: 'lock' }
  | { kind: 'artifact'; attemptId: string; path: string };

export function parseFilePath(p: string): FileRef | null {
  if (p === 'summary.csv') return { kind: 'summary' };
  if (p === 'results.csv') return { kind: 'results' };
  if (p === 'logs.txt') return { kind: 'logs' };
  if (p === 'lock.json') return { kind: 'lock' };
  const m = /^artifacts\/([^/]+)\/(.+)$/.exec(p);
  if (!m || !isUuid(m[1] as string) || !isSafeRelativePath(m[2] as string)) return null;
  return { kind: 'artifact', attemptId: (m[1] as string).toLowerCase(), path: m[2] as string };
}
