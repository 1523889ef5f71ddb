// Retrying the unscored attempts of an ended run (`osmosis runs retry`). Only `errored` and `cancelled`
// attempts go back to the queue, under the same run and with the same ids; scored attempts (passed or failed:
// a zero is a score) are never touched. The try that ended is appended to the attempt's `history` (runs info
// `retries`) and recorded as an `attempt.retried` event before the row is reset, so the earlier error stays
// visible on the attempt page. The run goes back to `queued`; the dispatcher picks the attempts up exactly as
// after a submit (enqueueRunDispatch), and the worker ends the run again when the last of them ends.
import type { MemberRole, RetryAgentPlan, RetryRunResult, RunStatusName } from '@osmosis/contracts';
import { roleAtLeast } from '@osmosis/contracts';
import { isTerminalRunStatus } from '@osmosis/core';
import { appendRunEvent, type Db, foldRollups, Prisma } from '@osmosis/db';
import { enqueueRunDispatch, type Queues } from '@osmosis/queues';
import type { FastifyBaseLogger } from 'fastify';
import { ApiError } from '../errors.ts';
import { runNotFound } from './not-found.ts';
import { costWithoutHistory } from './run-budget.ts';

type Tx = Prisma.TransactionClient;

const UNSCORED = ['errored', 'cancelled'] as const;
/** tasks named in a refusal (the details carry up to 100) */
const NAMED_TASKS = 10;

export interface RetryCaller {
  userId: string;
  role: MemberRole;
}

/** Admins and owners may retry any run of the workspace; members only the runs they created. */
export function mayRetry(caller: RetryCaller, run: { createdById: string }): boolean {
  if (roleAtLeast(caller.role, 'admin')) return true;
  return roleAtLeast(caller.role, 'member') && run.createdById === caller.userId;
}

export function assertMayRetry(caller: RetryCaller, run: { createdById: string; name: string }): void {
  if (mayRetry(caller, run)) return;
  throw ApiError.forbidden(
    caller.role === 'viewer'
      ? 'viewers cannot retry runs; ask an admin of the workspace or the run’s creator'
      : `only an admin of the workspace or the creator of run ${run.name} can retry it`,
  );
}

interface UnscoredRow {
  agent_id: string;
  outcome: 'errored' | 'cancelled';
  n: number;
}

/** From the roll-up agent_outcome_totals (a few rows per agent), not from the attempts. */
async function unscoredByAgent(db: Db | Tx, runId: string): Promise<UnscoredRow[]> {
  return db.$queryRaw<UnscoredRow[]>`
    SELECT agent_id::text AS agent_id, outcome, sum(n)::int AS n
    FROM agent_outcome_totals
    WHERE run_id = ${runId}::uuid AND outcome IN ('errored', 'cancelled')
    GROUP BY agent_id, outcome`;
}

/**
 * Mean model cost of one attempt of each agent that reported a cost: from this run when any of
 * its attempts did, else from earlier runs of the same benchmark with the same harness and model.
 */
async function meanCosts(
  db: Db | Tx,
  run: { id: string; benchmarkId: string; createdAt: Date; workspaceId: string },
  agents: { id: string; harness: string; model: string }[],
): Promise<Map<string, { mean: number | null; basis: RetryAgentPlan['cost_basis'] }>> {
  const out = new Map<string, { mean: number | null; basis: RetryAgentPlan['cost_basis'] }>();
  // the roll-up's cost_usd is the sum over the attempts with a cost, cost_n their number
  const here = await db.$queryRaw<{ agent_id: string; mean: number }[]>`
    SELECT agent_id::text AS agent_id, (sum(cost_usd) / sum(cost_n))::float8 AS mean
    FROM agent_outcome_totals WHERE run_id = ${run.id}::uuid
    GROUP BY agent_id HAVING sum(cost_n) > 0`;
  const inRun = new Map(here.map((r) => [r.agent_id, r.mean]));
  for (const agent of agents) {
    const mean = inRun.get(agent.id);
    if (mean !== undefined) {
      out.set(agent.id, { mean, basis: 'this_run' });
      continue;
    }
    const earlier = await db.$queryRaw<{ mean: number | null }[]>`
      SELECT (sum(o.cost_usd) / nullif(sum(o.cost_n), 0))::float8 AS mean
      FROM agent_outcome_totals o
      JOIN run_agents ra ON ra.id = o.agent_id
      JOIN runs r ON r.id = o.run_id
      WHERE r.workspace_id = ${run.workspaceId}::uuid AND r.benchmark_id = ${run.benchmarkId}::uuid
        AND r.id <> ${run.id}::uuid AND r.created_at < ${run.createdAt}
        AND ra.harness = ${agent.harness} AND ra.model = ${agent.model}`;
    const m = earlier[0]?.mean ?? null;
    out.set(agent.id, m !== null ? { mean: m, basis: 'earlier_runs' } : costWithoutHistory(agent.harness));
  }
  return out;
}

interface RetryRun {
  id: string;
  name: string;
  status: RunStatusName;
  benchmarkId: string;
  workspaceId: string;
  createdAt: Date;
  agents: { id: string; index: number; harness: string; model: string }[];
}

/** Counts per agent and the estimated cost of re-running the unscored attempts of a run. */
export async function retryPlan(
  db: Db | Tx,
  run: RetryRun,
): Promise<Omit<RetryRunResult, 'dry_run' | 'previous_status' | 'status'>> {
  await foldRollups(db);
  const rows = await unscoredByAgent(db, run.id);
  const costs = await meanCosts(db, run, run.agents);
  const agents: RetryAgentPlan[] = run.agents.map((agent) => {
    const count = (outcome: (typeof UNSCORED)[number]) =>
      rows.find((r) => r.agent_id === agent.id && r.outcome === outcome)?.n ?? 0;
    const errored = count('errored');
    const cancelled = count('cancelled');
    const attempts = errored + cancelled;
    const cost = costs.get(agent.id) ?? { mean: null, basis: 'unknown' as const };
    return {
      agent_index: agent.index,
      harness: agent.harness,
      model: agent.model,
      errored,
      cancelled,
      attempts,
      mean_cost_usd: cost.mean,
      cost_basis: cost.basis,
      estimated_cost_usd: attempts === 0 ? 0 : cost.mean === null ? null : cost.mean * attempts,
    };
  });
  const unknown = agents.filter((a) => a.attempts > 0 && a.estimated_cost_usd === null);
  const total = agents.reduce((sum, a) => sum + a.attempts, 0);
  return {
    id: run.id,
    name: run.name,
    requeued_attempts: total,
    agents,
    estimated_cost_usd: unknown.length
      ? null
      : agents.reduce((sum, a) => sum + (a.estimated_cost_usd ?? 0), 0),
    cost_note: unknown.length
      ? `cost unknown for agent(s) ${unknown.map((a) => `${a.agent_index} (${a.harness}, ${a.model})`).join(', ')}: no attempt of that harness and model reported a cost in this run or in earlier runs of the benchmark`
      : null,
  };
}

/** 409 unless the run has ended (finished, stopped or failed) and was run here (not imported). */
function assertEnded(run: { name: string; status: RunStatusName; imported: boolean }): void {
  if (run.imported) throw ApiError.conflict(`run ${run.name} was imported from Harbor: it cannot be retried`);
  if (isTerminalRunStatus(run.status)) return;
  throw ApiError.conflict(
    `run ${run.name} is ${run.status}: only a run that has ended (finished, stopped or failed) can be retried; wait for it to end or stop it first`,
    { status: run.status },
  );
}

/**
 * 409 naming the tasks of the run whose content changed since its attempts were planned. Every
 * attempt of a run is planned at submit, all with the task's digest of that moment, so one
 * attempt per task is read (an index probe each) instead of every attempt.
 */
async function assertTasksUnchanged(
  db: Db | Tx,
  run: { id: string; name: string; benchmarkId: string },
): Promise<void> {
  const changed = await db.$queryRaw<{ task: string; planned: string; now: string }[]>`
    SELECT t.name AS task, p.planned, t.digest AS now
    FROM tasks t
    CROSS JOIN LATERAL (SELECT a.task_digest AS planned FROM attempts a
      WHERE a.run_id = ${run.id}::uuid AND a.task_id = t.id LIMIT 1) p
    WHERE t.benchmark_id = ${run.benchmarkId}::uuid AND p.planned IS NOT NULL AND p.planned <> t.digest
    ORDER BY t.name
    LIMIT 100`;
  if (changed.length === 0) return;
  const named = changed.slice(0, NAMED_TASKS).map((c) => c.task);
  const more = changed.length - named.length;
  throw ApiError.conflict(
    `run ${run.name} cannot be retried: ${changed.length} task(s) of the benchmark changed since the run (different task digests): ${named.join(', ')}${more > 0 ? ` and ${more} more` : ''}; submit a new run instead`,
    { reason: 'task_digests_changed', tasks: changed },
  );
}

/** Loads a run for a retry (404 when it is not in the workspace). */
export async function retryRunOr404(db: Db | Tx, workspaceId: string, name: string) {
  const run = await db.run.findFirst({
    where: { workspaceId, name },
    select: {
      id: true,
      name: true,
      status: true,
      imported: true,
      benchmarkId: true,
      workspaceId: true,
      createdAt: true,
      createdById: true,
      agents: { select: { id: true, index: true, harness: true, model: true }, orderBy: { index: 'asc' } },
    },
  });
  if (!run) throw await runNotFound(db, workspaceId, name);
  return run as typeof run & { status: RunStatusName };
}

/**
 * What a retry would do, with the same refusals as the retry itself; writes nothing.
 * `checkTasks: false` (the run page's button) leaves out the changed-task check, which reads an
 * attempt per task: the retry itself still refuses, naming the tasks.
 */
export async function previewRetry(
  db: Db,
  workspaceId: string,
  name: string,
  caller: RetryCaller,
  options: { checkTasks: boolean } = { checkTasks: true },
) {
  const run = await retryRunOr404(db, workspaceId, name);
  assertMayRetry(caller, run);
  assertEnded(run);
  if (options.checkTasks) await assertTasksUnchanged(db, run);
  const plan = await retryPlan(db, run);
  return { ...plan, dry_run: true, previous_status: run.status, status: run.status };
}

interface UnscoredAttempt {
  id: string;
  outcome: string;
  error_class: string | null;
  error_message: string | null;
  try_count: number;
  history: unknown;
  started_at: Date | null;
  finished_at: Date | null;
  cost_usd: number | null;
  input_tokens: number | null;
  output_tokens: number | null;
  cache_tokens: number | null;
  judge_cost_usd: number | null;
}

/** The run's errored and cancelled attempts, locked for the retry. */
async function unscoredAttempts(tx: Tx, runId: string): Promise<UnscoredAttempt[]> {
  return tx.$queryRaw<UnscoredAttempt[]>`
    SELECT id::text AS id, outcome::text AS outcome, error_class, error_message, try_count, history,
      started_at, finished_at, cost_usd, input_tokens, output_tokens, cache_tokens, judge_cost_usd
    FROM attempts
    WHERE run_id = ${runId}::uuid AND outcome::text IN ('errored', 'cancelled')
    ORDER BY id
    FOR UPDATE`;
}

/** The attempt's fields reset to a queued attempt's; `history` keeps the tries that ended. */
const QUEUED_ATTEMPT = {
  status: 'queued',
  outcome: null,
  reward: null,
  rewards: Prisma.DbNull,
  errorClass: null,
  errorMessage: null,
  notBefore: null,
  dispatchedAt: null,
  leaseOwner: null,
  leaseExpiresAt: null,
  costUsd: null,
  inputTokens: null,
  outputTokens: null,
  cacheTokens: null,
  judgeCostUsd: null,
  judgeInputTokens: null,
  judgeOutputTokens: null,
  envMs: null,
  agentSetupMs: null,
  agentMs: null,
  verifierMs: null,
  agentExitCode: null,
  agentTimedOut: null,
  steps: Prisma.DbNull,
  waitingReason: null,
  startedAt: null,
  finishedAt: null,
} as const;

/** Records the try that ended (history, `attempt.retried` event) and queues the attempt again. */
async function requeueAttempt(
  tx: Tx,
  runId: string,
  a: UnscoredAttempt,
  by: { email: string; at: Date },
): Promise<void> {
  const history = Array.isArray(a.history) ? (a.history as unknown[]) : [];
  // the try that ended, as the worker records an errored try it retries itself (usage kept:
  // spent money is never forgotten)
  const tryRecord = {
    try: a.try_count,
    outcome: a.outcome,
    error_class: a.error_class,
    error_message: a.error_message,
    started_at: a.started_at?.toISOString() ?? null,
    finished_at: a.finished_at?.toISOString() ?? null,
    cost_usd: a.cost_usd,
    input_tokens: a.input_tokens,
    output_tokens: a.output_tokens,
    cache_tokens: a.cache_tokens,
    judge_cost_usd: a.judge_cost_usd,
    retried_by: by.email,
    retried_at: by.at.toISOString(),
  };
  await appendRunEvent(tx, {
    runId,
    attemptId: a.id,
    level: 'warn',
    step: 'attempt.retried',
    message: `attempt re-queued by ${by.email} (run retry): try ${a.try_count} ended ${a.outcome}${a.error_class ? ` (${a.error_class}${a.error_message ? `: ${a.error_message}` : ''})` : ''}`,
    details: {
      by: by.email,
      previous_outcome: a.outcome,
      error_class: a.error_class,
      error_message: a.error_message,
      try: a.try_count,
    },
  });
  await tx.attempt.update({
    where: { id: a.id },
    data: { ...QUEUED_ATTEMPT, history: [...history, tryRecord] as Prisma.InputJsonValue },
  });
}

/**
 * Re-queues the unscored attempts of an ended run in one transaction (the run row locked first,
 * as every worker writer does). 409 when nothing is unscored: a retry that would do nothing is
 * a mistake worth saying.
 */
export async function retryRun(
  db: Db,
  workspaceId: string,
  name: string,
  caller: RetryCaller & { email: string },
): Promise<RetryRunResult> {
  const found = await retryRunOr404(db, workspaceId, name);
  assertMayRetry(caller, found);
  return db.$transaction(
    async (tx) => {
      const locked = await tx.$queryRaw<{ status: RunStatusName }[]>`
        SELECT status::text AS status FROM runs WHERE id = ${found.id}::uuid FOR NO KEY UPDATE`;
      const status = locked[0]?.status;
      if (!status) throw ApiError.notFound('run');
      const run = { ...found, status };
      assertEnded(run);
      await assertTasksUnchanged(tx, run);
      const plan = await retryPlan(tx, run);
      if (plan.requeued_attempts === 0) {
        throw ApiError.conflict(
          `run ${run.name} has no errored or cancelled attempt: every attempt is scored, nothing to retry`,
          { status },
        );
      }
      const attempts = await unscoredAttempts(tx, run.id);
      const at = new Date();
      for (const a of attempts) await requeueAttempt(tx, run.id, a, { email: caller.email, at });
      await tx.run.update({
        where: { id: run.id },
        data: { status: 'queued', finishedAt: null, errorMessage: null },
      });
      await appendRunEvent(tx, {
        runId: run.id,
        level: 'info',
        step: 'run.retried',
        message: `run retried by ${caller.email}: ${attempts.length} unscored attempt(s) re-queued (was ${status})`,
        details: {
          by: caller.email,
          previous_status: status,
          requeued_attempts: attempts.length,
          agents: plan.agents.map((p) => ({
            agent_index: p.agent_index,
            errored: p.errored,
            cancelled: p.cancelled,
          })),
        },
      });
      return { ...plan, dry_run: false, previous_status: status, status: 'queued' as const };
    },
    { timeout: 60_000, maxWait: 10_000 },
  );
}

/**
 * Retries the run and wakes the dispatcher (the same path a submit takes); if Redis does not
 * answer, the reconciler's periodic sweep dispatches active runs anyway, so the retry is not lost.
 */
export async function retryRunAndDispatch(
  deps: { db: Db; queues: Queues; log: FastifyBaseLogger },
  workspaceId: string,
  name: string,
  caller: RetryCaller & { email: string },
): Promise<RetryRunResult> {
  const result = await retryRun(deps.db, workspaceId, name, caller);
  await enqueueRunDispatch(deps.queues, result.id).catch((error: Error) => {
    deps.log.warn({ err: error.message, run_id: result.id }, 'could not wake the dispatcher');
  });
  deps.log.info({ run_id: result.id, requeued_attempts: result.requeued_attempts }, 'run retried');
  return result;
}
