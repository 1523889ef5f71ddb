// The differences between two values as dotted field paths (`tasks.hello.digest`,
// `agents.0.model.name`): what a refusal names when two locks do not match.
import { canonicalJson } from './canonical-json.ts';

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Every path where `a` and `b` differ, sorted; a member present on one side only is named too. */
export function diffFields(a: unknown, b: unknown, at = ''): string[] {
  if (isPlainObject(a) && isPlainObject(b)) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
    return keys.flatMap((k) => diffFields(a[k], b[k], at ? `${at}.${k}` : k));
  }
  const same = canonicalJson(a ?? null) === canonicalJson(b ?? null);
  return same ? [] : [at || '(root)'];
}
