// Paths of keys in a run config (`agents[0].model.type`) and how messages name their table.
export type ConfigPathPart = string | number;

export function formatConfigPath(path: readonly ConfigPathPart[]): string {
  let out = '';
  for (const p of path) {
    if (typeof p === 'number') out += `[${p}]`;
    else out += out === '' ? p : `.${p}`;
  }
  return out;
}

/** "agent 1 (harness terminus-2)" style naming is done by callers; this names the table of a key. */
/** Inverse of formatConfigPath: `agents[0].model.type` → ['agents', 0, 'model', 'type']. */
export function parseConfigPath(path: string): ConfigPathPart[] {
  const parts: ConfigPathPart[] = [];
  for (const m of path.matchAll(/([^.[\]]+)|\[(\d+)\]/g))
    parts.push(m[2] !== undefined ? Number(m[2]) : m[1]!);
  return parts;
}

export function describeTable(path: readonly ConfigPathPart[]): string {
  // path points at a key; the table is everything before it
  const table = path.slice(0, -1);
  if (table.length === 0) return 'the top level';
  if (table[0] === 'agents' && typeof table[1] === 'number') {
    const agent = `agent ${table[1] + 1}`;
    const rest = table.slice(2).filter((p): p is string => typeof p === 'string');
    if (rest.length === 0) return `[[agents]] (${agent})`;
    return `[agents.${rest.join('.')}] of ${agent}`;
  }
  return `[${table.filter((p) => typeof p === 'string').join('.')}]`;
}
