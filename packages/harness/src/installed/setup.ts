// How an installed agent's CLI gets into the sandbox, in this order: the worker's bundle of it
// (mounted read-only with the Node it runs on: no download, works with network none); the CLI the
// image already has; else the per-attempt install (system packages, Node, the pinned CLI), which
// needs internet in the sandbox. The choice is kept with the sandbox for `run`, which puts the
// bundle's commands first on PATH and its Node last (an image's own Node still wins).
import { createScrubber, type Scrubber } from '@osmosis/core';
import type { HarnessContext } from '../harness.ts';
import type { ToolChoice } from '../tools/choice.ts';
import { findTool, type MountedTool } from '../tools/mounted.ts';
import { CHECK_VARIABLE } from '../tools/npm-cli.ts';
import type { InstalledAgentDefinition } from './agent-definition.ts';

/** Runs `script` in bash as the agent user (or root); resolves to the result. */
export function bash(
  ctx: Pick<HarnessContext, 'sandbox' | 'signal' | 'task'>,
  script: string,
  options: { root?: boolean; env?: Record<string, string>; timeoutMs: number },
) {
  return ctx.sandbox.exec(['/bin/bash', '-c', script], {
    timeoutMs: options.timeoutMs,
    signal: ctx.signal,
    ...(options.env ? { env: options.env } : {}),
    ...(options.root ? { user: '0' } : ctx.task.agentUser ? { user: ctx.task.agentUser } : {}),
  });
}

/** The last five lines of a command's output, scrubbed first: cut first, a value wrapped across the cut kept a part. */
export const tail = (text: string, scrubber: Scrubber) =>
  scrubber.text(text.trim()).split('\n').slice(-5).join('\n');

/**
 * The PATH every command of the agent runs with: the bundle's commands first, then the agent
 * user's own installs (npm --prefix ~/.local, uv, cursor), the image's PATH, and last the Node
 * bundle the CLI runs on and the tmux bundle (OpenHands' local runtime runs `tmux`): an image's
 * own Node or tmux wins.
 */
export function pathLine(choice: ToolChoice | undefined, tools: readonly MountedTool[] | undefined): string {
  const bundle = choice?.tool;
  const first = bundle ? `${bundle.dir}/bin:` : '';
  const node = bundle?.needs.includes('node') ? findTool(tools, 'node') : undefined;
  const tmux = findTool(tools, 'tmux');
  const last = [node ? `:${node.dir}/bin` : '', tmux?.commands.tmux ? `:${tmux.dir}/bin` : ''].join('');
  return `export PATH="${first}$HOME/.local/bin:$PATH${last}"`;
}

type Outcome = { exitCode: number | null; timedOut: boolean; stdout: string; stderr: string };

/**
 * The bundle, checked in one exec: its wrapper's check (its program can run in this image; nothing
 * of the CLI runs) and what the agent's home needs from it. The version is the bundle's own.
 */
async function fromBundle(
  def: InstalledAgentDefinition,
  ctx: HarnessContext,
  bundle: MountedTool,
  scrubber: Scrubber,
): Promise<ToolChoice | string> {
  const choice: ToolChoice = {
    use: { name: def.name, version: bundle.version, source: 'bundle' },
    tool: bundle,
  };
  const binary = def.fromBundle?.binary ?? def.binary;
  const command = bundle.commands[binary];
  if (!command) return `the bundle ${bundle.key} has no ${binary}`;
  // what the CLI expects in the agent's home (opencode's plugin), never replacing the image's own
  const home = bundle.homeFiles.map(
    (h) =>
      `t="$HOME/${h.to}"; if [ ! -e "$t" ]; then mkdir -p "$(dirname "$t")" && ${h.link ? `ln -s "${h.from}" "$t"` : `cp -R "${h.from}" "$t"`}; fi`,
  );
  const needs = def.fromBundle?.imageNeeds ?? [];
  const script = [
    'set -e',
    `if ! ${CHECK_VARIABLE}=1 "${command}" >/dev/null 2>/tmp/.osmosis-tool-check; then cat /tmp/.osmosis-tool-check >&2; exit 3; fi`,
    ...needs.map((p) => `command -v ${p} >/dev/null 2>&1 || exit 4`),
    ...home,
  ];
  const r = await bash(ctx, script.join('\n'), { timeoutMs: 60_000 });
  if (r.exitCode === 4)
    return `the image has no ${needs.join(' or ')}, which ${def.name} needs beside its bundle`;
  if (r.exitCode === 3)
    return `the bundle ${bundle.key} cannot run in this image: ${tail(r.stderr || r.stdout, scrubber)}`;
  if (r.exitCode !== 0)
    return `putting the bundle's files into the agent's home failed: ${tail(r.stderr || r.stdout, scrubber)}`;
  return choice;
}

/** Gets the CLI into the sandbox (see the top of this file); throws saying what was missing. */
export async function setupInstalled(
  def: InstalledAgentDefinition,
  ctx: HarnessContext,
  installScript: string | undefined,
): Promise<ToolChoice> {
  const scrubber = createScrubber([...ctx.secrets], { minLength: ctx.scrubMinLength });
  const log = (message: string, level: 'info' | 'warn' = 'info') =>
    ctx.log({ level, step: 'agent_setup', message: `${def.name}: ${message}` });
  const installed: ToolChoice = { use: { name: def.name, version: null, source: 'installed' } };
  const fail = (what: string, r: Outcome) =>
    new Error(
      `${def.name}: ${what} ${r.timedOut ? 'timed out' : `failed (exit ${r.exitCode})`}; installed agents need internet access in the sandbox when the worker has no bundle of them: ${tail(r.stderr || r.stdout, scrubber)}`,
    );
  const present = `${pathLine(undefined, undefined)}\ncommand -v ${def.binary} >/dev/null`;
  const check = async () => {
    if ((await bash(ctx, present, { timeoutMs: 30_000 })).exitCode !== 0)
      throw new Error(`${def.name}: installed, but ${def.binary} is not on PATH`);
    return installed;
  };
  if (installScript) {
    // a test's stand-in CLI
    const r = await bash(ctx, `set -e\n${installScript}`, { root: true, timeoutMs: ctx.timeouts.setupMs });
    if (r.exitCode !== 0) throw fail('install', r);
    return check();
  }
  const bundle = findTool(ctx.tools, def.name);
  let why = 'the worker mounted no bundle of it';
  if (bundle) {
    const got = await fromBundle(def, ctx, bundle, scrubber);
    if (typeof got !== 'string') {
      log(
        `${def.fromBundle?.binary ?? def.binary} ${got.use.version} from the worker's bundle (${bundle.dir}, read-only)`,
      );
      return got;
    }
    why = got;
    log(`${got}; falling back`, 'warn');
  }
  if ((await bash(ctx, present, { timeoutMs: 30_000 })).exitCode === 0) {
    log(`${def.binary} already installed in the image`);
    return { use: { name: def.name, version: null, source: 'image' } };
  }
  if (ctx.internet === false)
    throw new Error(
      `${def.name}: ${def.binary} is not in the image, ${why}, and the sandbox has no internet to install it (the task's allow_internet and the operator's OSMOSIS_ALLOW_INTERNET)`,
    );
  log(`installing (${why})`);
  // system packages and Node as root; the CLI itself, pinned, as the agent user (as Harbor)
  const who = await bash(ctx, 'id -un', { timeoutMs: 30_000 });
  const started = Date.now();
  const root = await bash(ctx, `set -e\n${def.installRoot}`, {
    root: true,
    timeoutMs: ctx.timeouts.setupMs,
    env: { OSMOSIS_AGENT_USER: who.stdout.trim() || 'root' },
  });
  if (root.exitCode !== 0) throw fail('install (system packages)', root);
  const user = await bash(ctx, `set -e\n${pathLine(undefined, undefined)}\n${def.installUser}`, {
    timeoutMs: Math.max(1000, ctx.timeouts.setupMs - (Date.now() - started)),
  });
  if (user.exitCode !== 0) throw fail('install', user);
  return check();
}
