// Sending a download's bytes: artifact storage as a stream source, single `Range: bytes=` ranges
// (206 with Content-Range, 416 when not satisfiable) and a Content-Disposition that a hostile
// file name cannot break out of.
import path from 'node:path';
import type { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';

/** What downloads need from artifact storage (structurally @osmosis/storage's ArtifactStorage). */
export interface BlobSource {
  getStream(key: string, range?: { start: number; end?: number }): Promise<Readable>;
}

/**
 * Parses a single `bytes=` range; null = none or ignored (multiple ranges, a unit other than
 * bytes: RFC 9110 says to ignore a range unit not understood); 'invalid' = 416.
 */
export function parseRange(
  header: string | undefined,
  size: number,
): { start: number; end: number } | null | 'invalid' {
  if (!header) return null;
  if (!/^\s*bytes\s*=/i.test(header)) return null;
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m) return header.includes(',') ? null : 'invalid';
  const [, a, b] = m as unknown as [string, string, string];
  if (a === '' && b === '') return 'invalid';
  let start: number;
  let end: number;
  if (a === '') {
    const suffix = Number(b);
    if (suffix === 0) return 'invalid';
    start = Math.max(0, size - suffix);
    end = size - 1;
  } else {
    start = Number(a);
    end = b === '' ? size - 1 : Math.min(Number(b), size - 1);
  }
  if (start >= size || end < start) return 'invalid';
  return { start, end };
}

/**
 * `Content-Disposition` of an artifact: its last path segment, as ASCII with everything but
 * letters, digits, `.`, `_` and `-` as `_`, and in full as RFC 5987 `filename*`. Names are data
 * an agent or a verifier chose: neither form can break out of the header.
 */
export function attachmentDisposition(filePath: string): string {
  const base = filePath.split('/').pop() || 'download';
  const ascii = base.replace(/[^\w.-]/g, '_').replace(/^\.+/, '_') || 'download';
  const utf8 = encodeURIComponent(base).replace(
    /['()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `attachment; filename="${ascii}"; filename*=UTF-8''${utf8}`;
}

const CONTENT_TYPES: Record<string, string> = {
  '.csv': 'text/csv; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.json': 'application/json',
  '.log': 'text/plain; charset=utf-8',
};

function contentTypeOf(filePath: string): string {
  return CONTENT_TYPES[path.extname(filePath).toLowerCase()] ?? 'application/octet-stream';
}

/** A whole file of a size not known yet: streamed with chunked transfer encoding. */
export function sendStream(reply: FastifyReply, filePath: string, body: Readable): FastifyReply {
  reply.header('accept-ranges', 'bytes').header('content-type', contentTypeOf(filePath));
  return reply.send(body);
}

export async function sendBytes(
  reply: FastifyReply,
  range: string | undefined,
  size: number,
  filePath: string,
  body: Buffer | ((start: number, end: number) => Promise<Readable>),
): Promise<FastifyReply> {
  const type = contentTypeOf(filePath);
  reply.header('accept-ranges', 'bytes');
  const r = size === 0 ? null : parseRange(range, size);
  if (r === 'invalid') {
    reply.code(416).header('content-range', `bytes */${size}`).header('content-type', 'application/json');
    return reply.send({
      error: {
        code: 'VALIDATION_ERROR',
        message: `Range ${JSON.stringify(String(range).slice(0, 100))} is not satisfiable: the file has ${size} bytes; ask for one range bytes=START-END with START at most ${size - 1} and END not below START, or leave Range out for the whole file`,
        details: { size },
      },
    });
  }
  reply.header('content-type', type);
  const start = r ? r.start : 0;
  const end = r ? r.end : size - 1;
  if (r) reply.code(206).header('content-range', `bytes ${start}-${end}/${size}`);
  reply.header('content-length', String(Math.max(0, end - start + 1)));
  if (Buffer.isBuffer(body)) return reply.send(body.subarray(start, end + 1));
  if (size === 0) return reply.send(Buffer.alloc(0));
  return reply.send(await body(start, end));
}
