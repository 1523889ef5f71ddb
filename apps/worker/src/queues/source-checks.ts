// Checks the benchmark sync applies to what a source hands it: the registry document's
// download (egress policy, every redirect hop checked, a size cap) and each task's size.
import { REGISTRY_URL_SCHEMES, type TaskManifest, urlIssue } from '@osmosis/contracts';
import { type EgressPolicy, guardedFetch } from '@osmosis/egress';
import { ArchiveError, DEFAULT_EXTRACT_LIMITS, type ExtractOptions, safeEntryPath } from '@osmosis/tasks';

/** A registry document larger than this is refused (Harbor's whole registry is ~2 MB). */
export const MAX_REGISTRY_BYTES = 64 * 1024 * 1024;

/**
 * The registry document at `url`: https/http only, every connection and redirect hop checked
 * against `policy` (so neither DNS nor a redirect reaches a loopback, private or link-local
 * address the operator did not allow), 60 s, at most MAX_REGISTRY_BYTES.
 */
export async function fetchRegistryText(url: string, policy: EgressPolicy): Promise<string> {
  const issue = urlIssue(url, REGISTRY_URL_SCHEMES);
  if (issue) throw new Error(`registry_url ${issue}`);
  const response = await guardedFetch(
    url,
    { signal: AbortSignal.timeout(60_000) },
    { policy, redirects: 'checked', schemes: REGISTRY_URL_SCHEMES },
  );
  if (!response.ok) {
    await response.body?.cancel().catch(() => undefined);
    throw new Error(`HTTP ${response.status} ${response.statusText}`);
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (response.body) {
    for await (const chunk of response.body) {
      size += chunk.byteLength;
      if (size > MAX_REGISTRY_BYTES) {
        throw new Error(`the registry document is larger than ${MAX_REGISTRY_BYTES} bytes`);
      }
      chunks.push(chunk);
    }
  }
  return Buffer.concat(chunks).toString('utf8');
}

type Limits = Pick<ExtractOptions, 'maxBytes' | 'maxEntryBytes' | 'maxEntries' | 'limitNames'>;

/**
 * Why a task is too large to import (the same limits as an archive: a git repository must not
 * bring what an upload could not), naming the file and the setting; or null.
 */
export function taskSizeProblem(
  manifest: Pick<TaskManifest, 'files'>,
  label: string,
  limits: Limits = {},
): string | null {
  const maxBytes = limits.maxBytes ?? DEFAULT_EXTRACT_LIMITS.maxBytes;
  const maxEntryBytes = limits.maxEntryBytes ?? DEFAULT_EXTRACT_LIMITS.maxEntryBytes;
  const maxEntries = limits.maxEntries ?? DEFAULT_EXTRACT_LIMITS.maxEntries;
  const setting = (k: keyof NonNullable<Limits['limitNames']>) =>
    limits.limitNames?.[k] ? ` (the limit is set by ${limits.limitNames[k]})` : '';
  const where = (file: string) => (label === '.' ? file : `${label}/${file}`);
  if (manifest.files.length > maxEntries) {
    return `${label} has ${manifest.files.length} files, more than ${maxEntries}${setting('maxEntries')}`;
  }
  let total = 0;
  for (const file of manifest.files) {
    if (file.size > maxEntryBytes) {
      return `${where(file.path)} is ${file.size} bytes, more than ${maxEntryBytes} bytes per file${setting('maxEntryBytes')}`;
    }
    total += file.size;
  }
  if (total > maxBytes) return `${label} holds ${total} bytes, more than ${maxBytes}${setting('maxBytes')}`;
  return null;
}

/**
 * Why a file name of a task cannot be stored, naming the file; or null. A git checkout is a
 * Linux folder, where `a\b`, `C:x` or 70 nested folders are ordinary names, but the task's tar
 * is extracted by the worker with the names an upload may have (packages/archive): a task
 * accepted with such a name would fail every attempt instead of its sync.
 */
export function taskNameProblem(manifest: Pick<TaskManifest, 'files'>, label: string): string | null {
  for (const file of manifest.files) {
    try {
      safeEntryPath(file.path);
    } catch (error) {
      if (!(error instanceof ArchiveError)) throw error;
      // the reason without ArchiveError's `archive entry "…": ` (reasons hold no `": `)
      const reason = error.message.slice(error.message.lastIndexOf('": ') + 3);
      const where = label === '.' ? file.path : `${label}/${file.path}`;
      return `${where}: ${reason}; rename it (a task's file names must be the same on every system)`;
    }
  }
  return null;
}
