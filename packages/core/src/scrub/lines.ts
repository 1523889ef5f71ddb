// A value split across lines by whatever wrote it: `base64` wraps at 76 columns, PEM and
// `openssl base64` at 64, a terminal pane (terminus-2's tmux capture) at its width, Windows
// ends lines with \r\n. The scrubber also searches the text with its line breaks taken out and
// maps what it finds back onto the text as written, line breaks inside included.
import type { Interval } from './match.ts';

/** `haystack` without its \n and \r, and the map back; null when it has none. */
export interface Folded<H> {
  folded: H;
  /** where the folded index `f` was in the original */
  origin(f: number): number;
}

const isBreak = (code: number) => code === 0x0a || code === 0x0d;

function mapper(breaks: number[]): (f: number) => number {
  // after the j-th break (0-based, at original index b), folded index b - j is original b + 1
  const landing = breaks.map((b, j) => b - j);
  return (f) => {
    let lo = 0;
    let hi = landing.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((landing[mid] as number) <= f) lo = mid + 1;
      else hi = mid;
    }
    return f + lo;
  };
}

export function foldText(text: string): Folded<string> | null {
  if (!/[\r\n]/.test(text)) return null;
  const breaks: number[] = [];
  for (let i = 0; i < text.length; i++) if (isBreak(text.charCodeAt(i))) breaks.push(i);
  return { folded: text.replace(/[\r\n]/g, ''), origin: mapper(breaks) };
}

export function foldBytes(bytes: Buffer): Folded<Buffer> | null {
  if (!bytes.includes(0x0a) && !bytes.includes(0x0d)) return null;
  const breaks: number[] = [];
  for (let i = 0; i < bytes.length; i++) if (isBreak(bytes[i] as number)) breaks.push(i);
  const folded = Buffer.allocUnsafe(bytes.length - breaks.length);
  let from = 0;
  let to = 0;
  for (const b of breaks) {
    to += bytes.copy(folded, to, from, b);
    from = b + 1;
  }
  bytes.copy(folded, to, from);
  return { folded, origin: mapper(breaks) };
}

/** Intervals found in a folded haystack, as intervals of the original. */
export function unfold(intervals: readonly Interval[], origin: (f: number) => number): Interval[] {
  return intervals.map(([start, end]) => [origin(start), origin(end - 1) + 1]);
}
