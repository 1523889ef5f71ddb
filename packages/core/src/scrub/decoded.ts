// The input read with its escapes decoded. The forms list (forms.ts) holds each value escaped
// whole, but a hostile agent can escape only some characters (`s\u006b-l\u0069ve…`), mix
// notations, pad (`&#00115;`) or nest them (`%2573`): no list holds every mixture. So the
// scrubber also looks for each value in this reading of the input, where every escape is the
// character (or the bytes) it stands for, and maps what it finds back onto the escapes as written.
import type { Interval } from './match.ts';

/**
 * The escapes decoded, hex in either case. Repeated backslashes (`\\u0073`: escaped again inside
 * another string) and percent-encoded percents (`%2573`) count as one escape; HTML references may
 * be zero-padded and miss their `;` (browsers read both). Bounded repeats keep every escape short,
 * so a stream's hold-back stays bounded (MAX_ESCAPE_LENGTH).
 */
const ESCAPE =
  /\\{1,4}u\{0{0,4}([0-9a-f]{1,6})\}|\\{1,4}u([0-9a-f]{4})|\\{1,4}x([0-9a-f]{2})|\\{1,4}([0-7]{3})|%(?:25){0,3}([0-9a-f]{2})|&#x0{0,4}([0-9a-f]{1,6});?|&#0{0,4}([0-9]{1,7});?/gi;
/** A quick test before the full scan: most output holds none of these. */
const MARKER = /[\\%]|&#/;
/** The longest text ESCAPE matches (`\\\\u{0000` + six digits + `}`): bounds a stream's hold-back. */
export const MAX_ESCAPE_LENGTH = 16;

export interface Decoded {
  /** the input, every escape replaced by what it stands for */
  text: string;
  /** intervals of `text` as intervals of the input (an escape partly covered counts whole) */
  origin(intervals: readonly Interval[]): Interval[];
}

/** The byte (0–255) an escape stands for, or -1 when it stands for a code point. */
function byteOf(x2: string | undefined, oct: string | undefined, pct: string | undefined): number {
  if (x2 ?? pct) return Number.parseInt((x2 ?? pct) as string, 16);
  return oct ? Number.parseInt(oct, 8) : -1;
}

/** How many bytes a UTF-8 sequence starting with `lead` has (0: not a lead byte). */
const utf8Length = (lead: number) =>
  lead >= 0xf0 && lead < 0xf8 ? 4 : lead >= 0xe0 && lead < 0xf0 ? 3 : lead >= 0xc2 && lead < 0xe0 ? 2 : 0;

/** The same escapes, matched only where the previous one ended (a multi-byte character's next byte). */
const NEXT = new RegExp(ESCAPE.source, 'iy');

/** The character a byte escape at `end` starts, with the escapes of its continuation bytes written right after it. */
function utf8At(input: string, lead: number, from: number): { char: string; end: number } | null {
  const need = utf8Length(lead);
  if (!need) return null;
  const seq = [lead];
  let end = from;
  NEXT.lastIndex = from;
  for (let n = NEXT.exec(input); n && seq.length < need; n = NEXT.exec(input)) {
    const next = byteOf(n[3], n[4], n[5]);
    if (next < 0 || (next & 0xc0) !== 0x80) return null;
    seq.push(next);
    end = NEXT.lastIndex;
  }
  const char = seq.length === need ? Buffer.from(seq).toString('utf8') : '';
  return char && !char.includes('\uFFFD') ? { char, end } : null;
}

/**
 * `input` with its escapes decoded, or null when it holds none. `bytes`: `input` is a Buffer read
 * as latin1 (one unit a byte), so a code point escape becomes its UTF-8 bytes. Otherwise a byte
 * escape starting a UTF-8 sequence written wholly escaped (`%c3%a9`) becomes its character, and
 * any other byte one unit. What each escape became is kept as a span (four numbers, not an
 * object: an input may hold hundreds of thousands of escapes).
 */
export function decodeEscapes(input: string, bytes: boolean): Decoded | null {
  if (!MARKER.test(input)) return null;
  // per span: input start, input end, reading start, reading units
  const spans: number[] = [];
  // how far the reading is ahead of (+) or behind (-) the input, and where a multi-byte
  // character taken in one span ends (its continuation escapes are then dropped)
  let shift = 0;
  let taken = 0;
  const text = input.replace(ESCAPE, (whole: string, brace, u4, x2, oct, pct, hx, dec, index: number) => {
    if (index < taken) return '';
    const byte = byteOf(x2, oct, pct);
    let end = index + whole.length;
    let units: string;
    if (byte >= 0) {
      const utf8 = bytes ? null : utf8At(input, byte, end);
      units = utf8 ? utf8.char : String.fromCharCode(byte);
      if (utf8) taken = end = utf8.end;
    } else {
      const point = Number.parseInt(brace ?? u4 ?? hx ?? dec, dec ? 10 : 16);
      if (point > 0x10ffff) return whole;
      const c = String.fromCodePoint(point);
      units = bytes ? Buffer.from(c, 'utf8').toString('latin1') : c;
    }
    spans.push(index, end, index + shift, units.length);
    shift += units.length - (end - index);
    return units;
  });
  if (spans.length === 0) return null;
  const count = spans.length / 4;
  const field = (i: number, k: number) => spans[4 * i + k] as number;
  // the last span whose reading starts at or before `r`, or -1
  const spanAt = (r: number): number => {
    let lo = 0;
    let hi = count;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (field(mid, 2) <= r) lo = mid + 1;
      else hi = mid;
    }
    return lo - 1;
  };
  /** input index of reading unit `r`; `after`: the index just after it */
  const at = (r: number, after: boolean): number => {
    const i = spanAt(r);
    if (i < 0) return after ? r + 1 : r;
    const [start, end, read, units] = [field(i, 0), field(i, 1), field(i, 2), field(i, 3)];
    if (r < read + units) return after ? end : start;
    return end + (r - read - units) + (after ? 1 : 0);
  };
  return {
    text,
    origin: (intervals) => intervals.map(([a, b]) => [at(a, false), at(b - 1, true)]),
  };
}
