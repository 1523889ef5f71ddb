export { ArchiveError, type ArchiveErrorKind, printable } from './errors.ts';
export { extractArchive } from './extract.ts';
export {
  DEFAULT_EXTRACT_LIMITS,
  type ExtractedFile,
  type ExtractLimits,
  type ExtractOptions,
  type ExtractResult,
  RATIO_FLOOR_BYTES,
} from './extract-options.ts';
export type { ArchiveInput } from './input.ts';
export { checkLinkTarget, type LinkCheck } from './links.ts';
export { lstatOrNull } from './lstat.ts';
export { entryParts, MAX_COMPONENT_BYTES, MAX_DEPTH, MAX_NAME_BYTES, safeEntryPath } from './names.ts';
export {
  copyFileIntoEntry,
  listTree,
  type PackedEntry,
  type PackOptions,
  packDirectory,
  packDirectoryBuffer,
} from './pack.ts';
export { type EntrySource, packEntries } from './pack-entries.ts';
