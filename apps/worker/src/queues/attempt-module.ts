// The attempt queue's module: one BullMQ job per handed-out attempt, run by the attempt processor
// (attempt.ts) on this worker; a job that ends without a written result hands its attempt on
// (onCompleted) and a freed slot not refilled by its result's write wakes the run's dispatcher.
import { AttemptJob, QUEUE_NAMES, runStopChannel } from '@osmosis/contracts';
import { enqueueRunDispatch } from '@osmosis/queues';
import { dispatchRun, enqueueAttempt } from '../attempts/dispatch.ts';
import { dispatchLimitsOf } from '../capacity-config.ts';
import { createAttemptProcessor, errorMessage } from './attempt.ts';
import type { QueueModule } from './types.ts';

/** How long an attempt that did not fit a worker waits before it is offered again. */
const BUSY_RETRY_MS = 250;

/** The job ended without running the attempt (skipped, did not fit, or deferred for the engine). */
function isHandedOver(
  outcome: unknown,
): outcome is { busy: string } | { skipped: string } | { deferred: string } {
  return (
    typeof outcome === 'object' &&
    outcome !== null &&
    ('busy' in outcome || 'skipped' in outcome || 'deferred' in outcome)
  );
}

function isRefilled(outcome: unknown): boolean {
  return (
    typeof outcome === 'object' && outcome !== null && (outcome as { refilled?: unknown }).refilled === true
  );
}

function isWritten(outcome: unknown): boolean {
  return (
    typeof outcome === 'object' && outcome !== null && (outcome as { kind?: unknown }).kind === 'written'
  );
}

export const attemptModule: QueueModule = {
  name: 'attempt',
  queue: QUEUE_NAMES.attempt,
  concurrency: (config) => config.concurrency,
  lockDurationMs: (config) => config.leaseMs,
  needsEngine: true,
  create(ctx) {
    const processor = createAttemptProcessor(ctx);
    // the API announces stopped runs on a channel: abort their sandboxes without waiting for the
    // next heartbeat (which would notice too)
    const subscriber = ctx.redis.duplicate();
    subscriber.on('error', (error) => ctx.logger.warn({ err: error.message }, 'stop channel error'));
    subscriber.on('message', (_channel, runId: string) => {
      const n = processor.abortRun(runId);
      if (n) ctx.logger.info({ runId, aborted: n }, 'run stopped: aborting its attempts');
    });
    return {
      async start() {
        await subscriber.subscribe(runStopChannel(ctx.config.queuePrefix)).catch((error: Error) => {
          ctx.logger.warn({ err: error.message }, 'could not subscribe to stop announcements');
        });
      },
      async process(job) {
        const { attemptId, runId } = AttemptJob.parse(job.data);
        let ran = true;
        try {
          const outcome = await processor.execute(attemptId, runId);
          // no pass is needed when a written result refilled its slot in its own transaction
          // (finalizeAttempt), or is a fast result (its run still has a handed-out backlog, or it
          // asked for the run's batched top-up pass)
          ran = !isHandedOver(outcome) && !isRefilled(outcome);
          return outcome;
        } finally {
          // fill the freed slot at once (in-process: no queue round trip): the one dispatcher
          // wake-up per finished attempt; a queued wake-up only when this one failed
          if (ran) {
            await dispatchRun(ctx.db, ctx.queues, runId, ctx.logger, dispatchLimitsOf(ctx.config)).catch(
              async (error) => {
                ctx.logger.warn({ runId, err: errorMessage(error) }, 'dispatch after attempt failed');
                await enqueueRunDispatch(ctx.queues, runId).catch(() => undefined);
              },
            );
          }
        }
      },
      async onCompleted(job) {
        // This job id is free again: if the attempt was handed back to the queue while its job was
        // still active (a retry with no backoff, a release), enqueue it now.
        const { attemptId, runId } = AttemptJob.parse(job.data);
        // a written result is final (a retry is `retry`, not `written`): nothing can be handed back
        if (isWritten(job.returnvalue)) return;
        const attempt = await ctx.db.attempt.findUnique({
          where: { id: attemptId },
          select: { status: true, dispatchedAt: true },
        });
        if (attempt?.status === 'queued' && attempt.dispatchedAt) {
          // a worker it did not fit hands it on after a pause, so it does not spin on that worker
          const busy = isHandedOver(job.returnvalue) && 'busy' in job.returnvalue;
          await enqueueAttempt(
            ctx.queues,
            attemptId,
            runId,
            job.opts.priority ?? 1,
            busy ? BUSY_RETRY_MS : 0,
          );
        }
      },
      async close() {
        await processor.drain(ctx.config.drainMs);
        subscriber.disconnect();
      },
    };
  },
};
