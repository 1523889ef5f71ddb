// The forms a secret value takes once a program re-encodes it. Whatever an agent, a verifier or
// the platform's own code writes (a JSON document, an error built with JSON.stringify, a URL, a
// hex dump, a base64 blob), the scrubber looks for each of these, not only for the value.
import { holdsEscape } from './escapes.ts';

/** Why a form is on the list (tests and docs name them). */
export type ScrubFormKind =
  | 'raw'
  | 'reversed'
  | 'json'
  | 'unicode'
  | 'url'
  | 'hex'
  | 'html'
  | 'base64'
  | 'base64url';

export interface ScrubForm {
  kind: ScrubFormKind;
  text: string;
  /**
   * The form holds escapes (`%4a`, `\u00e9`, `\x4a`, `&#x4a;`, `0x4a`), listed with small hex
   * digits and matched with their hex digits in either case (escapes.ts). The value itself and
   * its base64 are matched as written: there case is the data.
   */
  escaped: boolean;
}

// hex in small letters: the escaped forms' case is matched either way (escapes.ts)
const hex2 = (byte: number): string => byte.toString(16).padStart(2, '0');
const hex4 = (code: number): string => code.toString(16).padStart(4, '0');

/** The inside of a JSON string literal (JSON.stringify without its quotes). */
export function jsonEscape(value: string): string {
  return JSON.stringify(value).slice(1, -1);
}

/**
 * JSON encoders disagree on what they escape: JSON.stringify escapes `"`, `\` and control
 * characters; Python's json.dumps also every non-ASCII character (`\u00e9`), Go's HTML-safe
 * encoder `<`, `>`, `&` (and `'` in some libraries), PHP `/`; Java libraries write the hex in
 * capitals. A value embedded in JSON embedded in JSON (an error message stored in an event's
 * details, then logged) is escaped twice.
 */
function jsonForms(value: string): string[] {
  const once = jsonEscape(value);
  const out = [once, jsonEscape(once)];
  const unicode = (c: string) => `\\u${hex4(c.charCodeAt(0))}`;
  out.push(once.replace(/[\u0080-\uffff]/g, unicode));
  out.push(once.replace(/[<>&']/g, unicode));
  out.push(once.replace(/[\u0080-\uffff<>&']/g, unicode));
  out.push(once.replaceAll('/', '\\/'));
  return out;
}

/**
 * Every UTF-16 unit as `\uXXXX`: what an encoder that escapes everything writes, or a program
 * keeping a value from a plain search; also escaped once more (inside another JSON string).
 */
function unicodeForms(value: string): string[] {
  let all = '';
  for (let i = 0; i < value.length; i++) all += `\\u${hex4(value.charCodeAt(i))}`;
  return [all, all.replaceAll('\\', '\\\\')];
}

/**
 * Byte dumps: every UTF-8 byte as hex between separators or behind prefixes (xxd and od columns,
 * colons, Python's bytes repr `\x73`, C arrays `0x73, 0x6b`), and every character as an HTML
 * character reference, decimal or hex (an HTML error page, a template). Hex with no prefix has no
 * escape to find the case by: it is listed in small and in capital letters.
 */
function dumpForms(value: string): { kind: ScrubFormKind; text: string }[] {
  const pairs = [...Buffer.from(value, 'utf8')].map((b) => hex2(b));
  const codes = [...value].map((c) => c.codePointAt(0) as number);
  const plain = [pairs.join(''), pairs.join(':'), pairs.join(' '), pairs.join('-')];
  return [
    ...plain.flatMap((text) => [
      { kind: 'hex' as const, text },
      { kind: 'hex' as const, text: text.toUpperCase() },
    ]),
    { kind: 'hex', text: pairs.map((p) => `\\x${p}`).join('') },
    { kind: 'hex', text: pairs.map((p) => `0x${p}`).join(', ') },
    { kind: 'hex', text: pairs.map((p) => `0x${p}`).join(',') },
    { kind: 'html', text: codes.map((c) => `&#${c};`).join('') },
    { kind: 'html', text: codes.map((c) => `&#x${c.toString(16)};`).join('') },
  ];
}

/** Percent-encodes every UTF-8 byte of `value` except ASCII letters, digits and `keep`. */
function percentEncode(value: string, keep: string, spaceAsPlus: boolean): string {
  let out = '';
  for (const byte of Buffer.from(value, 'utf8')) {
    const c = String.fromCharCode(byte);
    if (/[A-Za-z0-9]/.test(c) || (byte < 0x80 && keep.includes(c))) out += c;
    else if (byte === 0x20 && spaceAsPlus) out += '+';
    else out += `%${hex2(byte)}`;
  }
  return out;
}

/**
 * URL encoders: RFC 3986 (only unreserved characters kept), encodeURIComponent, encodeURI,
 * Python's quote (keeps `/`), the form encoding of URLSearchParams and quote_plus (space as `+`),
 * and every byte encoded (letters and digits too).
 */
function urlForms(value: string): string[] {
  const keeps = [
    '-._~', // RFC 3986 unreserved
    "-_.!~*'()", // encodeURIComponent
    "-_.!~*'();/?:@&=+$,#", // encodeURI
    '-._~/', // Python quote()
    '*-._', // WHATWG application/x-www-form-urlencoded
  ];
  const out: string[] = [];
  for (const keep of keeps) for (const plus of [false, true]) out.push(percentEncode(value, keep, plus));
  // every byte, letters and digits too
  out.push([...Buffer.from(value, 'utf8')].map((b) => `%${hex2(b)}`).join(''));
  return out;
}

/**
 * The part of a base64 encoding that depends on `bytes` alone, when they sit at `offset` (0, 1
 * or 2) modulo 3 inside a longer blob: characters mixing bits of the bytes around are left out.
 */
export function base64Core(bytes: Buffer, offset: number, alphabet: 'base64' | 'base64url'): string {
  const padded = Buffer.concat([Buffer.alloc(offset), bytes, Buffer.alloc(3)]);
  const encoded = padded.toString(alphabet === 'base64' ? 'base64' : 'base64url');
  const start = Math.ceil((8 * offset) / 6);
  const end = Math.floor((8 * (offset + bytes.length)) / 6);
  return encoded.slice(start, end);
}

/**
 * Every form of `value` the scrubber looks for, deduplicated, the value itself first. Forms
 * shorter than `minLength` are left out (a two-character base64 fragment would mask ordinary
 * text, and says little of the value).
 */
export function scrubForms(value: string, minLength: number): ScrubForm[] {
  const bytes = Buffer.from(value, 'utf8');
  const asWritten = (kind: ScrubFormKind, text: string): ScrubForm => ({ kind, text, escaped: false });
  const encoded = (kind: ScrubFormKind, text: string): ScrubForm => ({
    kind,
    text,
    escaped: holdsEscape(text),
  });
  const candidates: ScrubForm[] = [
    asWritten('raw', value),
    asWritten('reversed', [...value].reverse().join('')),
  ];
  for (const text of jsonForms(value)) candidates.push(encoded('json', text));
  for (const text of unicodeForms(value)) candidates.push(encoded('unicode', text));
  for (const text of urlForms(value)) candidates.push(encoded('url', text));
  for (const { kind, text } of dumpForms(value)) candidates.push(encoded(kind, text));
  for (const alphabet of ['base64', 'base64url'] as const)
    for (const offset of [0, 1, 2]) candidates.push(asWritten(alphabet, base64Core(bytes, offset, alphabet)));
  const seen = new Set<string>();
  const forms: ScrubForm[] = [];
  for (const form of candidates) {
    const key = `${form.escaped}:${form.text}`;
    if (form.text.length < minLength || seen.has(key)) continue;
    seen.add(key);
    forms.push(form);
  }
  return forms;
}
