// What a tool recipe is (tmux.ts, node.ts, npm-cli.ts), and the pieces every recipe shares: the
// bundle's place in the sandbox, the host's loader and libraries copied beside a program, and the
// small /bin/sh wrappers that run a program through them.
import { copyFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { TOOL_MOUNT_ROOT } from '@osmosis/sandbox';
import { readElf, sharedLibraries } from './elf.ts';
import { type HostFacts, ToolPrepError } from './host.ts';
import type { LoaderLaunch, ToolManifest } from './manifest.ts';

export interface BuildContext {
  host: HostFacts;
  /** The bundle's folder in a sandbox (`/opt/osmosis/tools/<name>`): wrappers name absolute paths. */
  sandboxDir: string;
  /** The worker's environment (npm reads its own config from it: registry, proxy, CA). */
  env: NodeJS.ProcessEnv;
  signal?: AbortSignal;
  log(message: string): void;
}

export type BuildResult = Partial<Pick<ToolManifest, 'commands' | 'launch' | 'env' | 'homeFiles'>> & {
  source: Record<string, string>;
};

export interface ToolSpec {
  /** The folder name in the sandbox (`/opt/osmosis/tools/<name>`). */
  name: string;
  /** Tools this one runs on, prepared and mounted beside it. */
  needs?: readonly string[];
  /** The version this worker bundles: pinned, or (tmux) the worker host's own. */
  version(env: NodeJS.ProcessEnv): Promise<string>;
  /** Makes the bundle's files in `dir`, a fresh folder; the store writes the manifest and renames it into place. */
  build(dir: string, ctx: BuildContext): Promise<BuildResult>;
}

/** Where tool `name` is mounted in a sandbox. */
export const sandboxDirOf = (name: string) => `${TOOL_MOUNT_ROOT}/${name}`;

/** `--argv0` came with glibc 2.33. */
const hasArgv0 = (host: HostFacts) => {
  const [major, minor] = host.glibc.split('.').map(Number);
  return (major ?? 0) > 2 || ((major ?? 0) === 2 && (minor ?? 0) >= 33);
};

export interface Runtime {
  /** The program's loader on the host (its PT_INTERP), e.g. /lib64/ld-linux-x86-64.so.2. */
  hostLoader: string;
  /** The loader's path in the bundle, e.g. lib/ld-linux-x86-64.so.2. */
  loader: string;
  libraryPath: 'lib';
}

/** What else a runtime serves besides its programs: libraries and modules they load while running. */
export interface RuntimeExtras {
  /** Shared objects in `dir` (Python's extension modules) whose libraries are copied too. */
  objects: string[];
  /** Told about an object whose libraries the host lacks (it is left as is: it fails on the host too). */
  skipped(object: string, why: string): void;
}

/**
 * Copies the host loader and every library `programs` (files already in `dir`) load into
 * `dir/lib`, so they run through that loader in any image, whatever its C library.
 */
export async function copyRuntime(
  dir: string,
  programs: string[],
  host: HostFacts,
  extras?: RuntimeExtras,
): Promise<Runtime> {
  let hostLoader: string | null = null;
  const libs = new Set<string>();
  for (const rel of programs) {
    const file = path.join(dir, rel);
    const elf = await readElf(file);
    if (elf.machine !== host.arch)
      throw new ToolPrepError(`${rel} is built for ${elf.machine}, the worker is ${host.arch}`);
    if (!elf.interpreter) throw new ToolPrepError(`${rel} is static: it needs no bundled runtime`);
    if (hostLoader && hostLoader !== elf.interpreter)
      throw new ToolPrepError(`${rel} asks for the loader ${elf.interpreter}, not ${hostLoader}`);
    hostLoader = elf.interpreter;
    for (const lib of await sharedLibraries(file, elf.interpreter)) libs.add(lib);
  }
  if (!hostLoader) throw new ToolPrepError('no program to bundle a runtime for');
  for (const rel of extras?.objects ?? []) {
    try {
      // a wheel's own libraries (found through its RPATH) are in the bundle already
      for (const lib of await sharedLibraries(path.join(dir, rel), hostLoader))
        if (path.relative(dir, lib).startsWith('..')) libs.add(lib);
    } catch (error) {
      if (!(error instanceof ToolPrepError)) throw error;
      extras?.skipped(rel, error.message);
    }
  }
  libs.add(hostLoader);
  await mkdir(path.join(dir, 'lib'), { recursive: true });
  for (const lib of libs) await copyFile(lib, path.join(dir, 'lib', path.basename(lib)));
  return { hostLoader, loader: `lib/${path.basename(hostLoader)}`, libraryPath: 'lib' };
}

/** How `program` (in the bundle) runs through the bundle's loader. */
export function launchOf(runtime: Runtime, program: string, host: HostFacts, argv0?: string): LoaderLaunch {
  return {
    loader: runtime.loader,
    libraryPath: runtime.libraryPath,
    program,
    ...(argv0 && hasArgv0(host) ? { argv0 } : {}),
  };
}

/** The argv of a launch, with the bundle at `base` (its sandbox folder). */
export function launchArgv(base: string, l: LoaderLaunch): string[] {
  return [
    `${base}/${l.loader}`,
    '--library-path',
    `${base}/${l.libraryPath}`,
    ...(l.argv0 ? ['--argv0', l.argv0] : []),
    `${base}/${l.program}`,
  ];
}

/** Single-quoted for /bin/sh. */
export const shQuote = (s: string) => `'${s.replace(/'/g, `'"'"'`)}'`;

/** A /bin/sh wrapper: the tool's name and version in a comment, then `body`. */
export function wrapperScript(what: string, body: string[]): string {
  return ['#!/bin/sh', `# ${what}: prepared by the osmosis platform, mounted read-only`, ...body, ''].join(
    '\n',
  );
}
