// The workspace directory (the git repository the CLI runs in) and its remote identity, as the
// upstream Osmosis CLI 0.3 finds them (osmosis_ai/platform/cli/workspace_repo.py): the worktree
// top level containing the current directory, and `origin`'s URL normalized to a credential-free
// identity sent as the `X-Osmosis-Git` header. Read from the files under `.git` instead of running
// `git`: no process at start-up, and nothing a repository's config could make git execute.
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';

export interface GitRemote {
  /** `owner/repo` for github.com (upstream's identity), `host/path` for other hosts; lower case */
  identity: string;
  /** `origin`'s URL without credentials, query or fragment */
  remote_url: string;
}

export interface WorkspaceDirectory {
  /** absolute path of the worktree's top level */
  root: string;
  /** `origin`, when the repository has one this CLI can name; null otherwise */
  git: GitRemote | null;
}

/** Largest git file read (a `.git` file, a config): a repository's files are not trusted. */
const MAX_GIT_FILE_BYTES = 1024 * 1024;

function readSmall(file: string): string | null {
  try {
    const stat = statSync(file);
    if (!stat.isFile() || stat.size > MAX_GIT_FILE_BYTES) return null;
    return readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}

/** The git directory a worktree's `.git` entry names: the directory itself, or `gitdir: …` of a file. */
function gitDirOf(dotGit: string): string | null {
  let stat: ReturnType<typeof statSync>;
  try {
    stat = statSync(dotGit);
  } catch {
    return null;
  }
  if (stat.isDirectory()) return dotGit;
  if (!stat.isFile()) return null;
  const match = /^gitdir:\s*(.+?)\s*$/m.exec(readSmall(dotGit) ?? '');
  return match ? path.resolve(path.dirname(dotGit), match[1]!) : null;
}

/** The directory holding the repository's config: a linked worktree's `commondir`, else itself. */
function commonDirOf(gitDir: string): string {
  const common = readSmall(path.join(gitDir, 'commondir'))?.trim();
  return common ? path.resolve(gitDir, common) : gitDir;
}

function unquoteConfigValue(raw: string): string {
  let value = raw.trim();
  // an unquoted `;` or `#` starts a comment
  let out = '';
  let quoted = false;
  for (let i = 0; i < value.length; i++) {
    const ch = value[i]!;
    if (ch === '"') {
      quoted = !quoted;
      continue;
    }
    if (ch === '\\' && i + 1 < value.length) {
      const next = value[++i]!;
      out += next === 'n' ? '\n' : next === 't' ? '\t' : next;
      continue;
    }
    if (!quoted && (ch === ';' || ch === '#')) break;
    out += ch;
  }
  value = out.trim();
  return value;
}

/** `remote.origin.url` of a git config text (the last one wins, as in git). */
export function originUrlOf(configText: string): string | null {
  let inOrigin = false;
  let url: string | null = null;
  for (const rawLine of configText.split(/\r?\n/)) {
    const line = rawLine.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const section = /^\[\s*([A-Za-z0-9.-]+)(?:\s+"((?:[^"\\]|\\.)*)")?\s*\]/.exec(line);
    if (section) {
      const name = section[1]!.toLowerCase();
      inOrigin =
        (name === 'remote' && section[2] === 'origin') ||
        (section[2] === undefined && name === 'remote.origin');
      continue;
    }
    if (!inOrigin) continue;
    const kv = /^([A-Za-z][A-Za-z0-9-]*)\s*=\s*(.*)$/.exec(line);
    if (kv && kv[1]!.toLowerCase() === 'url') url = unquoteConfigValue(kv[2]!);
  }
  return url === '' ? null : url;
}

function hasWhitespaceOrControl(value: string): boolean {
  for (const ch of value) {
    const c = ch.codePointAt(0)!;
    if (/\s/.test(ch) || c < 32 || c === 127 || (c >= 128 && c <= 159)) return true;
  }
  return false;
}

const GITHUB_IDENTITY = /^[A-Za-z0-9][A-Za-z0-9-]*\/[A-Za-z0-9._-]+$/;
const PATH_SEGMENT = /^[A-Za-z0-9._-]+$/;
const SCP_LIKE = /^([^@\s/]+)@([^:\s/]+):(.+)$/;

/**
 * The identity of a remote URL, or null when it cannot be named. github.com as upstream
 * (`owner/repo`, lower case, `.git` dropped; https, ssh and `git@github.com:owner/repo`); other
 * hosts — upstream refuses them — as `host/path…` (lower case), so a self-hosted git server can
 * be linked too. Never includes credentials.
 */
export function normalizeGitRemote(raw: string): GitRemote | null {
  if (!raw || hasWhitespaceOrControl(raw)) return null;
  const scp = SCP_LIKE.exec(raw);
  const text = scp ? `ssh://${scp[1]}@${scp[2]}/${scp[3]}` : raw;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return null;
  }
  if (!['https:', 'http:', 'ssh:', 'git:'].includes(url.protocol) || !url.hostname) return null;
  const lowered = url.pathname.toLowerCase();
  if (lowered.includes('%2f') || lowered.includes('%5c')) return null;
  let repoPath = url.pathname.replace(/^\/+|\/+$/g, '');
  if (repoPath.endsWith('.git')) repoPath = repoPath.slice(0, -4);
  const segments = repoPath.split('/');
  if (segments.length === 0 || segments.some((s) => !PATH_SEGMENT.test(s) || s === '.' || s === '..'))
    return null;
  const host = url.hostname.toLowerCase();
  if (!/^[a-z0-9][a-z0-9.-]*$/.test(host)) return null;
  let identity: string;
  if (host === 'github.com') {
    if (segments.length !== 2) return null;
    identity = segments.join('/').toLowerCase();
    if (!GITHUB_IDENTITY.test(identity)) return null;
  } else {
    identity = `${host}/${segments.join('/')}`.toLowerCase();
  }
  const user = url.protocol === 'ssh:' && url.username === 'git' ? 'git@' : '';
  const port = url.port ? `:${url.port}` : '';
  return { identity, remote_url: `${url.protocol}//${user}${url.hostname}${port}${url.pathname}` };
}

/**
 * The workspace directory containing `cwd`: the nearest ancestor with a `.git` entry (a linked
 * worktree's `.git` file included), with `origin` read from the repository's config. Null
 * outside a repository.
 */
export function findWorkspaceDirectory(cwd: string): WorkspaceDirectory | null {
  let dir = path.resolve(cwd);
  for (;;) {
    const gitDir = gitDirOf(path.join(dir, '.git'));
    if (gitDir) {
      const config = readSmall(path.join(commonDirOf(gitDir), 'config'));
      const origin = config === null ? null : originUrlOf(config);
      return { root: dir, git: origin === null ? null : normalizeGitRemote(origin) };
    }
    const parent = path.dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
}
