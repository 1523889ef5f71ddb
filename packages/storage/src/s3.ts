// ArtifactStorage in an S3-compatible bucket (AWS S3, MinIO, Cloudflare R2, …) with the AWS SDK v3.
// Keys follow the same rule as the local storage (validateKey) and sit under an optional key
// prefix, so one bucket can hold several installations. Atomicity comes from S3 itself: a
// PutObject and a completed multipart upload appear whole or not at all, so readers never see a
// partial object; an upload that fails or is too large is aborted (its parts are dropped).
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  type ListObjectsV2CommandOutput,
  S3Client,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import {
  type ArtifactStorage,
  type ByteRange,
  type PutBody,
  type PutOptions,
  StorageKeyError,
  StorageNotFoundError,
  StorageTooLargeError,
  StorageUnavailableError,
  type StoredObject,
  validateKey,
  validateRange,
} from './storage.ts';

export interface S3StorageConfig {
  bucket: string;
  /** e.g. `http://127.0.0.1:9000` for MinIO; absent = AWS S3 in `region` */
  endpoint?: string;
  region: string;
  /** key prefix inside the bucket, '' or ending in `/` */
  prefix?: string;
  /** `http://host/bucket/key` instead of `http://bucket.host/key` (MinIO and most self-hosted stores) */
  forcePathStyle?: boolean;
  /** absent = the SDK's default chain (AWS_* variables, profile, instance role) */
  credentials?: { accessKeyId: string; secretAccessKey: string };
  /** multipart part size in bytes (S3's minimum is 5 MiB); bodies smaller than this are one PutObject */
  partSize?: number;
  /** keys per ListObjectsV2 page (S3's maximum is 1000) */
  pageSize?: number;
  /** attempts per request, including the first (the SDK retries throttling and network errors) */
  maxAttempts?: number;
}

const MIN_PART_SIZE = 5 * 1024 * 1024;

function toStream(body: PutBody): Readable {
  if (typeof body === 'string' || body instanceof Uint8Array) return Readable.from([Buffer.from(body)]);
  if (body instanceof Readable) return body;
  return Readable.from(body);
}

function statusOf(error: unknown): number | undefined {
  return (error as { $metadata?: { httpStatusCode?: number } })?.$metadata?.httpStatusCode;
}

function isMissing(error: unknown): boolean {
  const name = (error as { name?: string })?.name;
  if (name === 'NoSuchBucket') return false;
  return name === 'NoSuchKey' || name === 'NotFound' || statusOf(error) === 404;
}

/** What went wrong, in words that never include a credential (SDK errors carry none). */
function reasonOf(error: unknown): string {
  const e = error as { name?: string; code?: string; message?: string; errors?: unknown[] };
  const parts = [e?.code ?? e?.name, e?.message].filter(
    (p): p is string => typeof p === 'string' && p !== '',
  );
  const status = statusOf(error);
  if (status) parts.push(`HTTP ${status}`);
  if (parts.length === 0 && Array.isArray(e?.errors) && e.errors.length > 0) return reasonOf(e.errors[0]);
  return parts.length > 0 ? [...new Set(parts)].join(': ') : String(error);
}

/** Bytes `range` of a stream whose first byte is byte `offset` of the object. */
function sliceBytes(source: Readable, range: ByteRange, offset: number): Readable {
  const end = range.end ?? Number.POSITIVE_INFINITY;
  let pos = offset;
  const slicer = new Transform({
    transform(chunk: Buffer, _enc, cb) {
      const from = Math.max(range.start - pos, 0);
      const to = Math.min(end + 1 - pos, chunk.length);
      pos += chunk.length;
      cb(null, from < to ? chunk.subarray(from, to) : undefined);
    },
  });
  pipeline(source, slicer).catch(() => {});
  return slicer;
}

/** The errno-style code of a network failure (the API answers those with 503), if any. */
function networkCodeOf(error: unknown): string | undefined {
  const e = error as { code?: unknown; errors?: unknown[] };
  if (typeof e?.code === 'string' && /^E[A-Z]+$/.test(e.code)) return e.code;
  if (Array.isArray(e?.errors)) return networkCodeOf(e.errors[0]);
  return undefined;
}

function isValidKey(key: string): boolean {
  try {
    validateKey(key);
    return true;
  } catch {
    return false;
  }
}

export class S3Storage implements ArtifactStorage {
  readonly client: S3Client;
  readonly bucket: string;
  readonly prefix: string;
  /** Where the store is, for messages: endpoint and bucket, never credentials. */
  readonly where: string;
  private readonly partSize: number;
  private readonly pageSize: number;

  constructor(config: S3StorageConfig) {
    this.bucket = config.bucket;
    this.prefix = config.prefix ?? '';
    if (this.prefix !== '' && !this.prefix.endsWith('/'))
      throw new StorageKeyError(this.prefix, 'a key prefix must end in "/"');
    validateKey(this.prefix, { prefix: true });
    this.partSize = Math.max(config.partSize ?? 8 * 1024 * 1024, MIN_PART_SIZE);
    this.pageSize = Math.min(Math.max(config.pageSize ?? 1000, 1), 1000);
    this.where = `bucket "${config.bucket}" at ${config.endpoint ?? `AWS S3 (${config.region})`}`;
    this.client = new S3Client({
      region: config.region,
      endpoint: config.endpoint,
      forcePathStyle: config.forcePathStyle,
      credentials: config.credentials,
      maxAttempts: config.maxAttempts,
      // Only the checksums S3 demands: MinIO, R2 and older stores reject or mangle the optional
      // CRC trailers newer SDKs send by default, and a ranged read has no whole-object checksum.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
  }

  private objectKey(key: string): string {
    return this.prefix + validateKey(key);
  }

  private failure(action: string, key: string, error: unknown): StorageUnavailableError {
    return new StorageUnavailableError(
      `object storage ${this.where} could not ${action} ${JSON.stringify(key)}: ${reasonOf(error)}`,
      networkCodeOf(error),
    );
  }

  async put(key: string, body: PutBody, options: PutOptions = {}): Promise<StoredObject> {
    const objectKey = this.objectKey(key);
    const max = options.maxBytes;
    let size = 0;
    let tooLarge = false;
    const counter = new Transform({
      transform(chunk: Buffer, _enc, cb) {
        size += chunk.length;
        if (max !== undefined && size > max) {
          tooLarge = true;
          cb(new StorageTooLargeError(key, max));
        } else cb(null, chunk);
      },
    });
    const source = toStream(body);
    // errors of the source or the counter reach the upload through `counter`
    pipeline(source, counter).catch(() => {});
    const upload = new Upload({
      client: this.client,
      params: { Bucket: this.bucket, Key: objectKey, Body: counter },
      partSize: this.partSize,
      queueSize: 2,
      leavePartsOnError: false,
    });
    try {
      await upload.done();
    } catch (error) {
      source.destroy();
      counter.destroy();
      // done() aborts a multipart upload it started; abort() again is a no-op then, and covers
      // an upload whose abort itself failed the first time
      await upload.abort().catch(() => {});
      if (tooLarge) throw new StorageTooLargeError(key, max as number);
      throw this.failure('store', key, error);
    }
    return { key, size, modifiedAt: new Date() };
  }

  async getStream(key: string, range?: ByteRange): Promise<Readable> {
    const objectKey = this.objectKey(key);
    if (range) validateRange(range);
    try {
      const res = await this.client.send(
        new GetObjectCommand({
          Bucket: this.bucket,
          Key: objectKey,
          Range: range ? `bytes=${range.start}-${range.end ?? ''}` : undefined,
        }),
      );
      const body = res.Body as Readable;
      if (!range) return body;
      // HTTP lets a server ignore Range (200, the whole object); some fake and older stores
      // also answer a range with more than was asked (s3rver sends all of `bytes=0-0`), so trust
      // only what Content-Range says was sent and cut the rest here
      const sent = /^bytes (\d+)-(\d+)\//.exec(res.ContentRange ?? '');
      const sentStart = sent ? Number(sent[1]) : 0;
      const sentEnd = sent ? Number(sent[2]) : Number.POSITIVE_INFINITY;
      if (sentStart === range.start && range.end !== undefined && sentEnd <= range.end) return body;
      if (sentStart === range.start && range.end === undefined) return body;
      if (sentStart > range.start) {
        body.destroy();
        throw new Error(`the store sent bytes from ${sentStart} when asked for ${range.start}`);
      }
      return sliceBytes(body, range, sentStart);
    } catch (error) {
      if (isMissing(error)) throw new StorageNotFoundError(key);
      // a range that starts past the end: no bytes, as the local storage gives
      if (range && statusOf(error) === 416) {
        if ((await this.stat(key)) === null) throw new StorageNotFoundError(key);
        return Readable.from([]);
      }
      throw this.failure('read', key, error);
    }
  }

  async get(key: string): Promise<Buffer> {
    const stream = await this.getStream(key);
    const chunks: Buffer[] = [];
    try {
      for await (const chunk of stream) chunks.push(Buffer.from(chunk as Uint8Array));
    } catch (error) {
      throw this.failure('read', key, error);
    }
    return Buffer.concat(chunks);
  }

  async stat(key: string): Promise<StoredObject | null> {
    const objectKey = this.objectKey(key);
    try {
      const res = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: objectKey }));
      return { key, size: res.ContentLength ?? 0, modifiedAt: res.LastModified ?? new Date(0) };
    } catch (error) {
      if (isMissing(error)) return null;
      throw this.failure('look up', key, error);
    }
  }

  /** Every object under `prefix` (including ones whose key this platform would not write), page by page. */
  private async *objects(prefix: string): AsyncGenerator<StoredObject[]> {
    let token: string | undefined;
    do {
      let page: ListObjectsV2CommandOutput;
      try {
        page = await this.client.send(
          new ListObjectsV2Command({
            Bucket: this.bucket,
            Prefix: this.prefix + prefix,
            ContinuationToken: token,
            MaxKeys: this.pageSize,
          }),
        );
      } catch (error) {
        throw this.failure('list', prefix, error);
      }
      yield (page.Contents ?? [])
        .filter((o): o is { Key: string; Size?: number; LastModified?: Date } => typeof o.Key === 'string')
        .map((o) => ({
          key: o.Key.slice(this.prefix.length),
          size: o.Size ?? 0,
          modifiedAt: o.LastModified ?? new Date(0),
        }));
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }

  async list(prefix: string): Promise<StoredObject[]> {
    validateKey(prefix, { prefix: true });
    const out: StoredObject[] = [];
    for await (const page of this.objects(prefix)) out.push(...page.filter((o) => isValidKey(o.key)));
    return out.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  }

  async delete(key: string): Promise<void> {
    const objectKey = this.objectKey(key);
    try {
      await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: objectKey }));
    } catch (error) {
      if (isMissing(error)) return;
      throw this.failure('delete', key, error);
    }
  }

  async deletePrefix(prefix: string): Promise<number> {
    if (!prefix.endsWith('/')) throw new Error('deletePrefix needs a prefix ending in "/"');
    validateKey(prefix, { prefix: true });
    let removed = 0;
    // a page holds at most 1000 keys, DeleteObjects' limit
    for await (const page of this.objects(prefix)) {
      if (page.length === 0) continue;
      let res: { Errors?: { Key?: string; Code?: string; Message?: string }[] };
      try {
        res = await this.client.send(
          new DeleteObjectsCommand({
            Bucket: this.bucket,
            Delete: { Objects: page.map((o) => ({ Key: this.prefix + o.key })), Quiet: true },
          }),
        );
      } catch (error) {
        throw this.failure('delete under', prefix, error);
      }
      const failed = res.Errors ?? [];
      if (failed.length > 0) {
        const first = failed[0];
        throw new StorageUnavailableError(
          `object storage ${this.where} could not delete ${failed.length} object(s) under ${JSON.stringify(prefix)}, ` +
            `e.g. ${JSON.stringify(first?.Key)}: ${first?.Code ?? ''} ${first?.Message ?? ''}`.trim(),
        );
      }
      removed += page.length;
    }
    return removed;
  }
}
