// What an execution leaves in the run's history besides its columns: its pipeline events and the
// model usage it spent (kept in `history` even when its result does not count).
import type { NewRunEvent, Prisma } from '@osmosis/db';
import type { ExecutionResult } from './executor.ts';

/** The execution's events, stored with its result in one statement (appendRunEvents). */
export function executionEvents(runId: string, attemptId: string, result: ExecutionResult): NewRunEvent[] {
  return (result.events ?? []).map((event) => ({
    runId,
    attemptId,
    level: event.level,
    step: event.step,
    message: event.message,
    ...(event.details ? { details: event.details as Prisma.InputJsonValue } : {}),
    ...(event.timestamp ? { timestamp: event.timestamp } : {}),
  }));
}

/** The model usage an execution spent, as kept in `history` (spent money is never forgotten). */
export function usageOf(result: ExecutionResult) {
  return {
    cost_usd: result.costUsd ?? null,
    input_tokens: result.inputTokens ?? null,
    output_tokens: result.outputTokens ?? null,
    cache_tokens: result.cacheTokens ?? null,
    judge_cost_usd: result.judgeCostUsd ?? null,
  };
}
