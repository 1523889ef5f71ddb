// Artifact storage: blobs by key. The platform keeps task archives, uploaded benchmark archives
// and attempt artifacts here. Keys are relative paths (`tasks/ab/cd….tar`); implementations
// must treat them as opaque names, so a local filesystem and an S3-compatible bucket behave alike.
import type { Readable } from 'node:stream';

export interface StoredObject {
  key: string;
  size: number;
  modifiedAt: Date;
}

export type PutBody = Buffer | Uint8Array | string | Readable | AsyncIterable<Uint8Array>;

export interface PutOptions {
  /** refuse bodies larger than this many bytes (the partial object is removed) */
  maxBytes?: number;
}

/** Bytes `start` through `end` (inclusive, as in HTTP `Range: bytes=start-end`); no `end` = to the last byte. */
export interface ByteRange {
  start: number;
  end?: number;
}

export interface ArtifactStorage {
  /** Store `body` under `key`, replacing any object there. Atomic: readers never see a partial object. */
  put(key: string, body: PutBody, options?: PutOptions): Promise<StoredObject>;
  /**
   * The object's bytes as a stream, or only those in `range` (a range past the end gives fewer
   * bytes, or none); throws StorageNotFoundError when absent.
   */
  getStream(key: string, range?: ByteRange): Promise<Readable>;
  /** The object's bytes in memory; throws StorageNotFoundError when absent. */
  get(key: string): Promise<Buffer>;
  /** Size and time of the object, or null when absent. */
  stat(key: string): Promise<StoredObject | null>;
  /** Objects whose key starts with `prefix` (a folder-like prefix ending in `/`, or ''), sorted by key. */
  list(prefix: string): Promise<StoredObject[]>;
  /** Remove the object; absent is not an error. */
  delete(key: string): Promise<void>;
  /** Remove every object under `prefix` (must end in `/`); returns how many. */
  deletePrefix(prefix: string): Promise<number>;
}

export class StorageKeyError extends Error {
  constructor(key: string, reason: string) {
    super(`invalid storage key ${JSON.stringify(key)}: ${reason}`);
    this.name = 'StorageKeyError';
  }
}

export class StorageNotFoundError extends Error {
  readonly key: string;
  constructor(key: string) {
    super(`no stored object ${JSON.stringify(key)}`);
    this.name = 'StorageNotFoundError';
    this.key = key;
  }
}

export class StorageTooLargeError extends Error {
  constructor(key: string, maxBytes: number) {
    super(`object ${JSON.stringify(key)} is larger than ${maxBytes} bytes`);
    this.name = 'StorageTooLargeError';
  }
}

/** The store itself failed or cannot be reached; the message names where it is, never a credential. */
export class StorageUnavailableError extends Error {
  /** the network error's code when the store could not be reached (ECONNREFUSED, ETIMEDOUT, …) */
  readonly code?: string;
  constructor(message: string, code?: string) {
    super(message);
    this.name = 'StorageUnavailableError';
    if (code) this.code = code;
  }
}

/** Throw RangeError unless `range` is whole, non-negative and in order. */
export function validateRange(range: ByteRange): ByteRange {
  const { start, end } = range;
  if (!Number.isSafeInteger(start) || start < 0)
    throw new RangeError(`range start ${start} is not a byte offset`);
  if (end !== undefined && (!Number.isSafeInteger(end) || end < start))
    throw new RangeError(`range end ${end} is not a byte offset at or after ${start}`);
  return range;
}

const SEGMENT = /^[A-Za-z0-9._@=+-][A-Za-z0-9._@=+ -]*$/;
/** The longest file name common file systems accept. */
const MAX_SEGMENT_LENGTH = 255;

/**
 * Throw StorageKeyError unless `key` is a relative `/`-separated path of plain segments: no
 * empty, `.` or `..` segment, no leading `/`, no backslash or control character, at most 1024
 * characters, each segment at most 255 and not ending in `.partial` (the local storage's name
 * for objects being written). The same rule holds for every implementation. Names nobody on
 * the platform chose go through `encodeKeyPath` (keys.ts) first.
 */
export function validateKey(key: string, { prefix = false }: { prefix?: boolean } = {}): string {
  if (typeof key !== 'string') throw new StorageKeyError(String(key), 'not a string');
  if (prefix && key === '') return key;
  if (key.length === 0) throw new StorageKeyError(key, 'empty');
  if (key.length > 1024) throw new StorageKeyError(key, 'longer than 1024 characters');
  if (key.startsWith('/')) throw new StorageKeyError(key, 'absolute');
  const body = prefix && key.endsWith('/') ? key.slice(0, -1) : key;
  for (const segment of body.split('/')) {
    if (segment === '' || segment === '.' || segment === '..') {
      throw new StorageKeyError(key, `bad segment ${JSON.stringify(segment)}`);
    }
    if (!SEGMENT.test(segment))
      throw new StorageKeyError(
        key,
        `segment ${JSON.stringify(segment)} has characters outside [A-Za-z0-9._@=+ -]`,
      );
    if (segment.length > MAX_SEGMENT_LENGTH)
      throw new StorageKeyError(key, `a segment is longer than ${MAX_SEGMENT_LENGTH} characters`);
    if (segment.endsWith('.partial'))
      throw new StorageKeyError(key, `segment ${JSON.stringify(segment)} ends in .partial (reserved)`);
  }
  return key;
}
