// What a task's `[metadata]` table says of it, read leniently: a value of the wrong shape is absent.
import { TaskDifficulty } from '@osmosis/contracts';

/** `[metadata].difficulty` if it is easy, medium or hard (any case); otherwise null — never guessed. */
export function difficultyOf(metadata: Record<string, unknown>): TaskDifficulty | null {
  const raw = metadata.difficulty;
  if (typeof raw !== 'string') return null;
  const parsed = TaskDifficulty.safeParse(raw.trim().toLowerCase());
  return parsed.success ? parsed.data : null;
}

export function categoryOf(metadata: Record<string, unknown>): string | null {
  const raw = metadata.category;
  return typeof raw === 'string' && raw.trim() !== '' ? raw.trim() : null;
}

export function tagsOf(metadata: Record<string, unknown>): string[] {
  const raw = metadata.tags;
  return Array.isArray(raw) ? raw.filter((t): t is string => typeof t === 'string') : [];
}
