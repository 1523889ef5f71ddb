// GET /v1/queues — the operators' queue view: every BullMQ queue of the deployment with its jobs
// by state, the age of its oldest waiting job and its latest failed jobs (ids only: a failure's
// text may name another workspace's source, and the truth is in Postgres and the worker's log).
// Workspace owners only. Read only: jobs carry ids and Postgres decides what is due, so there is
// nothing an operator should change in Redis by hand.
import { z } from 'zod';
import { Timestamp } from './common.ts';

export const QueueInfo = z.object({
  name: z.string(),
  paused: z.boolean(),
  counts: z.object({
    waiting: z.number().int(),
    prioritized: z.number().int(),
    active: z.number().int(),
    delayed: z.number().int(),
    failed: z.number().int(),
    completed: z.number().int(),
  }),
  oldest_waiting_age_seconds: z.number().min(0),
  recent_failures: z.array(
    z.object({
      id: z.string(),
      name: z.string(),
      attempts_made: z.number().int(),
      failed_at: Timestamp.nullable(),
    }),
  ),
});
export type QueueInfo = z.infer<typeof QueueInfo>;

export const QueueList = z.object({
  items: z.array(QueueInfo),
  total_count: z.number().int().min(0),
  has_more: z.boolean(),
  next_offset: z.number().int().min(0).nullable(),
});
export type QueueList = z.infer<typeof QueueList>;
