// GET /v1/runs/:name/export?format=harbor|tb-leaderboard[&agent_url=&agent_name=&org=]: a run as a
// tar.gz of a Harbor 0.9 job directory, or of a Terminal-Bench 2 leaderboard submission
// (metadata.yaml plus the job folder). What is written and the leaderboard's rules:
// services/harbor-export/ and docs/reproducibility.md.
import { RunExportQuery } from '@osmosis/contracts';
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
        summary:
          'The run as a Harbor job directory or a Terminal-Bench 2 leaderboard submission (tar.gz); 409 naming each leaderboard rule the run breaks',
        params: RunNameParams,
        querystring: RunExportQuery,
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
      return reply
        .header('content-type', 'application/gzip')
        .header('content-disposition', attachmentDisposition(result.fileName))
        .header('x-content-type-options', 'nosniff')
        .header('x-osmosis-trials', String(result.trials))
        .header('x-osmosis-missing-artifacts', String(result.missingArtifacts))
        .send(result.stream);
    },
  );
};
