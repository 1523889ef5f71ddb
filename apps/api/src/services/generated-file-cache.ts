// What the API keeps of generated download files between a manifest and the downloads that
// follow it: each file's size, and the bytes of small ones. Bounded three ways, because the key
// comes from the request (`?at=` is any time a client sends): entries live `ttlMs`, kept bytes
// stay under `maxBytes` (no single file over a quarter of it), and at most `maxEntries` are
// remembered, the oldest forgotten first — without that last bound a client sending distinct
// `at` values grew the map without limit for as long as it kept asking.

export interface CachedFile {
  at: number;
  size: number;
  buf: Buffer | null;
}

export interface GeneratedFileCacheLimits {
  ttlMs: number;
  maxBytes: number;
  maxEntries: number;
}

export class GeneratedFileCache {
  readonly maxKeptFile: number;
  private readonly entries = new Map<string, CachedFile>();
  private keptBytes = 0;
  private readonly limits: GeneratedFileCacheLimits;

  constructor(limits: GeneratedFileCacheLimits) {
    this.limits = limits;
    this.maxKeptFile = limits.maxBytes / 4;
  }

  get size(): number {
    return this.entries.size;
  }

  get bytes(): number {
    return this.keptBytes;
  }

  get(key: string, now = Date.now()): CachedFile | undefined {
    this.expire(now);
    return this.entries.get(key);
  }

  remember(key: string, size: number, buf: Buffer | null, now = Date.now()): void {
    this.drop(key);
    const kept = buf && buf.length <= this.maxKeptFile ? buf : null;
    this.entries.set(key, { at: now, size, buf: kept });
    this.keptBytes += kept?.length ?? 0;
    // insertion order is age order: the first entries are the oldest
    for (const oldest of this.entries.keys()) {
      if (this.entries.size <= this.limits.maxEntries) break;
      this.drop(oldest);
    }
    if (this.keptBytes > this.limits.maxBytes) {
      for (const [k, v] of this.entries) {
        if (this.keptBytes <= this.limits.maxBytes) break;
        if (v.buf) this.drop(k);
      }
    }
  }

  private expire(now: number): void {
    for (const [k, v] of this.entries) {
      if (now - v.at <= this.limits.ttlMs) break; // the rest are newer
      this.drop(k);
    }
  }

  private drop(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.keptBytes -= entry.buf?.length ?? 0;
  }
}
