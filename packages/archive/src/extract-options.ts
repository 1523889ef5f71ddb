// What an extraction may be asked to do and what it reports: the limits, the options, the result.
import type { NameStyle } from './names.ts';

export interface ExtractLimits {
  /** bytes of content in all entries (default 512 MiB) */
  maxBytes: number;
  /** bytes of one entry (default 256 MiB) */
  maxEntryBytes: number;
  /** entries of any kind (default 20 000) */
  maxEntries: number;
  /** decompressed bytes per compressed byte, checked past RATIO_FLOOR_BYTES (default 200) */
  maxRatio: number;
}

export const DEFAULT_EXTRACT_LIMITS: Readonly<ExtractLimits> = {
  maxBytes: 512 * 1024 * 1024,
  maxEntryBytes: 256 * 1024 * 1024,
  maxEntries: 20_000,
  maxRatio: 200,
};

/** Below this many decompressed bytes the ratio is not checked: small archives of repetitive text are fine. */
export const RATIO_FLOOR_BYTES = 32 * 1024 * 1024;

export interface ExtractOptions extends Partial<ExtractLimits> {
  /**
   * `safe` (default): symlinks kept when they stay inside, hard links copied. `skip`: links are
   * left out (downloads from a sandbox, where nothing needs them).
   */
  links?: 'safe' | 'skip';
  /** devices, fifos and unknown entry types: `refuse` (default) or `skip` */
  special?: 'refuse' | 'skip';
  /** leading path components dropped from every name (after the name is checked whole) */
  stripComponents?: number;
  /** keep only entries whose relative path (after stripping) passes */
  filter?: (relPath: string) => boolean;
  /** keep the executable bit of files (default true); otherwise every file is 0644 */
  executable?: boolean;
  /** `portable` (default) or `posix`: backslashes and `C:` are ordinary name characters (names.ts) */
  names?: NameStyle;
  /**
   * `refuse` (default): an entry whose name is unsafe or cannot exist on this file system ends the
   * extraction. `skip`: it is left out and counted in `skipped` (downloads of what an agent wrote:
   * one odd name must not cost the other files).
   */
  unsafeNames?: 'refuse' | 'skip';
  /** how an operator changes each limit (an env setting), named in the error message */
  limitNames?: Partial<Record<keyof ExtractLimits, string>>;
}

/** A regular file written by an extraction. */
export interface ExtractedFile {
  /** path relative to the destination (POSIX separators) */
  path: string;
  size: number;
  hostPath: string;
}

export interface ExtractResult {
  files: ExtractedFile[];
  /** entries read, of every kind */
  entries: number;
  /** bytes of content read */
  bytes: number;
  /** entries left out because of their names (`unsafeNames: 'skip'`) */
  skipped: number;
}
