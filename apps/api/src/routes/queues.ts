// GET /v1/queues — the queue view's data (packages/contracts/src/api/queues.ts): the deployment's
// operators (auth.ts requireOperator), as every workspace's jobs are in it.
// Our own read-only view rather than @bull-board/fastify: bull-board's client-rendered UI sends
// state-changing requests (retry, promote, clean, add, pause) that cannot carry the pages' CSRF
// token, and its script and style loading does not fit the pages' CSP; and changing jobs in Redis
// behind Postgres' back is not an operator's tool here (the reconciler re-enqueues what is due).
import { QueueList, STANDARD_ERROR_RESPONSES } from '@osmosis/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { requireOperator } from '../auth.ts';
import { createQueueView } from '../services/queue-view.ts';

export const queueRoutes: FastifyPluginAsyncZod = async (app) => {
  const view = createQueueView(app);
  app.addHook('onClose', () => view.close());

  app.get(
    '/queues',
    {
      preHandler: requireOperator(),
      schema: {
        tags: ['queues'],
        summary: 'List job queues',
        description:
          "The deployment's job queues: jobs by state, the oldest waiting job's age, the latest failed jobs (the deployment's operators).",
        response: { 200: QueueList, ...STANDARD_ERROR_RESPONSES },
      },
    },
    async () => view.list(),
  );
};
