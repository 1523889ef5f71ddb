// Where a benchmark's tasks come from (Benchmark.source, by kind), and the checks on the strings
// a source names: a URL, a ref and a sub-folder each reach `git` or the filesystem. They are
// checked as they land (API schemas, registry documents, and the worker again before it acts), so
// none can be read as an option (`-…`) or leave the checkout.
import { z } from 'zod';

/** Schemes a git source may use. ssh is left out: the worker holds no SSH keys, and ssh adds
 * its own option surface (`ssh://-oProxyCommand=…`); an on-prem server can serve https. */
export const GIT_URL_SCHEMES = ['https', 'http', 'git'] as const;
/** Schemes a registry document may be fetched with. */
export const REGISTRY_URL_SCHEMES = ['https', 'http'] as const;

function hasControlOrBackslash(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x20 || c === 0x7f || c === 0x5c) return true;
  }
  return false;
}

/** Why a sub-folder of a checkout or archive is refused, or null: relative, no `..`, no `-x`. */
export function sourcePathIssue(value: string): string | null {
  if (value.length > 1024) return 'is longer than 1024 characters';
  if (hasControlOrBackslash(value)) return 'must not contain control characters or backslashes';
  if (value.startsWith('/'))
    return 'must be relative to the root of the repository or archive (no leading /)';
  const parts = value.split('/').filter((p) => p !== '' && p !== '.');
  if (parts.includes('..')) return 'must not contain .. (it has to stay inside the repository or archive)';
  if (parts.some((p) => p.startsWith('-'))) return 'must not have a folder name starting with -';
  return null;
}

/** A sub-folder path with `.`, empty components and trailing slashes removed ('' for the root). */
export function normalizeSourcePath(value: string): string {
  return value
    .split('/')
    .filter((p) => p !== '' && p !== '.')
    .join('/');
}

/** Why a git ref (branch, tag or commit id) is refused, or null. */
export function gitRefIssue(value: string): string | null {
  if (value.length === 0 || value.length > 255) return 'must be 1 to 255 characters';
  if (value.startsWith('-')) return 'must not start with - (git would read it as an option)';
  if (!/^[A-Za-z0-9._/-]+$/.test(value) || value.includes('..') || value.endsWith('/')) {
    return 'must be a branch, tag or commit id (letters, digits, . _ / -)';
  }
  return null;
}

/**
 * A full git commit id: 40 lowercase hex characters (SHA-1), or 64 (a SHA-256 repository). What
 * git reports is treated as untrusted text: nothing else is kept as a commit.
 */
export function isGitCommitId(value: unknown): value is string {
  return typeof value === 'string' && /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/.test(value);
}

/** Why a URL is refused before any connection is tried (scheme, shape), or null. */
export function urlIssue(value: string, schemes: readonly string[]): string | null {
  if (value.length > 2048) return 'is longer than 2048 characters';
  if (value.startsWith('-')) return 'must not start with - (git would read it as an option)';
  if (hasControlOrBackslash(value) || /\s/.test(value))
    return 'must not contain spaces, control characters or backslashes';
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return `must be a URL (${schemes.map((s) => `${s}://…`).join(', ')})`;
  }
  const scheme = url.protocol.replace(/:$/, '');
  if (!schemes.includes(scheme)) {
    return `uses the scheme "${scheme}", which is not allowed; use ${schemes.map((s) => `${s}://`).join(', ')}`;
  }
  if (!url.hostname) return 'has no host';
  if (url.hostname.startsWith('-')) return 'has a host starting with -';
  return null;
}

function checked(name: string, issue: (value: string) => string | null) {
  return z.string().superRefine((value, ctx) => {
    const problem = issue(value);
    if (problem) ctx.addIssue({ code: 'custom', message: `${name} ${problem}` });
  });
}

/** A sub-folder given with a source (`tasks`, `benchmarks/tb2`). */
export const SourcePath = checked('path', sourcePathIssue);
export const GitRef = checked('ref', gitRefIssue);
export const GitUrl = checked('url', (v) => urlIssue(v, GIT_URL_SCHEMES));
export const RegistryUrl = checked('registry_url', (v) => urlIssue(v, REGISTRY_URL_SCHEMES));

/** Benchmark.source, by kind. */
export const GitSource = z.object({
  url: z.string().min(1),
  ref: z.string().nullable().default(null),
  path: z.string().nullable().default(null),
});
export const RegistrySource = z.object({
  registry_url: z
    .string()
    .nullable()
    .default(null)
    .describe('where the registry document is fetched from; null when it was uploaded'),
  registry_key: z.string().nullable().default(null).describe('storage key of an uploaded registry document'),
  dataset: z.string().min(1).describe('`name@version` as given (version may be absent: highest)'),
  resolved_version: z.string().nullable().default(null).describe('the version it resolved to at sync'),
});
export const ArchiveSource = z.object({
  archive_key: z.string().min(1),
  path: z.string().nullable().default(null),
});
export const CatalogSource = RegistrySource.extend({ catalog_key: z.string() });
export type GitSource = z.infer<typeof GitSource>;
export type RegistrySource = z.infer<typeof RegistrySource>;
export type ArchiveSource = z.infer<typeof ArchiveSource>;
export type CatalogSource = z.infer<typeof CatalogSource>;
