// Locating keys in the TOML text (best effort: for messages only).
import { type ConfigPathPart, formatConfigPath } from './config-path.ts';

function unquote(s: string): string {
  const t = s.trim();
  if ((t.startsWith('"') && t.endsWith('"')) || (t.startsWith("'") && t.endsWith("'"))) return t.slice(1, -1);
  return t;
}

function splitDotted(s: string): string[] {
  const parts: string[] = [];
  let cur = '';
  let quote: string | null = null;
  for (const ch of s) {
    if (quote) {
      if (ch === quote) quote = null;
      cur += ch;
    } else if (ch === '"' || ch === "'") {
      quote = ch;
      cur += ch;
    } else if (ch === '.') {
      parts.push(unquote(cur));
      cur = '';
    } else cur += ch;
  }
  parts.push(unquote(cur));
  return parts;
}

/** 1-based line and column of the key (or table header) at `path`, or of its nearest parent. */
export function locateInToml(
  text: string,
  path: readonly ConfigPathPart[],
): { line: number; column: number } | undefined {
  const lines = text.split(/\r?\n/);
  const target = formatConfigPath(path);
  let table: ConfigPathPart[] = [];
  let agentIndex = -1;
  let best: { line: number; column: number; depth: number } | undefined;
  const consider = (p: ConfigPathPart[], line: number, column: number) => {
    const f = formatConfigPath(p);
    if (f === target) {
      if (!best || best.depth < Number.POSITIVE_INFINITY)
        best = { line, column, depth: Number.POSITIVE_INFINITY };
      return;
    }
    if (target.startsWith(f) && (target[f.length] === '.' || target[f.length] === '[')) {
      if (!best || p.length > best.depth) best = { line, column, depth: p.length };
    }
  };
  for (let i = 0; i < lines.length; i++) {
    const rawLine = lines[i]!;
    const trimmed = rawLine.trimStart();
    const column = rawLine.length - trimmed.length + 1;
    if (trimmed === '' || trimmed.startsWith('#')) continue;
    const arrayHeader = /^\[\[\s*([^\]]+?)\s*\]\]/.exec(trimmed);
    const header = arrayHeader ? undefined : /^\[\s*([^\]]+?)\s*\]/.exec(trimmed);
    if (arrayHeader) {
      const parts = splitDotted(arrayHeader[1]!);
      if (parts.length === 1 && parts[0] === 'agents') {
        agentIndex++;
        table = ['agents', agentIndex];
      } else table = parts;
      consider(table, i + 1, column);
      continue;
    }
    if (header) {
      const parts = splitDotted(header[1]!);
      table = parts[0] === 'agents' && agentIndex >= 0 ? ['agents', agentIndex, ...parts.slice(1)] : parts;
      consider(table, i + 1, column);
      continue;
    }
    const keyMatch =
      /^((?:"[^"]*"|'[^']*'|[A-Za-z0-9_-]+)(?:\s*\.\s*(?:"[^"]*"|'[^']*'|[A-Za-z0-9_-]+))*)\s*=/.exec(
        trimmed,
      );
    if (keyMatch) consider([...table, ...splitDotted(keyMatch[1]!)], i + 1, column);
  }
  return best ? { line: best.line, column: best.column } : undefined;
}
