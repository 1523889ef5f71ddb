// GET /v1/queues — the queue view's data (packages/contracts/src/api/queues.ts): workspace owners.
// Our own read-only view rather than @bull-board/fastify: bull-board's client-rendered UI sends
// state-changing requests (retry, promote, clean, add, pause) that cannot carry the pages' CSRF
// token, and its script and style loading does not fit the pages' CSP; and changing jobs in Redis
// behind Postgres' back is not an operator's tool here (the reconciler re-enqueues what is due).
import { QueueList, STANDARD_ERROR_RESPONSES } from '@osmosis/contracts';
import { Queue } from 'bullmq';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { requireRole } from '../auth.ts';
import { ALL_QUEUES, oldestWaitingAge } from '../metrics.ts';

export const queueRoutes: FastifyPluginAsyncZod = async (app) => {
  const queues = new Map<string, Queue>();
  const queueOf = (name: string) => {
    let queue = queues.get(name);
    if (!queue) {
      queue = new Queue(name, { connection: app.redis, prefix: app.config.queuePrefix });
      queue.on('error', (error) => app.log.warn({ err: error.message }, 'queue view error'));
      queues.set(name, queue);
    }
    return queue;
  };
  app.addHook('onClose', async () => {
    await Promise.all([...queues.values()].map((q) => q.close().catch(() => undefined)));
  });

  app.get(
    '/queues',
    {
      preHandler: requireRole('owner'),
      schema: {
        tags: ['queues'],
        summary:
          "The deployment's job queues: jobs by state, the oldest waiting job's age, the latest failed jobs (owners)",
        response: { 200: QueueList, ...STANDARD_ERROR_RESPONSES },
      },
    },
    async () => {
      const items = [];
      for (const name of ALL_QUEUES) {
        const queue = queueOf(name);
        const [counts, paused, age, failed] = await Promise.all([
          queue.getJobCounts('waiting', 'prioritized', 'active', 'delayed', 'failed', 'completed'),
          queue.isPaused(),
          oldestWaitingAge(queue),
          queue.getJobs(['failed'], 0, 9, false),
        ]);
        items.push({
          name,
          paused,
          counts: {
            waiting: counts.waiting ?? 0,
            prioritized: counts.prioritized ?? 0,
            active: counts.active ?? 0,
            delayed: counts.delayed ?? 0,
            failed: counts.failed ?? 0,
            completed: counts.completed ?? 0,
          },
          oldest_waiting_age_seconds: age,
          recent_failures: failed
            .filter((job) => !!job)
            .map((job) => ({
              id: String(job.id),
              name: job.name,
              attempts_made: job.attemptsMade,
              failed_at: job.finishedOn ? new Date(job.finishedOn).toISOString() : null,
            })),
        });
      }
      return { items, total_count: items.length, has_more: false, next_offset: null };
    },
  );
};
