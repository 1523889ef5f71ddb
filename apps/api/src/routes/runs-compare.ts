// GET /v1/runs/:name/compare?other=RUN&agents=A,B — the paired comparison of two agents on the
// same tasks (services/run-compare.ts): two agents of one run, or one agent of each of two runs
// on the same benchmark. A run of another workspace is not found (404), as everywhere.
import { RunCompareQuery, RunCompareResponse, STANDARD_ERROR_RESPONSES } from '@osmosis/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { compareRunOr404, compareRuns } from '../services/run-compare.ts';
import { RunNameParams } from './results.ts';

export const runCompareRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/runs/:name/compare',
    {
      schema: {
        tags: ['runs'],
        summary: 'Compare two agents of a run',
        description:
          'Paired comparison of two agents on the same tasks: difference of pass@1, 95% interval, p-value, wins/losses/ties, differing tasks.',
        params: RunNameParams,
        querystring: RunCompareQuery,
        response: { 200: RunCompareResponse, ...STANDARD_ERROR_RESPONSES },
      },
    },
    async (request) => {
      const workspaceId = request.auth.workspace.id;
      const run = await compareRunOr404(app.db, workspaceId, request.params.name);
      const { other, agents } = request.query;
      const otherRun = other === undefined ? null : await compareRunOr404(app.db, workspaceId, other);
      return { data: await compareRuns(app.db, run, otherRun, agents) };
    },
  );
};
