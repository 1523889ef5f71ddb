// Trial folder names as Harbor makes them, `<task[:32] without trailing _ and ->__<7 characters>`,
// with the 7 characters derived from the attempt id (so an export is the same every time) in
// shortuuid's alphabet. Task names are hostile: anything but letters, digits, `.`, `_` and `-`
// becomes `_` (as does a run of dots), and a name that would be empty or start with a dot is prefixed, so every trial
// name is one plain path segment.

const ALPHABET = '23456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const SHORT_ID_LENGTH = 7;

/** The attempt id in shortuuid's alphabet, `length` characters (from the id's 128 bits). */
function shortId(attemptId: string, length: number): string {
  let n = BigInt(`0x${attemptId.replace(/-/g, '') || '0'}`);
  const base = BigInt(ALPHABET.length);
  let out = '';
  for (let i = 0; i < length; i++) {
    out += ALPHABET[Number(n % base)];
    n /= base;
  }
  return out;
}

/** The task name as one safe path segment, cut as Harbor cuts it (32 characters, then `_`/`-` stripped). */
export function trialTaskPart(taskName: string): string {
  const cut = taskName
    .replace(/[^A-Za-z0-9._-]/g, '_')
    .replace(/\.{2,}/g, '_')
    .slice(0, 32)
    .replace(/[_-]+$/, '');
  return cut === '' || cut.startsWith('.') ? `task${cut}` : cut;
}

/**
 * A trial name for each attempt id, unique within the job: a clash of the 7 characters (or of
 * two hostile task names cut to one) takes more characters of the id.
 */
export function trialNames(attempts: readonly { id: string; taskName: string }[]): Map<string, string> {
  const names = new Map<string, string>();
  const taken = new Set<string>();
  for (const a of attempts) {
    const task = trialTaskPart(a.taskName);
    let length = SHORT_ID_LENGTH;
    let name = `${task}__${shortId(a.id, length)}`;
    while (taken.has(name)) {
      length += 1;
      name = `${task}__${shortId(a.id, length)}`;
    }
    taken.add(name);
    names.set(a.id, name);
  }
  return names;
}
