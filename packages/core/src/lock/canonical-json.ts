// Canonical JSON: object keys sorted at every depth, no whitespace, `undefined` members left out.
// Two values that mean the same give the same text, whatever order their keys were written in.

/** The canonical JSON text of `value` (throws for values JSON cannot hold: functions, NaN, cycles). */
export function canonicalJson(value: unknown): string {
  return write(value, new Set());
}

function write(value: unknown, seen: Set<object>): string {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return JSON.stringify(value);
    case 'number':
      if (!Number.isFinite(value)) throw new Error(`canonical JSON cannot hold the number ${value}`);
      return JSON.stringify(value);
    case 'object':
      break;
    default:
      throw new Error(`canonical JSON cannot hold a ${typeof value}`);
  }
  const obj = value as object;
  if (seen.has(obj)) throw new Error('canonical JSON cannot hold a cycle');
  seen.add(obj);
  let text: string;
  if (Array.isArray(obj)) {
    text = `[${obj.map((v) => (v === undefined ? 'null' : write(v, seen))).join(',')}]`;
  } else {
    const entries = Object.entries(obj)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    text = `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${write(v, seen)}`).join(',')}}`;
  }
  seen.delete(obj);
  return text;
}
