// Downloads of a run's outputs (the files and their columns: docs/downloads.md):
//
//   GET /v1/runs/:name/downloads/manifest?types=summary,results,artifacts,logs
//       → {data: {files: [{type, path, size}], total_size, snapshot, generated_at, ...}}
//   GET /v1/runs/:name/downloads/file?path=<manifest path>[&at=<generated_at>]
//       → the bytes, streamed; `Range: bytes=a-b` gives 206 with Content-Range
//
// Files: summary.csv (one row per agent: the scores), results.csv (one row per attempt),
// logs.txt (the run's lifecycle events), artifacts/<result-id>/<path> (an attempt's artifacts,
// result-id = the attempt id). Pending or queued runs have no outputs (409 CONFLICT). A running
// run gives a snapshot as of `generated_at` (minus a small margin): outcomes, events and
// artifacts recorded after it are left out, and the file endpoint reproduces the same bytes when
// given `at`, so sizes in the manifest hold while the run goes on.
import { open } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { Transform } from 'node:stream';
import {
  DownloadManifestResponse,
  type DownloadType,
  type ManifestFile,
  parseDownloadTypes,
  type RunResults,
  STANDARD_ERROR_RESPONSES,
} from '@osmosis/contracts';
import { type Db, eventsAfter, resultsCsvChunk, runArtifact, runArtifacts } from '@osmosis/db';
import { storageFromProcessEnv } from '@osmosis/tasks';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { isUuid } from '../auth.ts';
import { ApiError } from '../errors.ts';
import { QUALITY_COLUMNS, qualityCells } from './quality-csv.ts';
import { loadRunResults, type RunForResults, RunNameParams, runOr404 } from './results.ts';

/** Outcomes recorded within this margin before a snapshot may still be in flight: left out. */
export const SNAPSHOT_MARGIN_MS = 2000;

// ---------------------------------------------------------------------------------------------
// CSV

export function csvField(value: unknown): string {
  if (value === null || value === undefined) return '';
  let s: string;
  if (value instanceof Date) s = value.toISOString();
  else if (typeof value === 'number') s = Number.isFinite(value) ? String(value) : '';
  else if (typeof value === 'bigint') s = value.toString();
  else if (typeof value === 'boolean') s = value ? 'true' : 'false';
  else s = String(value);
  return /[",\r\n]|^\s|\s$/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}

export function csvLine(values: unknown[]): string {
  return `${values.map(csvField).join(',')}\n`;
}

export const SUMMARY_COLUMNS_BEFORE_K = [
  'rank',
  'rank_label',
  'tied',
  'agent_index',
  'harness',
  'model',
  'agent',
  'pass_at_1',
  'ci_lower',
  'ci_upper',
  'ci_level',
  'ci_method',
  'effective_n',
  'icc',
] as const;
export const SUMMARY_COLUMNS_AFTER_K = [
  'deepest_k',
  'pass_at_deepest',
  'tasks_scored',
  'attempts_scored',
  'passed',
  'failed',
  'errored',
  'cancelled',
  'pending',
  'total',
  'cost_per_task_usd',
  'time_per_task_ms',
  'tokens_per_task',
  'cost_usd',
  'judge_cost_usd',
  'input_tokens',
  'output_tokens',
  'cache_tokens',
  // docs/terminus-2.md: comparability with the published terminus-2 scores; HLE's calibration
  // error; the mean rubric score of partial-credit judges
  ...QUALITY_COLUMNS,
] as const;

/** summary.csv: one row per agent, rank order. pass_at_<k> columns for each reported k > 1. */
export function summaryCsv(results: RunResults): string {
  const ks = (results.agents[0]?.pass_at_k ?? []).map((p) => p.k).filter((k) => k > 1);
  let out = csvLine([
    ...SUMMARY_COLUMNS_BEFORE_K,
    ...ks.map((k) => `pass_at_${k}`),
    ...SUMMARY_COLUMNS_AFTER_K,
  ]);
  for (const a of results.agents) {
    out += csvLine([
      a.rank,
      a.rank_label,
      a.tied,
      a.index,
      a.harness,
      a.model,
      a.label,
      a.pass_at_1,
      a.interval?.lower,
      a.interval?.upper,
      a.interval?.level,
      a.interval?.method,
      a.interval?.effective_n,
      a.interval?.icc,
      ...ks.map((k) => a.pass_at_k.find((p) => p.k === k)?.value),
      a.deepest?.k,
      a.deepest?.value,
      a.tasks_scored,
      a.attempts_scored,
      a.counts.passed,
      a.counts.failed,
      a.counts.errored,
      a.counts.cancelled,
      a.counts.pending,
      a.counts.total,
      a.per_task.cost_usd,
      a.per_task.time_ms,
      a.per_task.tokens,
      a.totals.cost_usd,
      a.totals.judge_cost_usd,
      a.totals.input_tokens,
      a.totals.output_tokens,
      a.totals.cache_tokens,
      ...qualityCells(a),
    ]);
  }
  return out;
}

export const RESULTS_COLUMNS = [
  'result_id',
  'agent_index',
  'harness',
  'model',
  'task',
  'category',
  'difficulty',
  'attempt',
  'tries',
  'status',
  'outcome',
  'reward',
  'error_class',
  'cost_usd',
  'judge_cost_usd',
  'input_tokens',
  'output_tokens',
  'cache_tokens',
  'env_ms',
  'agent_setup_ms',
  'agent_ms',
  'verifier_ms',
  'total_ms',
  'agent_exit_code',
  'agent_timed_out',
  'started_at',
  'finished_at',
  // appended last so scripts reading the columns by position keep working (docs/downloads.md)
  'steps',
] as const;

/** results.csv: one row per attempt, by agent index, task name, attempt index (lines built in SQL). */
export async function resultsCsv(db: Db, runId: string, asOf: Date | null): Promise<Buffer> {
  const parts: Buffer[] = [Buffer.from(csvLine([...RESULTS_COLUMNS]))];
  const PAGE = 25_000;
  for (let offset = 0; ; offset += PAGE) {
    const chunk = await resultsCsvChunk(db, runId, offset, PAGE, asOf);
    parts.push(Buffer.from(chunk.text));
    if (chunk.rows < PAGE) break;
  }
  return Buffer.concat(parts);
}

/** logs.txt: `<ISO time> <LEVEL> [<step>] <message>[ <details JSON>]`, oldest first. */
export async function logsTxt(db: Db, runId: string, asOf: Date | null): Promise<Buffer> {
  const parts: string[] = [];
  let cursor = 0n;
  const PAGE = 5000;
  for (;;) {
    const rows = await eventsAfter(db, runId, cursor, PAGE, asOf);
    for (const e of rows) {
      const details = e.details === null || e.details === undefined ? '' : ` ${JSON.stringify(e.details)}`;
      const message = e.message.replaceAll('\r', '').replaceAll('\n', '\n    ');
      parts.push(
        `${e.timestamp.toISOString()} ${e.level.toUpperCase().padEnd(5)} [${e.step}] ${message}${details}\n`,
      );
      cursor = e.id;
    }
    if (rows.length < PAGE) break;
  }
  return Buffer.from(parts.join(''));
}

// ---------------------------------------------------------------------------------------------
// Paths

/**
 * A relative `/`-separated path made of plain segments (no empty, `.`, `..`, backslash, NUL or
 * control characters, no drive letter): the only artifact paths the manifest lists.
 */
export function isSafeRelativePath(p: string): boolean {
  if (p.length === 0 || p.length > 1024 || p.startsWith('/')) return false;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what we refuse
  if (/[\\\u0000-\u001f\u007f]/.test(p)) return false;
  if (/^[A-Za-z]:/.test(p)) return false;
  return p.split('/').every((s) => s !== '' && s !== '.' && s !== '..');
}

type FileRef =
  | { kind: 'summary' }
  | { kind: 'results' }
  | { kind: 'logs' }
  | { kind: 'artifact'; attemptId: string; path: string };

export function parseFilePath(p: string): FileRef | null {
  if (p === 'summary.csv') return { kind: 'summary' };
  if (p === 'results.csv') return { kind: 'results' };
  if (p === 'logs.txt') return { kind: 'logs' };
  const m = /^artifacts\/([^/]+)\/(.+)$/.exec(p);
  if (!m || !isUuid(m[1] as string) || !isSafeRelativePath(m[2] as string)) return null;
  return { kind: 'artifact', attemptId: (m[1] as string).toLowerCase(), path: m[2] as string };
}

// ---------------------------------------------------------------------------------------------
// Artifact bytes

/** What downloads need from artifact storage (structurally @osmosis/storage's ArtifactStorage). */
export interface BlobSource {
  getStream(key: string, range?: { start: number; end?: number }): Promise<Readable>;
}

/** Reads keys under OSMOSIS_DATA_DIR directly (the local storage layout: key = relative path). */
export function localBlobSource(root: string = process.env.OSMOSIS_DATA_DIR || '.local/data'): BlobSource {
  const base = path.resolve(root);
  return {
    async getStream(key: string, range?: { start: number; end?: number }) {
      if (!isSafeRelativePath(key)) throw new Error(`invalid storage key ${JSON.stringify(key)}`);
      const file = path.join(base, ...key.split('/'));
      const handle = await open(file, 'r');
      return handle.createReadStream(range);
    },
  };
}

function blobSourceOf(app: FastifyInstance): BlobSource {
  const storage = (app as unknown as { storage?: BlobSource }).storage;
  return storage && typeof storage.getStream === 'function' ? storage : storageFromProcessEnv();
}

/** Bytes [start, end] (inclusive) of a stream. */
export function sliceStream(source: Readable, start: number, end: number): Readable {
  let pos = 0;
  const slicer = new Transform({
    transform(chunk: Buffer, _enc, cb) {
      const from = Math.max(0, start - pos);
      const to = Math.min(chunk.length, end + 1 - pos);
      pos += chunk.length;
      if (to > from) this.push(chunk.subarray(from, to));
      if (pos > end) {
        this.push(null);
        source.destroy();
      }
      cb();
    },
  });
  source.on('error', (e) => slicer.destroy(e));
  return source.pipe(slicer);
}

/** Parses a single `bytes=` range; null = none or ignored (multiple ranges); 'invalid' = 416. */
export function parseRange(
  header: string | undefined,
  size: number,
): { start: number; end: number } | null | 'invalid' {
  if (!header) return null;
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

async function sendBytes(
  reply: FastifyReply,
  range: string | undefined,
  size: number,
  filePath: string,
  body: Buffer | ((start: number, end: number) => Promise<Readable>),
): Promise<FastifyReply> {
  const type = CONTENT_TYPES[path.extname(filePath).toLowerCase()] ?? 'application/octet-stream';
  reply.header('accept-ranges', 'bytes');
  const r = size === 0 ? null : parseRange(range, size);
  if (r === 'invalid') {
    reply.code(416).header('content-range', `bytes */${size}`).header('content-type', 'application/json');
    return reply.send({
      error: { code: 'VALIDATION_ERROR', message: 'range not satisfiable', details: { size } },
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

// ---------------------------------------------------------------------------------------------
// Generated files, cached briefly: a manifest computes them (for their sizes) and the download
// that follows asks for the same bytes. The key pins the content: a snapshot by its as-of time
// (content as of a past instant), a terminal run by its status and finish time; entries live
// 30 s, at most 64 MiB in all. Another API instance simply generates them again.

const GENERATED_TTL_MS = 30_000;
const GENERATED_MAX_BYTES = 64 * 1024 * 1024;
const generated = new Map<string, { at: number; buf: Buffer }>();
let generatedBytes = 0;

function generatedKey(run: RunForResults, kind: string, asOf: Date | null): string | null {
  if (asOf) return `${run.id}|${kind}|asof:${asOf.toISOString()}`;
  if (run.status === 'finished' || run.status === 'failed' || run.status === 'stopped') {
    return `${run.id}|${kind}|${run.status}:${run.finishedAt?.toISOString() ?? ''}`;
  }
  return null;
}

export async function generatedFile(
  db: Db,
  run: RunForResults,
  kind: 'summary' | 'results' | 'logs',
  asOf: Date | null,
): Promise<Buffer> {
  const key = generatedKey(run, kind, asOf);
  const now = Date.now();
  for (const [k, v] of generated) {
    if (now - v.at <= GENERATED_TTL_MS) break; // insertion order: the rest are newer
    generated.delete(k);
    generatedBytes -= v.buf.length;
  }
  const hit = key ? generated.get(key) : undefined;
  if (hit) return hit.buf;
  let buf: Buffer;
  if (kind === 'summary')
    buf = Buffer.from(summaryCsv(await loadRunResults(db, run, asOf ?? undefined, asOf)));
  else if (kind === 'results') buf = await resultsCsv(db, run.id, asOf);
  else buf = await logsTxt(db, run.id, asOf);
  if (key && buf.length <= GENERATED_MAX_BYTES / 4) {
    generated.set(key, { at: now, buf });
    generatedBytes += buf.length;
    for (const [k, v] of generated) {
      if (generatedBytes <= GENERATED_MAX_BYTES) break;
      generated.delete(k);
      generatedBytes -= v.buf.length;
    }
  }
  return buf;
}

// ---------------------------------------------------------------------------------------------
// Manifest

function assertHasOutputs(run: RunForResults): void {
  if (run.status === 'pending' || run.status === 'queued') {
    throw ApiError.conflict(`run ${run.name} is ${run.status}: it has no outputs yet`, {
      status: run.status,
    });
  }
}

/** The as-of time of a download: the snapshot time for a run still going on, else none. */
function asOfFor(run: RunForResults, at: Date | null): Date | null {
  if (!at) return null;
  if (run.status !== 'running' && run.finishedAt && run.finishedAt <= at) return null;
  return at;
}

export async function buildManifest(
  app: FastifyInstance,
  run: RunForResults,
  types: DownloadType[],
  now: Date = new Date(),
): Promise<{ files: ManifestFile[]; generatedAt: Date; snapshot: boolean }> {
  const db = app.db;
  const snapshot = run.status === 'running';
  const generatedAt = snapshot ? new Date(now.getTime() - SNAPSHOT_MARGIN_MS) : now;
  const asOf = snapshot ? generatedAt : null;
  const files: ManifestFile[] = [];
  if (types.includes('summary')) {
    files.push({
      type: 'summary',
      path: 'summary.csv',
      size: (await generatedFile(db, run, 'summary', asOf)).length,
    });
  }
  if (types.includes('results')) {
    files.push({
      type: 'results',
      path: 'results.csv',
      size: (await generatedFile(db, run, 'results', asOf)).length,
    });
  }
  if (types.includes('logs')) {
    files.push({ type: 'logs', path: 'logs.txt', size: (await generatedFile(db, run, 'logs', asOf)).length });
  }
  if (types.includes('artifacts')) {
    for (const a of await runArtifacts(db, run.id, asOf)) {
      if (!isSafeRelativePath(a.path)) {
        // the path is not logged: a name recorded before names were scrubbed may hold a secret
        app.log.warn(
          { attempt_id: a.attempt_id, path_length: a.path.length },
          'artifact with an unsafe path left out of the manifest',
        );
        continue;
      }
      files.push({ type: 'artifacts', path: `artifacts/${a.attempt_id}/${a.path}`, size: a.size });
    }
  }
  return { files, generatedAt, snapshot };
}

export const downloadRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/runs/:name/downloads/manifest',
    {
      schema: {
        tags: ['results'],
        summary: "The files of a run's download (path and size per type); 409 for pending or queued runs",
        params: RunNameParams,
        querystring: z.object({
          types: z.string().optional().describe('comma-separated: summary, results, artifacts, logs, or all'),
        }),
        response: { 200: DownloadManifestResponse, ...STANDARD_ERROR_RESPONSES },
      },
    },
    async (request) => {
      const types = parseDownloadTypes(request.query.types);
      if (!types) {
        throw ApiError.validation(`unknown download type in ${JSON.stringify(request.query.types)}`, [
          {
            path: 'query.types',
            message: 'expected a comma-separated list of summary, results, artifacts, logs, or all',
          },
        ]);
      }
      const run = await runOr404(app.db, request.auth.workspace.id, request.params.name);
      assertHasOutputs(run);
      const { files, generatedAt, snapshot } = await buildManifest(app, run, types);
      return {
        data: {
          run_id: run.id,
          run_name: run.name,
          status: run.status,
          snapshot,
          generated_at: generatedAt.toISOString(),
          types,
          files,
          total_size: files.reduce((s, f) => s + f.size, 0),
        },
      };
    },
  );

  app.get(
    '/runs/:name/downloads/file',
    {
      schema: {
        tags: ['results'],
        summary: 'One file of the manifest, streamed; supports `Range: bytes=`',
        params: RunNameParams,
        querystring: z.object({
          path: z.string().min(1),
          at: z.string().datetime({ offset: true }).optional().describe("the manifest's generated_at"),
        }),
      },
    },
    async (request, reply) => {
      const run = await runOr404(app.db, request.auth.workspace.id, request.params.name);
      assertHasOutputs(run);
      const ref = parseFilePath(request.query.path);
      if (!ref) throw ApiError.notFound('file');
      const asOf = asOfFor(run, request.query.at ? new Date(request.query.at) : null);
      const range = request.headers.range;
      const db = app.db;
      if (ref.kind === 'summary') {
        const buf = await generatedFile(db, run, 'summary', asOf);
        return sendBytes(reply, range, buf.length, 'summary.csv', buf);
      }
      if (ref.kind === 'results') {
        const buf = await generatedFile(db, run, 'results', asOf);
        return sendBytes(reply, range, buf.length, 'results.csv', buf);
      }
      if (ref.kind === 'logs') {
        const buf = await generatedFile(db, run, 'logs', asOf);
        return sendBytes(reply, range, buf.length, 'logs.txt', buf);
      }
      const artifact = await runArtifact(db, run.id, ref.attemptId, ref.path);
      if (!artifact) throw ApiError.notFound('file');
      const source = blobSourceOf(app);
      reply
        .header('content-disposition', attachmentDisposition(ref.path))
        .header('x-content-type-options', 'nosniff');
      return sendBytes(reply, range, artifact.size, ref.path, async (start, end) => {
        let stream: Readable;
        try {
          stream = await source.getStream(artifact.storage_key, { start, end });
        } catch (error) {
          request.log.warn({ err: error, key: artifact.storage_key }, 'artifact missing from storage');
          throw new ApiError('UNAVAILABLE', 'the artifact is not available from storage');
        }
        return stream;
      });
    },
  );
};
