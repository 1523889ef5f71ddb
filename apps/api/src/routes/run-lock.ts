// GET /v1/runs/:name/lock — the run's lock (services/run-lock.ts): tasks and their digests, pinned
// image digests, harness versions, judge, effective config, and the fingerprint. Another
// workspace's run is 404; a run submitted before locks were kept is 409.
import { RunLockResponse, STANDARD_ERROR_RESPONSES } from '@osmosis/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { runLockByName } from '../services/run-lock.ts';
import { RunNameParams } from './results.ts';

export const runLockRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/runs/:name/lock',
    {
      schema: {
        tags: ['runs'],
        summary:
          "The run's lock: task and image digests, harness versions, judge, effective config (secrets by name) and its fingerprint",
        params: RunNameParams,
        response: { 200: RunLockResponse, ...STANDARD_ERROR_RESPONSES },
      },
    },
    async (request) => ({
      data: await runLockByName(app.db, request.auth.workspace.id, request.params.name),
    }),
  );
};
