// Finding needles in text or bytes and replacing every place any of them covers. Overlapping
// matches are merged before replacing, so a value inside its own escaped form (`a\` within
// `a\\`) never leaves half an escape sequence behind.

/** What both strings and Buffers offer for searching. */
interface Searchable<N> {
  readonly length: number;
  indexOf(needle: N, from: number): number;
}

export type Interval = [start: number, end: number];

/** Every [start, end) any needle covers, merged where they overlap or touch, in order. */
export function coveredIntervals<N extends { length: number }>(
  haystack: Searchable<N>,
  needles: readonly N[],
): Interval[] {
  const found: Interval[] = [];
  for (const needle of needles) {
    for (let at = haystack.indexOf(needle, 0); at >= 0; at = haystack.indexOf(needle, at + 1)) {
      found.push([at, at + needle.length]);
    }
  }
  return mergeIntervals(found);
}

/** `found` sorted and merged where intervals overlap or touch. */
export function mergeIntervals(found: Interval[]): Interval[] {
  if (found.length < 2) return found;
  found.sort((a, b) => a[0] - b[0] || b[1] - a[1]);
  const merged: Interval[] = [found[0]!];
  for (let i = 1; i < found.length; i++) {
    const last = merged[merged.length - 1]!;
    const next = found[i]!;
    if (next[0] <= last[1]) last[1] = Math.max(last[1], next[1]);
    else merged.push(next);
  }
  return merged;
}

export function replaceIntervals(text: string, intervals: readonly Interval[], marker: string): string {
  let out = '';
  let from = 0;
  for (const [start, end] of intervals) {
    out += text.slice(from, start) + marker;
    from = end;
  }
  return out + text.slice(from);
}

export function replaceIntervalsInBytes(
  bytes: Buffer,
  intervals: readonly Interval[],
  marker: Buffer,
): Buffer {
  const parts: Buffer[] = [];
  let from = 0;
  for (const [start, end] of intervals) {
    parts.push(bytes.subarray(from, start), marker);
    from = end;
  }
  parts.push(bytes.subarray(from));
  return Buffer.concat(parts);
}
