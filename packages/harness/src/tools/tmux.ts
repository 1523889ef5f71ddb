// The tmux bundle: the worker host's tmux with its libraries and loader (so it runs in images with
// no tmux, no package manager, no glibc), the C.UTF-8 locale it insists on (tmux refuses to start
// without a UTF-8 LC_CTYPE), and terminfo entries for the terminals it names. It is run through
// the bundled loader without a shell; LOCPATH and TERMINFO_DIRS are given to tmux itself, not to
// the shells in its panes (terminus2/tmux.ts unsets them there), so an agent's shell sees the image.
// `bin/tmux` does the same for programs that run `tmux` from PATH (OpenHands' local runtime): it
// starts a server with a config that unsets them, then reads the user's own.
import { copyFile, cp, mkdir, readdir, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { onPath, runCommand, ToolPrepError } from './host.ts';
import { copyRuntime, launchArgv, launchOf, shQuote, type ToolSpec, wrapperScript } from './spec.ts';

/** Where glibc keeps compiled locales (Debian: libc-bin's C.utf8). */
const LOCALE_DIRS = ['/usr/lib/locale/C.utf8', '/usr/lib/locale/C.UTF-8'];
const TERMINFO_DIRS = ['/etc/terminfo', '/lib/terminfo', '/usr/share/terminfo'];
/** tmux's default-terminal (Debian: tmux-256color), its fallback `screen`, and common outer terminals. */
const TERMINALS = [
  'tmux-256color',
  'tmux',
  'screen-256color',
  'screen',
  'xterm-256color',
  'xterm',
  'vt100',
  'dumb',
  'linux',
];

const exists = (p: string) =>
  stat(p).then(
    () => true,
    () => false,
  );

async function hostTmux(env: NodeJS.ProcessEnv): Promise<string> {
  const file = await onPath('tmux', env);
  if (!file)
    throw new ToolPrepError(
      'tmux is not installed on the worker host, so it cannot be bundled for sandboxes: install it there (Debian/Ubuntu: apt-get install tmux)',
    );
  return file;
}

async function tmuxVersion(env: NodeJS.ProcessEnv): Promise<string> {
  const file = await hostTmux(env);
  const r = await runCommand([file, '-V'], { timeoutMs: 10_000, env: { PATH: '/usr/bin:/bin' } });
  const m = /^tmux (\S+)/.exec(r.stdout.trim());
  if (r.code !== 0 || !m)
    throw new ToolPrepError(`${file} -V did not print a tmux version: ${r.stderr.trim()}`);
  return m[1]!;
}

async function copyTerminfo(dir: string): Promise<number> {
  let copied = 0;
  for (const name of TERMINALS) {
    for (const root of TERMINFO_DIRS) {
      const from = path.join(root, name[0]!, name);
      if (!(await exists(from))) continue;
      await mkdir(path.join(dir, 'share/terminfo', name[0]!), { recursive: true });
      await copyFile(from, path.join(dir, 'share/terminfo', name[0]!, name));
      copied++;
      break;
    }
  }
  return copied;
}

export const tmuxTool: ToolSpec = {
  name: 'tmux',
  version: tmuxVersion,
  async build(dir, ctx) {
    const source = await hostTmux(ctx.env);
    await mkdir(path.join(dir, 'libexec'), { recursive: true });
    await copyFile(source, path.join(dir, 'libexec/tmux'));
    const runtime = await copyRuntime(dir, ['libexec/tmux'], ctx.host);
    let locale: string | null = null;
    for (const candidate of LOCALE_DIRS) if (await exists(candidate)) locale ??= candidate;
    if (!locale)
      throw new ToolPrepError(
        'the worker host has no compiled C.UTF-8 locale (/usr/lib/locale/C.utf8), which tmux needs: on Debian it comes with libc-bin',
      );
    await mkdir(path.join(dir, 'share/locale'), { recursive: true });
    await cp(locale, path.join(dir, 'share/locale/C.utf8'), { recursive: true, dereference: true });
    const terminals = await copyTerminfo(dir);
    if (!terminals) ctx.log('tmux bundle: the worker host has no terminfo entries to bundle');
    const libs = (await readdir(path.join(dir, 'lib'))).sort();
    const launch = launchOf(runtime, 'libexec/tmux', ctx.host, 'tmux');
    const env = { LOCPATH: 'share/locale', TERMINFO_DIRS: 'share/terminfo' };
    await writeFile(
      path.join(dir, 'share/tmux.conf'),
      [
        '# the bundle’s variables stay out of the panes: a new server copies its environment into the global one',
        ...Object.keys(env).map((name) => `set-environment -g -u ${name}`),
        'source-file -q ~/.tmux.conf',
        '',
      ].join('\n'),
    );
    const vars = Object.entries(env).map(([k, v]) => `${k}=${shQuote(`${ctx.sandboxDir}/${v}`)}`);
    const program = launchArgv(ctx.sandboxDir, launch).map(shQuote).join(' ');
    const conf = shQuote(`${ctx.sandboxDir}/share/tmux.conf`);
    await mkdir(path.join(dir, 'bin'));
    await writeFile(
      path.join(dir, 'bin/tmux'),
      wrapperScript('tmux', [`${vars.join(' ')} exec ${program} -f ${conf} "$@"`]),
      { mode: 0o755 },
    );
    return {
      commands: { tmux: 'bin/tmux' },
      launch: { tmux: launch },
      env,
      source: { program: source, loader: runtime.hostLoader, libraries: libs.join(' ') },
    };
  },
};
