// Scores of a run: GET /v1/runs/:name/results. The scores come from services/run-results.ts,
// which every other view calls to get the same numbers.
import { RunResultsResponse, STANDARD_ERROR_RESPONSES } from '@osmosis/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { loadRunResults, runOr404 } from '../services/run-results.ts';

export const RunNameParams = z.object({
  name: z.string().min(1).describe("The run's name (unique in the workspace)"),
});

export const resultRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/runs/:name/results',
    {
      schema: {
        tags: ['results'],
        summary: "Get a run's scores",
        description:
          "A run's scores: totals, and per agent rank, pass@1 with its 95% interval, pass@k, usage per task.",
        params: RunNameParams,
        response: { 200: RunResultsResponse, ...STANDARD_ERROR_RESPONSES },
      },
    },
    async (request) => {
      const run = await runOr404(app.db, request.auth.workspace.id, request.params.name);
      return { data: await loadRunResults(app.db, run) };
    },
  );
};
