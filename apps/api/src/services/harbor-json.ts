// One JSON file of an imported Harbor job directory, read as hostile input: a regular file (never
// through a link), at most `maxBytes`, nesting at most MAX_JSON_DEPTH deep (counted on the text,
// before parsing), no NUL or lone surrogate in any text, then validated by a zod schema. Every
// refusal is a 400 naming the file and the field.
import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { type FieldIssue, MAX_JSON_DEPTH } from '@osmosis/contracts';
import type { z } from 'zod';
import { ApiError } from '../errors.ts';
import { findInputProblem } from '../input-rules.ts';

/** A job's or a trial's result.json or config.json is a few KiB; a trajectory is not read here. */
export const MAX_HARBOR_JSON_BYTES = 4 * 1024 * 1024;

export function importRefusal(file: string, message: string, field?: string): ApiError {
  const issue: FieldIssue = { path: field ? `${file}:${field}` : file, message };
  return ApiError.validation(`${field ? `${file}: ${field}` : file}: ${message}`, [issue]);
}

/** How deeply `text` nests arrays and objects, counted outside strings; stops past `limit`. */
export function textJsonDepth(text: string, limit: number): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      depth++;
      if (depth > deepest) deepest = depth;
      if (deepest > limit) return deepest;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return deepest;
}

/** The file's text, or null when it does not exist; a link, a folder or an oversized file is refused. */
export async function readBoundedText(abs: string, file: string, maxBytes: number): Promise<string | null> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(abs, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return null;
    if (code === 'ELOOP')
      throw importRefusal(file, 'is a link: a Harbor job directory holds the file itself');
    throw error;
  }
  try {
    const st = await handle.stat();
    if (!st.isFile()) throw importRefusal(file, 'is not a regular file');
    if (st.size > maxBytes)
      throw importRefusal(file, `is ${st.size} bytes; a Harbor JSON file may be at most ${maxBytes} bytes`);
    return (await handle.readFile()).toString('utf8');
  } finally {
    await handle.close();
  }
}

/** Parses and validates one JSON file; null when it does not exist. */
export async function readHarborJson<S extends z.ZodType>(
  abs: string,
  file: string,
  schema: S,
): Promise<z.infer<S> | null> {
  const text = await readBoundedText(abs, file, MAX_HARBOR_JSON_BYTES);
  if (text === null) return null;
  if (textJsonDepth(text, MAX_JSON_DEPTH) > MAX_JSON_DEPTH)
    throw importRefusal(file, `nests deeper than ${MAX_JSON_DEPTH} levels`);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw importRefusal(file, `is not valid JSON (${(error as Error).message})`);
  }
  const problem = findInputProblem(value, '$');
  if (problem) throw importRefusal(file, problem.message, problem.path);
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const field = issue.path.length ? issue.path.map(String).join('.') : '(top level)';
    throw importRefusal(file, issue.message, field);
  }
  return parsed.data;
}
