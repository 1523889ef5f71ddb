// GET /v1/runs/:name/export?format=harbor|tb-leaderboard[&agent_url=&agent_name=&org=]: a run as a
// tar.gz of a Harbor 0.9 job directory, or of a Terminal-Bench 2 leaderboard submission
// (metadata.yaml plus the job folder). What is written and the leaderboard's rules:
// services/harbor-export/ and docs/reproducibility.md.
import { RunExportQuery, STANDARD_ERROR_RESPONSES } from '@osmosis/contracts';
import type { FastifyReply } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { type ExportRequest, exportRun } from '../services/harbor-export/export.ts';
import { exportLockSource } from '../services/harbor-export/lock-source.ts';
import { attachmentDisposition } from './download-bytes.ts';
import { RunNameParams } from './results.ts';

export const runExportRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/runs/:name/export',
    {
      schema: {
        tags: ['results'],
        summary: 'Export a run as a Harbor job directory or a Terminal-Bench 2 leaderboard submission',
        description:
          'A tar.gz of a Harbor 0.9 job directory (`format=harbor`), or of the job folders plus `metadata.yaml` for the Terminal-Bench 2 leaderboard (`format=tb-leaderboard`). Everything is checked before the first byte: a run with no outputs yet, a missing artifact, or a broken leaderboard rule is a 409 naming each rule (`details.rules`) and the `reuse_from` run that would complete it. See docs/reproducibility.md.',
        params: RunNameParams,
        querystring: RunExportQuery,
        response: STANDARD_ERROR_RESPONSES,
        otherResponses: {
          200: ['application/gzip', 'The export as a gzip-compressed tar stream.'],
        },
      },
    },
    async (request, reply) => {
      const q = request.query;
      const exportRequest: ExportRequest =
        q.format === 'harbor'
          ? { format: 'harbor' }
          : {
              format: 'tb-leaderboard',
              submission: { agentUrl: q.agent_url ?? '', agentName: q.agent_name ?? '', org: q.org ?? '' },
            };
      const result = await exportRun(
        { db: app.db, storage: app.storage, lockFor: exportLockSource },
        request.auth.workspace.id,
        request.params.name,
        exportRequest,
      );
      // the stream is the 200 body; the typed reply knows only the error schemas
      return (reply as FastifyReply)
        .header('content-type', 'application/gzip')
        .header('content-disposition', attachmentDisposition(result.fileName))
        .header('x-content-type-options', 'nosniff')
        .header('x-osmosis-trials', String(result.trials))
        .header('x-osmosis-missing-artifacts', String(result.missingArtifacts))
        .send(result.stream);
    },
  );
};
