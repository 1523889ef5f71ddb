// ArtifactStorage on the local filesystem, rooted at OSMOSIS_DATA_DIR (default `.local/data`).
import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  type ArtifactStorage,
  type ByteRange,
  type PutBody,
  type PutOptions,
  StorageNotFoundError,
  StorageTooLargeError,
  type StoredObject,
  validateKey,
  validateRange,
} from './storage.ts';

export const DEFAULT_DATA_DIR = '.local/data';

function toStream(body: PutBody): Readable {
  if (typeof body === 'string' || body instanceof Uint8Array) return Readable.from([Buffer.from(body)]);
  if (body instanceof Readable) return body;
  return Readable.from(body);
}

export class LocalStorage implements ArtifactStorage {
  readonly root: string;

  constructor(root: string) {
    this.root = path.resolve(root);
  }

  /** Absolute path of a key; the key is validated, so the path is always under root. */
  pathOf(key: string): string {
    validateKey(key);
    const abs = path.join(this.root, ...key.split('/'));
    if (!abs.startsWith(this.root + path.sep)) throw new Error(`key escapes the storage root: ${key}`);
    return abs;
  }

  async put(key: string, body: PutBody, options: PutOptions = {}): Promise<StoredObject> {
    const target = this.pathOf(key);
    await mkdir(path.dirname(target), { recursive: true });
    const tmp = `${target}.${randomBytes(6).toString('hex')}.partial`;
    let size = 0;
    const max = options.maxBytes;
    const counter = new Transform({
      transform(chunk: Buffer, _enc, cb) {
        size += chunk.length;
        if (max !== undefined && size > max) cb(new StorageTooLargeError(key, max));
        else cb(null, chunk);
      },
    });
    try {
      await pipeline(toStream(body), counter, createWriteStream(tmp));
      await rename(tmp, target);
    } catch (error) {
      await rm(tmp, { force: true });
      throw error;
    }
    const st = await stat(target);
    return { key, size: st.size, modifiedAt: st.mtime };
  }

  async getStream(key: string, range?: ByteRange): Promise<Readable> {
    const p = this.pathOf(key);
    if (range) validateRange(range);
    const st = await stat(p).catch(() => null);
    if (!st?.isFile()) throw new StorageNotFoundError(key);
    return range ? createReadStream(p, { start: range.start, end: range.end }) : createReadStream(p);
  }

  async get(key: string): Promise<Buffer> {
    try {
      return await readFile(this.pathOf(key));
    } catch (error) {
      if (
        (error as NodeJS.ErrnoException).code === 'ENOENT' ||
        (error as NodeJS.ErrnoException).code === 'EISDIR'
      ) {
        throw new StorageNotFoundError(key);
      }
      throw error;
    }
  }

  async stat(key: string): Promise<StoredObject | null> {
    const st = await stat(this.pathOf(key)).catch(() => null);
    if (!st?.isFile()) return null;
    return { key, size: st.size, modifiedAt: st.mtime };
  }

  async list(prefix: string): Promise<StoredObject[]> {
    validateKey(prefix, { prefix: true });
    // walk from the deepest complete folder of the prefix
    const slash = prefix.lastIndexOf('/');
    const dirKey = slash >= 0 ? prefix.slice(0, slash) : '';
    const start = dirKey ? path.join(this.root, ...dirKey.split('/')) : this.root;
    const out: StoredObject[] = [];
    const walk = async (abs: string, keyBase: string): Promise<void> => {
      const entries = await readdir(abs, { withFileTypes: true }).catch(() => []);
      for (const entry of entries) {
        const key = keyBase ? `${keyBase}/${entry.name}` : entry.name;
        if (entry.isDirectory()) await walk(path.join(abs, entry.name), key);
        else if (entry.isFile() && !entry.name.endsWith('.partial') && key.startsWith(prefix)) {
          const st = await stat(path.join(abs, entry.name)).catch(() => null);
          if (st) out.push({ key, size: st.size, modifiedAt: st.mtime });
        }
      }
    };
    await walk(start, dirKey);
    return out.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  }

  async delete(key: string): Promise<void> {
    await rm(this.pathOf(key), { force: true });
  }

  async deletePrefix(prefix: string): Promise<number> {
    if (!prefix.endsWith('/')) throw new Error('deletePrefix needs a prefix ending in "/"');
    const objects = await this.list(prefix);
    await Promise.all(objects.map((o) => this.delete(o.key)));
    const dir = path.join(this.root, ...prefix.slice(0, -1).split('/'));
    await rm(dir, { recursive: true, force: true });
    return objects.length;
  }
}

/** Local storage at `root`, or at OSMOSIS_DATA_DIR, or at `.local/data` under the working directory. */
export function createLocalStorage(
  root: string = process.env.OSMOSIS_DATA_DIR || DEFAULT_DATA_DIR,
): LocalStorage {
  return new LocalStorage(root);
}
