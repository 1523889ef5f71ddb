// What every git the platform runs starts with (runGit in git.ts). git runs in the folder a
// benchmark author's repository is checked out into: the author's files must not become git's
// settings, hooks, attributes or credentials, and no git may start a command of its own.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { GIT_URL_SCHEMES } from '@osmosis/contracts';

/** GIT_ALLOW_PROTOCOL for every git the platform runs: the schemes of GIT_URL_SCHEMES, nothing else. */
export const GIT_ALLOWED_PROTOCOLS = GIT_URL_SCHEMES.join(':');

/**
 * `-c` settings given to every git command: they outrank every config file (a repository's
 * .git/config included), and unlike GIT_CONFIG_COUNT they work on any git version.
 */
export const GIT_SAFE_CONFIG: readonly string[] = [
  // no hook runs, whatever a git template put in .git/hooks (fetch runs reference-transaction,
  // checkout post-checkout)
  'core.hooksPath=/dev/null',
  // no file-system monitor command (empty is off in every git: before 2.36 the value was the
  // hook's path, so `false` would run false(1))
  'core.fsmonitor=',
  // no line-end conversion: a file is written as its blob (with NEUTRAL_ATTRIBUTES)
  'core.autocrlf=false',
  'core.eol=lf',
  // submodules are never fetched: their URLs are the author's and were not checked against the
  // egress policy; a submodule is an empty folder in the checkout
  'submodule.recurse=false',
  'fetch.recurseSubmodules=false',
  // no gc or maintenance: a detached one would outlive the timeout's kill and write in a folder
  // the sync is removing
  'gc.auto=0',
  'maintenance.auto=false',
];

/**
 * The whole environment of a git run in `cwd` (nothing is inherited from the worker's): no
 * prompts, no credential helpers, no system or global config or attributes, only the allowed
 * transports.
 */
export function gitEnv(cwd: string): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    // not the checkout: there an author's .config/git/attributes and .config/git/ignore were
    // git's own, and .netrc curl's credentials. /dev/null is no folder (git and curl find nothing
    // under it) and nobody can make it one.
    HOME: '/dev/null',
    GIT_TERMINAL_PROMPT: '0',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_ATTR_NOSYSTEM: '1',
    GIT_ASKPASS: 'true',
    // no local paths, file://, ext:: or ssh: a benchmark's URL must not read the worker's disk
    GIT_ALLOW_PROTOCOL: GIT_ALLOWED_PROTOCOLS,
    // a folder whose .git is missing (an init that failed) is no repository: git must not walk
    // up to one above it (the worker's own checkout, when its temp folder is inside one)
    GIT_CEILING_DIRECTORIES: path.dirname(path.resolve(cwd)),
    LC_ALL: 'C',
  };
}

/**
 * Attributes that leave every checked-out file byte for byte as its blob, and name no diff or
 * merge driver (commands from config) for any later git here. In $GIT_DIR/info/attributes they
 * override every .gitattributes in the tree.
 */
export const NEUTRAL_ATTRIBUTES = '* -text -eol -crlf -working-tree-encoding -ident -filter -diff -merge\n';

/**
 * Make the checkout in `dest` write blobs as they are: the size check counted blobs, and a
 * repository's .gitattributes could grow them (eol=crlf doubles line ends,
 * working-tree-encoding=UTF-32 makes each ASCII byte four, ident turns `$Id$` into 46 bytes).
 */
export async function neutralizeAttributes(dest: string): Promise<void> {
  await mkdir(path.join(dest, '.git', 'info'), { recursive: true });
  await writeFile(path.join(dest, '.git', 'info', 'attributes'), NEUTRAL_ATTRIBUTES);
}
