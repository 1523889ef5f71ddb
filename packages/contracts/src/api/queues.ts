// GET /v1/queues — the operators' queue view: every BullMQ queue of the deployment with its jobs
// by state, the age of its oldest waiting job and its latest failed jobs (ids only: a failure's
// text may name another workspace's source, and the truth is in Postgres and the worker's log).
// Workspace owners only. Read only: jobs carry ids and Postgres decides what is due, so there is
// nothing an operator should change in Redis by hand.
import { z } from 'zod';
import { Timestamp } from './common.ts';

export const QueueInfo = z.object({
  name: z.string().describe("The queue's name"),
  paused: z.boolean().describe('Whether the queue is paused'),
  counts: z
    .object({
      waiting: z.number().int().describe('Jobs waiting for a worker'),
      prioritized: z.number().int().describe('Waiting jobs with a priority'),
      active: z.number().int().describe('Jobs being processed'),
      delayed: z.number().int().describe('Jobs due later'),
      failed: z.number().int().describe('Failed jobs kept'),
      completed: z.number().int().describe('Completed jobs kept'),
    })
    .describe('Jobs by state'),
  oldest_waiting_age_seconds: z
    .number()
    .min(0)
    .describe('Age of the oldest waiting job, seconds (0 when none waits)'),
  recent_failures: z
    .array(
      z.object({
        id: z.string().describe("The job's id"),
        name: z.string().describe("The job's name"),
        attempts_made: z.number().int().describe('Tries it made'),
        failed_at: Timestamp.nullable().describe('When it failed; null when not recorded'),
      }),
    )
    .describe('The latest failed jobs (ids only)'),
});
export type QueueInfo = z.infer<typeof QueueInfo>;

export const QueueList = z.object({
  items: z.array(QueueInfo).describe('Every queue of the deployment'),
  total_count: z.number().int().min(0).describe('How many queues'),
  has_more: z.boolean().describe('Always false: one page'),
  next_offset: z.number().int().min(0).nullable().describe('Always null: one page'),
});
export type QueueList = z.infer<typeof QueueList>;
