// POST /v1/runs/:name/reproduce — its config submitted again as a new run, checked against the
// lock first (services/run-reproduce.ts); answers as POST /v1/runs.
// GET /v1/runs/:name/lock — the run's lock (services/run-lock.ts): tasks and their digests, pinned
// image digests, harness versions, judge, effective config, and the fingerprint. Another
// workspace's run is 404; a run submitted before locks were kept is 409.
import { RunLockResponse, STANDARD_ERROR_RESPONSES, SubmitRunResponse } from '@osmosis/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { runLockByName } from '../services/run-lock.ts';
import { prepareReproduction } from '../services/run-reproduce.ts';
import { RunNameParams } from './results.ts';
import { createAndEnqueue } from './submit.ts';

export const runLockRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/runs/:name/lock',
    {
      schema: {
        tags: ['runs'],
        summary: "Get a run's lock",
        description:
          "What the run was made of: its tasks and their digests, the registry images it pinned, each agent's harness and model with the versions its attempts reported, the judge, the effective execution config (secrets by name only) and the `fingerprint` over the fields that count. `complete` is false while attempts are still to run. 409 for a run submitted before locks were kept.",
        params: RunNameParams,
        response: { 200: RunLockResponse, ...STANDARD_ERROR_RESPONSES },
      },
    },
    async (request) => ({
      data: await runLockByName(app.db, request.auth.workspace.id, request.params.name),
    }),
  );
};

export const runReproduceRoutes: FastifyPluginAsyncZod = async (app) => {
  app.post(
    '/runs/:name/reproduce',
    {
      schema: {
        tags: ['runs'],
        summary: 'Reproduce a run',
        description:
          "Submits the run's config again as a new run that gets the same pinned images, after checking it against the lock: 409 naming each task whose digest changed, that is gone, or that the selection now adds. `reuse_from` is not applied. Answers as `POST /v1/runs`.",
        params: RunNameParams,
        response: { 201: SubmitRunResponse, 422: STANDARD_ERROR_RESPONSES[400], ...STANDARD_ERROR_RESPONSES },
      },
    },
    async (request, reply) => {
      const { body, prepared, sourceRunId } = await prepareReproduction(
        app,
        request.auth,
        request.params.name,
      );
      const data = await createAndEnqueue(app, request, body, prepared, {
        reproduces: { runId: sourceRunId },
      });
      reply.code(201);
      return { data };
    },
  );
};
