// enqueueRunRefill against real Redis: asks within one window are one delayed job, asks in the
// next window another; other runs' asks are their own.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_REDIS_URL, testQueuePrefix } from '../../../test/helpers/redis.ts';
import { createQueues, createRedis, enqueueRunRefill, type Queues, REFILL_BATCH_MS } from './index.ts';

let redis: ReturnType<typeof createRedis>;
let queues: Queues;
beforeAll(() => {
  redis = createRedis(TEST_REDIS_URL);
  queues = createQueues(redis, testQueuePrefix());
});
afterAll(async () => {
  await queues?.close();
  redis?.disconnect();
});

describe('enqueueRunRefill', () => {
  it('makes one delayed pass per run per window, due at the window end', async () => {
    const run = '00000000-0000-4000-8000-0000000000aa';
    const other = '00000000-0000-4000-8000-0000000000bb';
    const start = Math.ceil(Date.now() / REFILL_BATCH_MS) * REFILL_BATCH_MS + 5 * REFILL_BATCH_MS;
    for (const offset of [0, 10, 50, REFILL_BATCH_MS - 1])
      await enqueueRunRefill(queues, run, start + offset);
    await enqueueRunRefill(queues, other, start + 20);
    await enqueueRunRefill(queues, run, start + REFILL_BATCH_MS); // the next window
    const jobs = await queues.runDispatch.getJobs(['delayed', 'waiting', 'prioritized']);
    const ofRun = jobs.filter((j) => j.data.runId === run);
    expect(ofRun).toHaveLength(2);
    expect(jobs.filter((j) => j.data.runId === other)).toHaveLength(1);
    const first = ofRun.find((j) => j.id === `refill-${run}-${start / REFILL_BATCH_MS + 1}`);
    expect(first?.opts.delay).toBe(REFILL_BATCH_MS);
  });
});
