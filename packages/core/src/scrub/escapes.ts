// The hex digits of escape sequences, in one case. Encoders disagree on the case of the hex they
// write (`%4a` or `%4A`, `\u00e9` or `\u00E9`), and a program can mix them (`%4a%4B`); a form
// listed in each case still missed the mixture. So the escaped forms are listed in small letters
// and searched for in the input with every escape's hex digits (and its `\U`, `\X`, `&#X`, `0X`
// marker) in small letters too — every other character as written, and every length kept, so
// what is found maps back onto the input one for one.

/** An escape whose hex digits could be in either case: %XX, \uXXXX, \xXX, &#xX…;, 0xXX. */
const ESCAPE = /%[0-9a-f]{2}|\\u[0-9a-f]{4}|\\x[0-9a-f]{2}|&#x[0-9a-f]+|0x[0-9a-f]{2}/gi;
/** Only an escape holding a capital needs rewriting: the common input has none and is not copied. */
const ESCAPE_WITH_CAPITAL =
  /%(?:[A-F][0-9a-fA-F]|[0-9a-f][A-F])|\\[uU][0-9a-fA-F]{0,3}[A-F]|\\U[0-9a-fA-F]{4}|\\[xX][0-9a-fA-F]?[A-F]|\\X[0-9a-fA-F]{2}|&#[xX][0-9a-fA-F]*[A-F]|&#X|0X[0-9a-fA-F]{2}|0x[0-9a-fA-F]?[A-F]/;

/** Whether `form` holds an escape (it is then searched for in escapesInSmallLetters' output). */
export function holdsEscape(form: string): boolean {
  ESCAPE.lastIndex = 0;
  return ESCAPE.test(form);
}

/** `text` with every escape's hex digits and marker in small letters; the same string when none needs it. */
export function escapesInSmallLetters(text: string): string {
  if (!ESCAPE_WITH_CAPITAL.test(text)) return text;
  return text.replace(ESCAPE, (m) => m.toLowerCase());
}

/** The same for bytes (read as latin1: one character a byte, so offsets are kept). */
export function escapeBytesInSmallLetters(bytes: Buffer): Buffer {
  const text = bytes.toString('latin1');
  const lowered = escapesInSmallLetters(text);
  return lowered === text ? bytes : Buffer.from(lowered, 'latin1');
}

// Hex with no prefix (`736B2d6c`, `73:6B:2d`) has no escape to find by: its forms are searched for
// in the input with every ASCII capital in small letters. Only those forms: the value itself and
// its base64 keep their case.

/** Whether `form` is plain hex (digits and separators only): searched for in the input in small letters. */
export function isPlainHex(form: string): boolean {
  return /^[0-9a-fA-F][0-9a-fA-F :-]*$/.test(form);
}

/** `text` with its ASCII capitals in small letters (every length kept, unlike toLowerCase on `İ`). */
export function asciiInSmallLetters(text: string): string {
  const lowered = text.toLowerCase();
  return lowered.length === text.length ? lowered : text.replace(/[A-Z]+/g, (m) => m.toLowerCase());
}

/** The same for bytes: only 'A'–'Z' change, so UTF-8 sequences and offsets are kept. */
export function asciiBytesInSmallLetters(bytes: Buffer): Buffer {
  const out = Buffer.from(bytes);
  for (let i = 0; i < out.length; i++) {
    const b = out[i] as number;
    if (b >= 0x41 && b <= 0x5a) out[i] = b | 0x20;
  }
  return out;
}
