// Downloads of a run's outputs (the files and their columns: docs/downloads.md):
//
//   GET /v1/runs/:name/downloads/manifest?types=summary,results,artifacts,logs,trajectories
//       → {data: {files: [{type, path, size}], total_size, snapshot, generated_at, ...}}
//   GET /v1/runs/:name/downloads/file?path=<manifest path>[&at=<generated_at>]
//       → the bytes, streamed; `Range: bytes=a-b` gives 206 with Content-Range
//
// Files: summary.csv (one row per agent: the scores), results.csv (one row per attempt),
// logs.txt (the run's lifecycle events), lock.json (the run's lock: services/run-lock.ts), artifacts/<result-id>/<path> (an attempt's artifacts,
// result-id = the attempt id), trajectories (the artifacts that are an attempt's ATIF trajectory:
// artifacts/<result-id>/agent/trajectory.json). Pending or queued runs have no outputs (409 CONFLICT). A running
// run gives a snapshot as of `generated_at` (minus a small margin): outcomes, events and
// artifacts recorded after it are left out, and the file endpoint reproduces the same bytes when
// given `at`, so sizes in the manifest hold while the run goes on.
//
// The files are made in services/download-csv.ts (kept briefly by services/generated-files.ts);
// one is found and opened by services/run-files.ts (the pages' download links call it too); its
// bytes are sent by download-bytes.ts; the paths are parsed by services/download-paths.ts.
import {
  DownloadFileQuery,
  DownloadManifestQuery,
  DownloadManifestResponse,
  type DownloadType,
  type ManifestFile,
  parseDownloadTypes,
  STANDARD_ERROR_RESPONSES,
} from '@osmosis/contracts';
import { runArtifacts } from '@osmosis/db';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { ApiError } from '../errors.ts';
import { isSafeRelativePath } from '../services/download-paths.ts';
import { generatedFile } from '../services/generated-files.ts';
import { assertHasOutputs, openRunFile, type RunFile } from '../services/run-files.ts';
import { type RunForResults, runOr404 } from '../services/run-results.ts';
import { attachmentDisposition, sendBytes, sendStream } from './download-bytes.ts';
import { RunNameParams } from './results.ts';

/** An attempt's ATIF trajectory among its artifacts (a multi-step task's steps each have one). */
export const TRAJECTORY_PATH = /^(steps\/[^/]+\/)?agent\/trajectory\.json$/;

/** Outcomes recorded within this margin before a snapshot may still be in flight: left out. */
export const SNAPSHOT_MARGIN_MS = 2000;

/** The generated files of a download, in the manifest's order. */
const GENERATED_FILES = [
  ['summary', 'summary.csv'],
  ['results', 'results.csv'],
  ['logs', 'logs.txt'],
  ['lock', 'lock.json'],
] as const;

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
  for (const [type, path] of GENERATED_FILES) {
    if (!types.includes(type)) continue;
    const size = (await generatedFile(db, run, type, asOf, true)).size ?? 0;
    // a run older than locks has no lock.json
    if (type !== 'lock' || size > 0) files.push({ type, path, size });
  }
  if (types.includes('artifacts') || types.includes('trajectories')) {
    for (const a of await runArtifacts(db, run.id, asOf)) {
      // a trajectory is listed as one when asked for, else with the artifacts
      const type =
        types.includes('trajectories') && TRAJECTORY_PATH.test(a.path) ? 'trajectories' : 'artifacts';
      if (!types.includes(type)) continue;
      if (!isSafeRelativePath(a.path)) {
        // the path is not logged: a name recorded before names were scrubbed may hold a secret
        app.log.warn(
          { attempt_id: a.attempt_id, path_length: a.path.length },
          'artifact with an unsafe path left out of the manifest',
        );
        continue;
      }
      files.push({ type, path: `artifacts/${a.attempt_id}/${a.path}`, size: a.size });
    }
  }
  return { files, generatedAt, snapshot };
}

/** A run's file as the download route answers: ranges, its content type, an artifact as an attachment. */
async function sendRunFile(reply: FastifyReply, range: string | undefined, file: RunFile) {
  if (file.artifact)
    reply
      .header('content-disposition', attachmentDisposition(file.name))
      .header('x-content-type-options', 'nosniff');
  if (file.buf) return sendBytes(reply, range, file.buf.length, file.name, file.buf);
  if (file.size === null) return sendStream(reply, file.name, await file.whole());
  return sendBytes(reply, range, file.size, file.name, file.slice);
}

export const downloadRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/runs/:name/downloads/manifest',
    {
      schema: {
        tags: ['results'],
        summary: "List a run's download files",
        description:
          "The files of a run's download (path and size per type); 409 for pending or queued runs.",
        params: RunNameParams,
        querystring: DownloadManifestQuery,
        response: { 200: DownloadManifestResponse, ...STANDARD_ERROR_RESPONSES },
      },
    },
    async (request) => {
      const types = parseDownloadTypes(request.query.types);
      if (!types) {
        throw ApiError.validation(`unknown download type in ${JSON.stringify(request.query.types)}`, [
          {
            path: 'query.types',
            message:
              'expected a comma-separated list of summary, results, artifacts, logs, trajectories, lock, or all',
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
        summary: 'Download one file of a run',
        description:
          "One file of the manifest by its `path`, streamed. `Range: bytes=a-b` gives 206 with `Content-Range`; `at` (the manifest's `generated_at`) reproduces a running run's snapshot byte for byte. Artifacts are sent as attachments.",
        params: RunNameParams,
        querystring: DownloadFileQuery,
        response: STANDARD_ERROR_RESPONSES,
        otherResponses: {
          200: [
            'application/octet-stream',
            'The whole file; its content type follows its name (CSV, text, JSON, else bytes).',
          ],
          206: [
            'application/octet-stream',
            'The range asked for with `Range: bytes=a-b`, with `Content-Range`.',
          ],
          416: ['application/json', 'The range lies outside the file (`Content-Range: bytes */<size>`).'],
        },
      },
    },
    async (request, reply) => {
      const file = await openRunFile(
        { db: app.db, storage: app.storage, log: request.log },
        request.auth.workspace.id,
        request.params.name,
        request.query.path,
        {
          at: request.query.at ? new Date(request.query.at) : null,
          needSize: request.headers.range !== undefined,
        },
      );
      return sendRunFile(reply, request.headers.range, file);
    },
  );
};
