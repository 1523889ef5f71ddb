// Attempts as a resource (the work is in services/run-attempts.ts and services/attempt-detail.ts):
//   GET /v1/runs/:name/attempts       ordered by agent index, task name, attempt index; ?task=,
//                                     ?agent= (index, harness, model or "model (harness)"),
//                                     ?outcome=, ?error_class=; keyset pages (?cursor=next_cursor)
//   GET /v1/runs/:name/attempts/:id   phases, steps, verifier output, agent log tail, events,
//                                     artifacts, trajectory link
// Another workspace's run or attempt is a 404, as is an id that is not a uuid.
import {
  AttemptDetailResponse,
  AttemptListQuery,
  AttemptListResponse,
  AttemptParams,
  STANDARD_ERROR_RESPONSES,
} from '@osmosis/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { attemptDetail } from '../services/attempt-detail.ts';
import { listRunAttempts } from '../services/run-attempts.ts';
import { runOr404 } from '../services/run-results.ts';
import { RunNameParams } from './results.ts';

export const attemptRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/runs/:name/attempts',
    {
      schema: {
        tags: ['runs'],
        summary: "List a run's attempts",
        description: "A run's attempts, filtered by task, agent, outcome or error class, in cursor pages.",
        params: RunNameParams,
        querystring: AttemptListQuery,
        response: { 200: AttemptListResponse, ...STANDARD_ERROR_RESPONSES },
      },
    },
    async (request) => {
      const run = await runOr404(app.db, request.auth.workspace.id, request.params.name);
      return listRunAttempts(app.db, run, request.query);
    },
  );

  app.get(
    '/runs/:name/attempts/:id',
    {
      schema: {
        tags: ['runs'],
        summary: 'Get one attempt',
        description:
          'One attempt: phases, steps, verifier output, agent log, events, artifacts and trajectory.',
        params: AttemptParams,
        response: { 200: AttemptDetailResponse, ...STANDARD_ERROR_RESPONSES },
      },
    },
    async (request) => {
      const run = await runOr404(app.db, request.auth.workspace.id, request.params.name);
      return { data: await attemptDetail({ db: app.db, storage: app.storage }, run, request.params.id) };
    },
  );
};
