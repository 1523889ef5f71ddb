// The offending value in a run-config error message, quoted so the user sees what was wrong —
// but never what could be a secret: env values and header values are never quoted (they may be
// credentials), a `*_secret` field is quoted only when it looks like a record NAME written
// wrong (letters and '_' only, e.g. "openai_key": then the fix is shown; anything with a digit
// or a symbol may be a key and is described instead), and a URL only without credentials or query.
const MAX_QUOTED = 80;

function truncated(text: string): string {
  return text.length > MAX_QUOTED ? `${text.slice(0, MAX_QUOTED - 1)}…` : text;
}

/** A secret field's value that reads as a name (letters and '_' only, short), not as a key. */
function looksLikeName(value: string): boolean {
  return value.length <= 40 && /^[A-Za-z][A-Za-z_]*$/.test(value);
}

/**
 * The text to append to a message about the value at `path`: ` (got "…")`, or for a secret
 * field ` (got "openai_key"; did you mean "OPENAI_KEY"?)` / a note that it is not repeated, or ''.
 */
export function quoteConfigValue(path: readonly (string | number)[], value: unknown): string {
  const key = String(path[path.length - 1] ?? '');
  if (path.some((part) => part === 'env' || part === 'extra_headers')) return '';
  if (key.endsWith('_secret')) {
    if (typeof value !== 'string') return '';
    if (!looksLikeName(value)) return ' (the value is not repeated here: it may be a secret)';
    const upper = value.toUpperCase();
    const fix = upper !== value && /^[A-Z][A-Z0-9_]*$/.test(upper) ? `; did you mean "${upper}"?` : '';
    return ` (got ${JSON.stringify(value)}${fix})`;
  }
  if (typeof value === 'number' || typeof value === 'boolean') return ` (got ${String(value)})`;
  if (typeof value !== 'string') return '';
  if (key === 'base_url' || /:\/\//.test(value)) {
    // user:password@ or a query string can carry a credential
    if (value.includes('@') || value.includes('?'))
      return ' (the value is not repeated here: it may hold a credential)';
  }
  return ` (got ${JSON.stringify(truncated(value))})`;
}
