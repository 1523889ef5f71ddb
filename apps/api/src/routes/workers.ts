// GET /v1/workers — the deployment's worker processes as their heartbeats describe them: host,
// version, capacity, slots in use, Docker engine state, last heartbeat, and whether each is
// live, dead (missed its heartbeats: its attempts are re-leased, its sandboxes reaped) or
// stopped. Workers serve every workspace, so this is an operator's view: admins and owners only
// (host names and versions are not a member's business).
import { STANDARD_ERROR_RESPONSES, WorkerList } from '@osmosis/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { requireRole } from '../auth.ts';
import { workerListWithDeployment } from '../services/workers.ts';

export const workerRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/workers',
    {
      preHandler: requireRole('admin'),
      schema: {
        tags: ['workers'],
        summary:
          'Worker processes: host, version, capacity, slots in use, engine state, last heartbeat; live, dead or stopped (admins)',
        response: { 200: WorkerList, ...STANDARD_ERROR_RESPONSES },
      },
    },
    async () => workerListWithDeployment(app.db),
  );
};
