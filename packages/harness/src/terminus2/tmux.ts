// The terminal of terminus-2: a tmux session in the sandbox, driven by exec, behaving as the
// reference's TmuxSession (Harbor 331dcba, src/harbor/agents/terminus_2/tmux_session.py):
// how the shell starts, how keystrokes reach it, how new output is found.
import { formatTemplate, type TemplateSet } from './templates.ts';

/** What the terminal needs from a sandbox (the sandbox package's `Sandbox` fits). */
export interface ExecHost {
  exec(
    cmd: string | string[],
    options?: {
      timeoutMs?: number;
      env?: Record<string, string>;
      signal?: AbortSignal;
      user?: string;
      workdir?: string;
    },
  ): Promise<{ exitCode: number | null; stdout: string; stderr: string; timedOut: boolean }>;
}

/** tmux drops commands over ~16 KB; the reference keeps each send-keys under this (L17–20). */
export const TMUX_SEND_KEYS_MAX_COMMAND_LENGTH = 16_000;
export const SESSION_NAME = 'terminus-2';
/** Where the pane's output is piped (reference: EnvironmentPaths.agent_dir / "terminus_2.pane"). */
export const PANE_LOG_PATH = '/logs/agent/terminus_2.pane';

const SHLEX_SAFE = /^[\w@%+=:,./-]+$/;

/** Python's shlex.quote. */
export function shlexQuote(s: string): string {
  if (s === '') return "''";
  if (SHLEX_SAFE.test(s)) return s;
  return `'${s.replace(/'/g, `'"'"'`)}'`;
}

/** How one send-keys is built: `--` before the keys, and the unit its length is measured in. */
export interface SendKeysStyle {
  endOfOptions: boolean;
  length: 'chars' | 'utf8-bytes';
}

/** Harbor 0.6.4's send-keys (ref L341–410): no `--`, lengths in characters (code points). */
export const SEND_KEYS_064: SendKeysStyle = { endOfOptions: false, length: 'chars' };

/** Python's len(): code points; in bytes, the UTF-8 length. */
const codePoints = (s: string) => {
  let n = s.length;
  for (let i = 0; i < s.length; i++) if ((s.charCodeAt(i) & 0xfc00) === 0xd800) n--;
  return n;
};
const measure = (style: SendKeysStyle) =>
  style.length === 'utf8-bytes' ? (s: string) => Buffer.byteLength(s, 'utf8') : codePoints;

/** Splits one key into pieces whose quoted form fits `maxQuoted`, between code points as Python slices a str (ref L394–410). */
function splitKey(key: string, maxQuoted: number, style: SendKeysStyle): string[] {
  const len = measure(style);
  const units = Array.from(key);
  const chunks: string[] = [];
  let at = 0;
  while (at < units.length) {
    let lo = 1;
    let hi = units.length - at;
    let best = 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (len(shlexQuote(units.slice(at, at + mid).join(''))) <= maxQuoted) {
        best = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    chunks.push(units.slice(at, at + best).join(''));
    at += best;
  }
  return chunks;
}

/**
 * The `send-keys` calls for these keys, each a list of key arguments: one call when the quoted
 * command fits the limit, else keys spread over several, over-long keys split (ref L341–392;
 * Harbor 0.9 L350–405 measures in UTF-8 bytes with `--` in the prefix).
 */
export function sendKeysBatches(
  session: string,
  keys: readonly string[],
  style: SendKeysStyle = SEND_KEYS_064,
): string[][] {
  const len = measure(style);
  const prefix = `tmux send-keys -t ${shlexQuote(session)}${style.endOfOptions ? ' --' : ''}`;
  const max = TMUX_SEND_KEYS_MAX_COMMAND_LENGTH;
  const single = `${prefix} ${keys.map(shlexQuote).join(' ')}`;
  if (len(single) <= max) return [[...keys]];
  const batches: string[][] = [];
  let current: string[] = [];
  let length = len(prefix);
  const flush = () => {
    if (current.length) batches.push(current);
    current = [];
    length = len(prefix);
  };
  for (const key of keys) {
    const addition = 1 + len(shlexQuote(key));
    if (length + addition <= max) {
      current.push(key);
      length += addition;
    } else if (len(prefix) + addition <= max) {
      flush();
      current.push(key);
      length = len(prefix) + addition;
    } else {
      flush();
      for (const chunk of splitKey(key, max - len(prefix) - 1, style)) {
        const add = 1 + len(shlexQuote(chunk));
        if (length + add > max) flush();
        current.push(chunk);
        length += add;
      }
    }
  }
  flush();
  return batches;
}

export interface TmuxOptions {
  session?: string;
  width?: number;
  height?: number;
  /** User the shell runs as (every tmux call uses it: the server socket is per user). */
  user?: string;
  /** Directory the shell starts in. */
  workdir?: string;
  /** Environment of the shell (the agent's env), passed as `new-session -e`. */
  env?: Record<string, string>;
  /** Where the pane's output is piped; null for none. */
  paneLog?: string | null;
  /** The argv that runs tmux (default `tmux` on the image's PATH): a tool bundle's loader launch. */
  program?: readonly string[];
  /** Variables every tmux call gets and the panes do not (a bundle's LOCPATH, TERMINFO_DIRS). */
  programEnv?: Record<string, string>;
  /** How keystrokes are sent (default Harbor 0.6.4's). */
  sendKeys?: SendKeysStyle;
}

export class TmuxTerminal {
  readonly session: string;
  readonly #host: ExecHost;
  readonly #width: number;
  readonly #height: number;
  readonly #user: string | undefined;
  readonly #workdir: string | undefined;
  readonly #env: Record<string, string>;
  readonly #paneLog: string | null;
  readonly #t: TemplateSet;
  readonly #program: readonly string[];
  readonly #programEnv: Record<string, string>;
  readonly #sendKeys: SendKeysStyle;
  #previous: string | undefined;

  constructor(host: ExecHost, templates: TemplateSet, options: TmuxOptions = {}) {
    this.#host = host;
    this.#t = templates;
    this.session = options.session ?? SESSION_NAME;
    this.#width = options.width ?? 160;
    this.#height = options.height ?? 40;
    this.#user = options.user;
    this.#workdir = options.workdir;
    this.#env = options.env ?? {};
    this.#paneLog = options.paneLog === undefined ? PANE_LOG_PATH : options.paneLog;
    this.#program = options.program ?? ['tmux'];
    this.#programEnv = options.programEnv ?? {};
    this.#sendKeys = options.sendKeys ?? SEND_KEYS_064;
  }

  #execOptions(signal?: AbortSignal, env?: Record<string, string>) {
    return {
      timeoutMs: 60_000,
      ...(env ? { env } : {}),
      ...(signal ? { signal } : {}),
      ...(this.#user ? { user: this.#user } : {}),
      ...(this.#workdir ? { workdir: this.#workdir } : {}),
    };
  }

  async #tmux(argv: string[], signal?: AbortSignal, env?: Record<string, string>) {
    const withProgram = Object.keys(this.#programEnv).length ? { ...this.#programEnv, ...env } : env;
    return this.#host.exec([...this.#program, ...argv], this.#execOptions(signal, withProgram));
  }

  /**
   * `tmux new-session -e K=V… -x W -y H -d -s S 'bash --login' ; pipe-pane …` with TERM and
   * SHELL exported to the server, then the global history limit raised — after the session
   * exists, so its pane keeps tmux's default 2,000 lines, as in the reference (L325–448).
   */
  async start(signal?: AbortSignal): Promise<void> {
    // the program's own variables stay out of the panes: the server copies its environment into
    // the global one, which new panes inherit
    const argv = Object.keys(this.#programEnv).length ? ['start-server', ';'] : [];
    for (const name of Object.keys(this.#programEnv)) argv.push('set-environment', '-g', '-u', name, ';');
    argv.push('new-session');
    for (const [k, v] of Object.entries(this.#env)) argv.push('-e', `${k}=${v}`);
    argv.push(
      '-x',
      String(this.#width),
      '-y',
      String(this.#height),
      '-d',
      '-s',
      this.session,
      'bash --login',
    );
    if (this.#paneLog) argv.push(';', 'pipe-pane', '-t', this.session, `cat > ${this.#paneLog}`);
    const r = await this.#tmux(argv, signal, { TERM: 'xterm-256color', SHELL: '/bin/bash' });
    // a later step of a multi-step task: the reference starts the session once per trial (in
    // setup) and every step goes on in it
    if (r.exitCode !== 0 && r.stderr.includes(`duplicate session: ${this.session}`)) return;
    if (r.exitCode !== 0) {
      throw new Error(`Failed to start tmux session. Error: ${r.stderr.trim().slice(0, 500)}`);
    }
    await this.#tmux(['set-option', '-g', 'history-limit', '10000000'], signal);
  }

  async isAlive(signal?: AbortSignal): Promise<boolean> {
    const r = await this.#tmux(['has-session', '-t', this.session], signal);
    return r.exitCode === 0;
  }

  /**
   * Sends one command's keystrokes as one `send-keys` argument without `-l` (split only past
   * tmux's command limit): tmux types the text, unless the whole string is a key name. With
   * Harbor 0.9's `--`, keystrokes starting with `-` are typed rather than read as options.
   */
  async send(keystrokes: string, signal?: AbortSignal): Promise<void> {
    const style = this.#sendKeys;
    for (const batch of sendKeysBatches(this.session, [keystrokes], style)) {
      const argv = ['send-keys', '-t', this.session, ...(style.endOfOptions ? ['--'] : []), ...batch];
      const r = await this.#tmux(argv, signal);
      if (r.exitCode !== 0) {
        throw new Error(`failed to send non-blocking keys: ${r.stderr.trim().slice(0, 300)}`);
      }
    }
  }

  /** `capture-pane -p` (the visible screen, blank lines included), `-S -` for the whole history. */
  async capture(entire: boolean, signal?: AbortSignal): Promise<string> {
    const r = await this.#tmux(
      ['capture-pane', '-p', ...(entire ? ['-S', '-'] : []), '-t', this.session],
      signal,
    );
    return r.stdout ?? '';
  }

  /**
   * New output since the last call (ref L665–710): the previous capture, stripped, looked up in
   * the current history; found → from its last line on; found with nothing new, or not found
   * (scrolled out of the 2,000 lines, cleared) → the visible screen. The first call gives the
   * screen.
   */
  async incremental(signal?: AbortSignal): Promise<string> {
    const current = await this.capture(true, signal);
    const screen = async () => formatTemplate(this.#t.screen, { screen: await this.capture(false, signal) });
    if (this.#previous === undefined) {
      this.#previous = current;
      return screen();
    }
    const fresh = findNewContent(this.#previous, current);
    this.#previous = current;
    if (fresh !== null && pythonStrip(fresh)) return formatTemplate(this.#t['new-output'], { output: fresh });
    return screen();
  }
}

/** Python's str.isspace() for one character: JS whitespace plus the separators \x1c–\x1f and NEL. */
const isPythonSpace = (ch: string) => {
  const cp = ch.codePointAt(0)!;
  return (cp >= 0x1c && cp <= 0x1f) || cp === 0x85 || (/\s/.test(ch) && cp !== 0xfeff);
};

/** Python's str.strip(). */
export function pythonStrip(s: string): string {
  let a = 0;
  let b = s.length;
  while (a < b && isPythonSpace(s[a]!)) a++;
  while (b > a && isPythonSpace(s[b - 1]!)) b--;
  return s.slice(a, b);
}

/**
 * The reference's `_find_new_content`: when the stripped previous buffer occurs in the current
 * one, the text from the position of its last newline — an index into the previous buffer, used
 * on the current one (as the reference does; the two coincide while the history only grows).
 * Python counts that index in code points, so it is carried over as one.
 */
export function findNewContent(previous: string, current: string): string | null {
  const pb = pythonStrip(previous);
  const at = current.indexOf(pb);
  if (at < 0) return null;
  if (!pb.includes('\n')) return current.slice(at);
  const codePoints = [...pb.slice(0, pb.lastIndexOf('\n'))].length;
  let cut = 0;
  for (let n = 0; n < codePoints && cut < current.length; n++)
    cut += current.codePointAt(cut)! > 0xffff ? 2 : 1;
  return current.slice(cut);
}

/**
 * Keeps the first and last `maxBytes / 2` UTF-8 bytes (dropping a character cut in two, as
 * Python's decode(errors="ignore") does) and says how many bytes were left out (ref L527–563).
 */
export function limitOutput(text: string, t: TemplateSet, maxBytes = 10_000): string {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= maxBytes) return text;
  const half = Math.floor(maxBytes / 2);
  let headEnd = half;
  while (headEnd > 0 && (bytes[headEnd]! & 0xc0) === 0x80) headEnd--;
  // Python's bytes[-0:] is the whole text: with a limit under 2 bytes the reference keeps it all as the tail.
  let tailStart = half === 0 ? 0 : bytes.length - half;
  while (tailStart < bytes.length && (bytes[tailStart]! & 0xc0) === 0x80) tailStart++;
  const head = bytes.subarray(0, headEnd).toString('utf8');
  const tail = bytes.subarray(tailStart).toString('utf8');
  const omitted = bytes.length - headEnd - (bytes.length - tailStart);
  return formatTemplate(t['output-limited'], { head, max: maxBytes, omitted, tail });
}
