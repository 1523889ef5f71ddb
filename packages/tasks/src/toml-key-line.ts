// Where a key is set in the text of a TOML file, for error messages that name the line.
/** The 1-based line where `key` of `[table]` is set in `text`, or where the table starts. */
export function findKeyLine(text: string, table: string, key: string | null): number | null {
  const lines = text.split(/\r?\n/);
  let current = '';
  let tableLine: number | null = null;
  const keyRe = key
    ? new RegExp(`^\\s*["']?${key.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}["']?\\s*[=.]`)
    : null;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    const header = /^\s*\[\[?\s*([^\]]+?)\s*\]\]?/.exec(line);
    if (header) {
      current = (header[1] ?? '').replace(/["'\s]/g, '');
      if (current === table && tableLine === null) tableLine = i + 1;
      continue;
    }
    if (current === table && keyRe?.test(line)) return i + 1;
    // dotted keys at top level: `environment.memory = ...`
    if (
      current === '' &&
      table !== '' &&
      key &&
      new RegExp(`^\\s*${table.replace(/\./g, '\\.')}\\.${key}\\s*=`).test(line)
    ) {
      return i + 1;
    }
  }
  return tableLine;
}
