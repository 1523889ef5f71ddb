// The queue view's data (GET /v1/queues and the /queues page): every queue of the deployment with
// its jobs by state, the oldest waiting job's age and the latest failed job ids. Each caller keeps
// one view (its BullMQ handles on the app's Redis connection) and closes it with the app.
import type { QueueInfo, QueueList } from '@osmosis/contracts';
import type { Queue } from 'bullmq';
import { ALL_QUEUES, oldestWaitingAge } from '../metrics.ts';
import { type QueueHandleDeps, queueHandles } from '../queue-handles.ts';

export interface QueueView {
  list(): Promise<QueueList>;
  close(): Promise<void>;
}

async function queueInfo(name: string, queue: Queue): Promise<QueueInfo> {
  const [counts, paused, age, failed] = await Promise.all([
    queue.getJobCounts('waiting', 'prioritized', 'active', 'delayed', 'failed', 'completed'),
    queue.isPaused(),
    oldestWaitingAge(queue),
    queue.getJobs(['failed'], 0, 9, false),
  ]);
  return {
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
  };
}

export function createQueueView(deps: QueueHandleDeps): QueueView {
  const queues = queueHandles(deps, 'queue view error');
  return {
    async list() {
      const items: QueueInfo[] = [];
      for (const name of ALL_QUEUES) items.push(await queueInfo(name, queues.get(name)));
      return { items, total_count: items.length, has_more: false, next_offset: null };
    },
    close: queues.close,
  };
}
