// What a checkout or an extracted archive may point at: its chosen sub-folder must be a real
// folder inside it, and a task's folders and symlinks must stay inside the task. Checked with
// lstat and realpath (never stat, which follows links), when the source lands — so a task whose
// `solution` is a link to /etc, or whose `tests/x` points at another task, is refused at sync
// with the file named, and nothing downstream (digest, packer, image context, oracle, verifier)
// ever sees it.
import { lstat, readlink, realpath } from 'node:fs/promises';
import path from 'node:path';
import { checkLinkTarget, lstatOrNull } from '@osmosis/archive';
import { normalizeSourcePath, sourcePathIssue } from '@osmosis/contracts';
import { listDir } from './dir-entries.ts';
import { SourcePathError } from './source-path-error.ts';

export { SourcePathError } from './source-path-error.ts';

/** Folders of a task the platform copies into sandboxes and image builds: never links. */
export const TASK_FOLDERS = ['environment', 'solution', 'tests', 'steps', 'verifier'] as const;

/**
 * The real folder `rel` (a sub-folder given with a source) names inside `root`: relative, no
 * `..`, every component a real folder (a link anywhere on the way is refused). `what` names the
 * setting in messages (`path`).
 */
export async function resolveInside(root: string, rel: string, what = 'path'): Promise<string> {
  const issue = sourcePathIssue(rel);
  if (issue) throw new SourcePathError(rel, `${what} "${rel}" ${issue}`);
  const realRoot = await realpath(root);
  let current = realRoot;
  let so = '';
  for (const part of normalizeSourcePath(rel).split('/').filter(Boolean)) {
    current = path.join(current, part);
    so = so ? `${so}/${part}` : part;
    const st = await lstatOrNull(current);
    if (!st) throw new SourcePathError(so, `${what} "${rel}": "${so}" does not exist`);
    if (st.isSymbolicLink()) {
      throw new SourcePathError(so, `${what} "${rel}": "${so}" is a link; give the folder it points to`);
    }
    if (!st.isDirectory()) throw new SourcePathError(so, `${what} "${rel}": "${so}" is not a folder`);
  }
  if ((await realpath(current)) !== current) {
    throw new SourcePathError(rel, `${what} "${rel}" does not resolve inside the source`);
  }
  return current;
}

/**
 * Refuses a task (SourcePathError naming the file as `label/…`) when the task folder or one of
 * TASK_FOLDERS (also under `steps/*`) is a link, or when any symlink in it is absolute, climbs
 * out of the task, loops, or goes through (or to) another link — the rule the worker's
 * extractor applies to the task's stored tar, so a task accepted here is also accepted there.
 */
export async function checkTaskLinks(taskDir: string, label = '.'): Promise<void> {
  const named = (rel: string) => (label === '.' || label === '' ? rel : `${label}/${rel}`);
  const top = await lstat(taskDir);
  if (top.isSymbolicLink()) {
    throw new SourcePathError(label, `${label} is a link; task folders must be real folders`);
  }
  const root = await realpath(taskDir);
  const folderLink = async (rel: string) => {
    const st = await lstatOrNull(path.join(root, rel));
    if (st?.isSymbolicLink()) {
      const target = await readlink(path.join(root, rel));
      throw new SourcePathError(
        named(rel),
        `${named(rel)} is a link (to ${target}); task folders must be real folders inside the task`,
      );
    }
  };
  for (const folder of TASK_FOLDERS) await folderLink(folder);
  const steps = await lstatOrNull(path.join(root, 'steps'));
  if (steps?.isDirectory()) {
    for (const step of (await listDir(path.join(root, 'steps'), named('steps'))).map((e) => e.name).sort()) {
      await folderLink(`steps/${step}`);
      for (const folder of TASK_FOLDERS) await folderLink(`steps/${step}/${folder}`);
    }
  }

  const links: string[] = [];
  const walk = async (rel: string): Promise<void> => {
    const entries = await listDir(rel ? path.join(root, rel) : root, rel ? named(rel) : named(''));
    for (const e of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      const childRel = rel ? `${rel}/${e.name}` : e.name;
      if (e.isSymbolicLink()) links.push(childRel);
      else if (e.isDirectory() && e.name !== '.git') await walk(childRel);
    }
  };
  await walk('');
  for (const rel of links) {
    const target = await readlink(path.join(root, rel));
    const check = checkLinkTarget(rel, target, 'task');
    if (!check.ok) throw new SourcePathError(named(rel), `${named(rel)}: ${check.issue}`);
    let current = '';
    const parts = check.resolved.split('/');
    for (const [i, part] of parts.entries()) {
      current = current ? `${current}/${part}` : part;
      const st = await lstatOrNull(path.join(root, current));
      if (!st) break;
      if (st.isSymbolicLink()) {
        throw new SourcePathError(
          named(rel),
          `${named(rel)}: symlink points through another link ("${named(current)}")`,
        );
      }
      // as the extractor refuses it (and looking under a file is ENOTDIR, naming a host path)
      if (i < parts.length - 1 && !st.isDirectory()) {
        throw new SourcePathError(
          named(rel),
          `${named(rel)}: symlink target "${target}" goes through "${named(current)}", which is a ${st.isFile() ? 'file' : 'special file'}, not a folder; point the link at a file or folder that exists`,
        );
      }
    }
  }
}
