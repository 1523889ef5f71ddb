// BullMQ handles of the platform's queues on the app's Redis connection, each made on first use
// and closed with the app: what the metrics and the queue view read (they only read counts and jobs).
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';

export interface QueueHandleDeps {
  redis: Redis;
  config: { queuePrefix: string };
  log: { warn(obj: object, msg: string): void };
}

export interface QueueHandles {
  get(name: string): Queue;
  close(): Promise<void>;
}

/** `errorMessage` is logged (with the error's message) when a handle reports a Redis error. */
export function queueHandles(deps: QueueHandleDeps, errorMessage: string): QueueHandles {
  const queues = new Map<string, Queue>();
  return {
    get(name) {
      let queue = queues.get(name);
      if (!queue) {
        queue = new Queue(name, { connection: deps.redis, prefix: deps.config.queuePrefix });
        queue.on('error', (error) => deps.log.warn({ err: error.message }, errorMessage));
        queues.set(name, queue);
      }
      return queue;
    },
    async close() {
      await Promise.all([...queues.values()].map((q) => q.close().catch(() => undefined)));
    },
  };
}
