// GET /v1/workers — the deployment's worker processes as their heartbeats describe them: host,
// version, capacity, slots in use, Docker engine state, last heartbeat, and whether each is
// live, dead (missed its heartbeats: its attempts are re-leased, its sandboxes reaped) or
// stopped. Workers serve every workspace, so this is the deployment's operators' view (auth.ts
// requireOperator): any member can make a workspace and own it, so no workspace role is a bound.
import { STANDARD_ERROR_RESPONSES, WorkerList } from '@osmosis/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { requireOperator } from '../auth.ts';
import { workerListWithDeployment } from '../services/workers.ts';

export const workerRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/workers',
    {
      preHandler: requireOperator(),
      schema: {
        tags: ['workers'],
        summary: 'List workers',
        description:
          "Worker processes: host, version, capacity, slots in use, engine state, last heartbeat; live, dead or stopped (the deployment's operators).",
        response: { 200: WorkerList, ...STANDARD_ERROR_RESPONSES },
      },
    },
    async () => workerListWithDeployment(app.db),
  );
};
