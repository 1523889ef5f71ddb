// The one writer of an execution's result (ARCHITECTURE invariant 2). Every result goes through
// writeResult, which picks its path and checks the invariants once for both:
//   - the lease fence: written only while the attempt runs under this execution's lease (its
//     worker and fencing token, lease-fence.ts); a result of an earlier holder is `stale`;
//   - exactly once: the write ends the attempt's `running` state in the same statement or
//     transaction that checks the fence, so a second write of the same try finds it stale.
// The fast path (fast-lease.ts) is one statement on its own for the common result (passed or
// failed, a running run with no budget and queued attempts left), which may claim the next
// attempt for the slot it frees in the same statement (the attempt loop's hand-off). Anything
// else, or a fast statement that found its case did not hold, takes the slow path (finalize.ts):
// one transaction under the run's and the attempt's locks (retries, cancels, budgets, a run's last
// results), which may refill the freed slot in the same transaction.
// A result that ends its run announces it (the webhook sweep wakes: queues/webhook-delivery.ts).
// The judge prompt a result was graded with is recorded for its run first (run-judge-templates.ts):
// idempotent, so a write tried again, or found stale, leaves it as it was (a stale execution was
// graded with it all the same).
import type { RunStatusName } from '@osmosis/contracts';
import { isTerminalRunStatus } from '@osmosis/core';
import type { ExecutionResult } from '../executor.ts';
import type { WorkerContext } from '../queues/types.ts';
import { announceRunEnded } from '../queues/webhook-delivery.ts';
import type { Claim, ClaimRoom } from './claim.ts';
import { type FastResult, fastFinalize, fastFinalizeAndClaim } from './fast-lease.ts';
import { type FinalizeResult, finalizeAttempt } from './finalize.ts';
import type { DispatchLimits } from './placement.ts';
import { recordJudgeTemplate } from './run-judge-templates.ts';

/** One execution's result and the lease it ran under. */
export interface ResultWrite {
  attemptId: string;
  runId: string;
  /** the lease's fencing token and holder: the fence */
  token: number;
  workerId: string;
  /** the try the lease started; unknown (a spooled result): the slow path reads it from the row */
  tryNumber?: number;
  result: ExecutionResult;
  startedAt: Date;
  retryBackoffMs: number;
  /** the slow path refills the freed slot in its transaction (the caller announces `next`) */
  dispatch?: DispatchLimits;
}

/** A fast result: what the caller needs to follow it up (its refill, its metrics, its claim). */
export interface FastFollowUp extends Omit<FastResult, 'runId' | 'outcome'> {
  /** the slot's next attempt, claimed in the result's statement (only with a SlotClaim) */
  claimed: Claim | null;
}

export type ResultWritten =
  | Exclude<FinalizeResult, { kind: 'written' }>
  | (Extract<FinalizeResult, { kind: 'written' }> & { fast?: FastFollowUp });

export type FastWritten = Extract<ResultWritten, { kind: 'written' }> & { fast: FastFollowUp };

/** How a fast result claims the next attempt for the slot it frees, in its own statement. */
export interface SlotClaim {
  holder: { workerId: string; leaseMs: number };
  skip: readonly string[];
  /**
   * Runs the fast write in the worker's claim turn (its starts are serial: start-ledger.ts),
   * given the room that is free once this attempt's hold ends.
   */
  inTurn(write: (room: ClaimRoom) => Promise<FastWritten | null>): Promise<FastWritten | null>;
}

/** Whether a result can take the fast path at all (what its statement cannot check itself). */
function fastPathApplies(w: ResultWrite): w is ResultWrite & { tryNumber: number } {
  return (w.result.outcome === 'passed' || w.result.outcome === 'failed') && w.tryNumber !== undefined;
}

function fastWritten(fast: FastResult, claimed: Claim | null): FastWritten {
  const { runId: _runId, outcome, ...rest } = fast;
  // a fast result is never its run's last (its run still has queued attempts)
  return { kind: 'written', outcome, runStatus: 'running', fast: { ...rest, claimed } };
}

async function writeFast(
  ctx: Pick<WorkerContext, 'db'>,
  w: ResultWrite & { tryNumber: number },
  slot: SlotClaim | undefined,
): Promise<FastWritten | null> {
  const args = [ctx.db, w.attemptId, w.runId, w.token, w.tryNumber, w.result, w.workerId] as const;
  if (!slot) {
    const fast = await fastFinalize(...args);
    return fast ? fastWritten(fast, null) : null;
  }
  return slot.inTurn(async (room) => {
    const fast = await fastFinalizeAndClaim(...args, { holder: slot.holder, room, skip: slot.skip });
    return fast ? fastWritten(fast, fast.next) : null;
  });
}

/**
 * Writes an execution's result, exactly once and only under its lease (see the top of this
 * file): the fast path when it applies, else the slow path. `slot`: a fast result may claim the
 * next attempt for the slot it frees (FastFollowUp.claimed).
 */
export async function writeResult(
  ctx: Pick<WorkerContext, 'db' | 'redis' | 'config'>,
  w: ResultWrite,
  slot?: SlotClaim,
): Promise<ResultWritten> {
  await recordJudgeTemplate(ctx.db, w.runId, w.result.judgeTemplate);
  if (fastPathApplies(w)) {
    const fast = await writeFast(ctx, w, slot);
    if (fast) return fast;
  }
  const written = await finalizeAttempt(ctx.db, w.attemptId, w.token, w.result, {
    workerId: w.workerId,
    retryBackoffMs: w.retryBackoffMs,
    startedAt: w.startedAt,
    ...(w.dispatch ? { dispatch: w.dispatch } : {}),
  });
  if (
    written.kind === 'written' &&
    written.runStatus &&
    isTerminalRunStatus(written.runStatus as RunStatusName)
  )
    announceRunEnded(ctx, w.runId);
  return written;
}
