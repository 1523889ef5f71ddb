// Basic run views and stop:
//   GET  /v1/runs                 runs of the workspace, newest first (progress, best pass@1);
//                                 ?status=, ?benchmark= (key, exact name or id) filter them
//   GET  /v1/runs/:name           one run: settings, progress, scores, per-attempt outcomes
//   GET  /v1/runs/:name/events    lifecycle events (`runs logs`): keyset pages, newest page first,
//                                 oldest first within a page, `next_cursor` pages further back
//   POST /v1/runs/:name/stop      pending/queued/running only (else 409): queued attempts are
//                                 cancelled at once; workers abort running ones within ~1 s (they
//                                 poll the run's status with their lease heartbeat); status stopped
import {
  type AttemptInfo,
  AttemptSteps,
  type ProgressSnapshot,
  RUN_INFO_MAX_ATTEMPTS,
  RunEventsQuery,
  RunEventsResponse,
  type RunFaults,
  type RunInfo,
  RunInfoResponse,
  RunListQuery,
  RunListResponse,
  type RunStatusName,
  type RunSummary,
  runStopChannel,
  STANDARD_ERROR_RESPONSES,
  StopRunResponse,
} from '@osmosis/contracts';
import { isStoppableRunStatus } from '@osmosis/core';
import { attemptCountsByRun, type Db, firstAttemptIds, type Prisma } from '@osmosis/db';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { ApiError } from '../errors.ts';
import { attemptFieldsOfEvents } from '../services/event-attempts.ts';
import { bestPassAt1ByRun, loadRunResults, runOr404 } from '../services/run-results.ts';
import { iso, page } from '../services/serialize.ts';
import { faultsOfRuns } from '../services/workers.ts';
import { RunNameParams } from './results.ts';
import { stopReasonOf } from './run-budget.ts';

const RUN_LIST_INCLUDE = {
  benchmark: { select: { key: true, name: true } },
  _count: { select: { agents: true } },
} as const;

type RunRow = Prisma.RunGetPayload<{ include: typeof RUN_LIST_INCLUDE }>;

export function runPlatformUrl(publicUrl: string, name: string): string {
  return `${publicUrl.replace(/\/+$/, '')}/runs/${encodeURIComponent(name)}`;
}

function durationMs(
  run: { startedAt: Date | null; finishedAt: Date | null },
  now = new Date(),
): number | null {
  if (!run.startedAt) return null;
  return Math.max(0, (run.finishedAt ?? now).getTime() - run.startedAt.getTime());
}

/** Attempt counts of runs, as ProgressSnapshot (one grouped query). */
export async function progressByRun(db: Db, runIds: string[]): Promise<Map<string, ProgressSnapshot>> {
  const out = new Map<string, ProgressSnapshot>();
  for (const id of runIds) {
    out.set(id, {
      total: 0,
      done: 0,
      running: 0,
      queued: 0,
      passed: 0,
      failed: 0,
      errored: 0,
      cancelled: 0,
      fraction: 0,
    });
  }
  if (runIds.length === 0) return out;
  for (const row of await attemptCountsByRun(db, runIds)) {
    const p = out.get(row.run_id);
    if (!p) continue;
    const n = row.n;
    p.total += n;
    if (row.status === 'running') p.running += n;
    else if (row.status === 'queued') p.queued += n;
    if (row.outcome) {
      p.done += n;
      p[row.outcome] += n;
    }
  }
  for (const p of out.values()) p.fraction = p.total === 0 ? 0 : p.done / p.total;
  return out;
}

function summary(
  row: RunRow,
  extra: {
    progress: ProgressSnapshot;
    best: number | null;
    createdBy: string | null;
    publicUrl: string;
    faults: RunFaults;
    creator?: { email: string; name: string | null } | undefined;
  },
): RunSummary {
  return {
    id: row.id,
    name: row.name,
    status: row.status as RunStatusName,
    benchmark_id: row.benchmarkId,
    benchmark_key: row.benchmark.key,
    benchmark_name: row.benchmark.name,
    task_count: row.taskCount,
    agent_count: row._count.agents,
    attempts_per_task: row.attemptsPerTask,
    max_concurrent_attempts: row.maxConcurrentAttempts,
    best_pass_at_1: extra.best,
    progress: extra.progress,
    created_by: extra.createdBy,
    created_at: iso(row.createdAt),
    started_at: iso(row.startedAt),
    finished_at: iso(row.finishedAt),
    duration_ms: durationMs(row),
    platform_url: runPlatformUrl(extra.publicUrl, row.name),
    ...extra.faults,
    creator_name: extra.creator ? (extra.creator.name ?? extra.creator.email) : null,
    creator_email: extra.creator?.email ?? null,
  };
}

/** Display names and e-mails of run creators (upstream's creator_name / creator_email). */
async function creatorsOf(
  db: Db,
  ids: string[],
): Promise<Map<string, { email: string; name: string | null }>> {
  const users = await db.user.findMany({
    where: { id: { in: [...new Set(ids)] } },
    select: { id: true, email: true, displayName: true },
  });
  return new Map(users.map((u) => [u.id, { email: u.email, name: u.displayName }]));
}

/** The scope each secret record name of a run resolved to at submit (`run`: supplied with the submit). */
async function secretScopesOf(db: Db, runId: string, refs: unknown): Promise<Record<string, string>> {
  const entries = Object.entries((refs ?? {}) as Record<string, unknown>);
  const ids = entries.flatMap(([, id]) => (typeof id === 'string' ? [id] : []));
  const rows = ids.length
    ? await db.secret.findMany({ where: { id: { in: ids } }, select: { id: true, scope: true } })
    : [];
  const scopes = new Map(rows.map((r) => [r.id, r.scope as string]));
  const provided = await db.runSecretValue.findMany({ where: { runId }, select: { name: true } });
  const out: Record<string, string> = {};
  for (const [name, id] of entries) if (typeof id === 'string') out[name] = scopes.get(id) ?? 'deleted';
  for (const { name } of provided) out[name] = 'run';
  for (const [name, id] of entries) if (typeof id !== 'string' && out[name] === undefined) out[name] = 'run';
  return out;
}

async function emails(db: Db, ids: string[]): Promise<Map<string, string>> {
  const users = await db.user.findMany({
    where: { id: { in: [...new Set(ids)] } },
    select: { id: true, email: true },
  });
  return new Map(users.map((u) => [u.id, u.email]));
}

/** An agent's literal env as submitted (RunAgent.spec.env: values from the config, never secrets). */
function envOf(spec: unknown): Record<string, string> {
  const env = (spec as { env?: unknown } | null)?.env;
  if (!env || typeof env !== 'object') return {};
  return Object.fromEntries(
    Object.entries(env).filter((e): e is [string, string] => typeof e[1] === 'string'),
  );
}

/** The task selection of a run (Run.selection), as `runs info` reports it. */
function selectionOf(selection: unknown): RunInfo['task_selection'] {
  const s = (selection ?? {}) as Record<string, unknown>;
  const list = (v: unknown) =>
    Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : null;
  return {
    task_set: typeof s.task_set === 'string' ? s.task_set : null,
    task_names: list(s.task_names),
    categories: list(s.categories),
  };
}

interface HistoryEntry {
  try?: number;
  outcome?: string;
  error_class?: string | null;
  error_message?: string | null;
  started_at?: string | null;
  finished_at?: string | null;
  cost_usd?: number | null;
  input_tokens?: number | null;
  output_tokens?: number | null;
}

export interface StopOutcome {
  id: string;
  name: string;
  previousStatus: RunStatusName;
  cancelled: number;
  aborting: number;
}

/**
 * Stops a run in one transaction (the run row locked first, as every worker writer does):
 * queued attempts are cancelled, the run becomes `stopped`; workers see it on their next lease
 * heartbeat and abort the running attempts. 409 unless the run is pending, queued or running.
 */
export async function stopRun(db: Db, runId: string, by: string): Promise<StopOutcome> {
  return db.$transaction(async (tx) => {
    const rows = await tx.$queryRaw<{ name: string; status: RunStatusName }[]>`
      SELECT name, status::text AS status FROM runs WHERE id = ${runId}::uuid FOR UPDATE`;
    const run = rows[0];
    if (!run) throw ApiError.notFound('run');
    if (!isStoppableRunStatus(run.status)) {
      throw ApiError.conflict(
        `run ${run.name} is ${run.status}: only pending, queued or running runs can be stopped`,
        {
          status: run.status,
        },
      );
    }
    const cancelled = await tx.$executeRaw`
      UPDATE attempts SET status = 'cancelled', outcome = 'cancelled', finished_at = now(),
        lease_owner = NULL, lease_expires_at = NULL
      WHERE run_id = ${runId}::uuid AND status = 'queued'`;
    const aborting = await tx.attempt.count({ where: { runId, status: 'running' } });
    await tx.run.update({ where: { id: runId }, data: { status: 'stopped', finishedAt: new Date() } });
    await tx.runEvent.create({
      data: {
        runId,
        level: 'warn',
        step: 'run.stopped',
        message: `run stopped by ${by}: ${cancelled} queued attempt(s) cancelled, ${aborting} running attempt(s) aborting`,
        details: {
          by,
          cancelled_attempts: cancelled,
          aborting_attempts: aborting,
          previous_status: run.status,
        },
      },
    });
    return { id: runId, name: run.name, previousStatus: run.status, cancelled, aborting };
  });
}

export const runRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/runs',
    {
      schema: {
        tags: ['runs'],
        summary: "The workspace's runs, newest first, with progress and best pass@1",
        querystring: RunListQuery,
        response: { 200: RunListResponse, ...STANDARD_ERROR_RESPONSES },
      },
    },
    async (request) => {
      const { limit, offset, status, benchmark } = request.query;
      const where: Prisma.RunWhereInput = { workspaceId: request.auth.workspace.id };
      if (status) where.status = status;
      if (benchmark) {
        const isId = /^[0-9a-f-]{36}$/i.test(benchmark);
        where.benchmark = isId
          ? { OR: [{ id: benchmark }, { key: benchmark }, { name: benchmark }] }
          : { OR: [{ key: benchmark }, { name: benchmark }] };
      }
      const [total, rows] = await Promise.all([
        app.db.run.count({ where }),
        app.db.run.findMany({
          where,
          include: RUN_LIST_INCLUDE,
          orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
          skip: offset,
          take: limit,
        }),
      ]);
      const ids = rows.map((r) => r.id);
      const [progress, best, users, creators] = await Promise.all([
        progressByRun(app.db, ids),
        bestPassAt1ByRun(app.db, ids),
        emails(
          app.db,
          rows.map((r) => r.createdById),
        ),
        creatorsOf(
          app.db,
          rows.map((r) => r.createdById),
        ),
      ]);
      const faults = await faultsOfRuns(
        app.db,
        rows.map((r) => ({ id: r.id, status: r.status, progress: progress.get(r.id)! })),
        app.config.rankedMaxErroredShare,
      );
      const items = rows.map((row) =>
        summary(row, {
          progress: progress.get(row.id)!,
          best: best.get(row.id) ?? null,
          createdBy: users.get(row.createdById) ?? null,
          publicUrl: app.config.publicUrl,
          faults: faults.get(row.id)!,
          creator: creators.get(row.createdById),
        }),
      );
      return page(items, total, offset);
    },
  );

  app.get(
    '/runs/:name',
    {
      schema: {
        tags: ['runs'],
        summary: 'One run: status, settings, progress, scores and every attempt with its outcome',
        params: RunNameParams,
        response: { 200: RunInfoResponse, ...STANDARD_ERROR_RESPONSES },
      },
    },
    async (request) => {
      const forResults = await runOr404(app.db, request.auth.workspace.id, request.params.name);
      const row = await app.db.run.findUniqueOrThrow({
        where: { id: forResults.id },
        include: { ...RUN_LIST_INCLUDE, agents: { orderBy: { index: 'asc' } } },
      });
      const [results, attempts, users, creators, secretScopes] = await Promise.all([
        loadRunResults(app.db, forResults),
        // the first attempts found by keyset order; then only those are loaded and sorted
        firstAttemptIds(app.db, row.id, RUN_INFO_MAX_ATTEMPTS + 1).then((ids) =>
          app.db.attempt.findMany({
            where: { id: { in: ids } },
            include: { task: { select: { name: true } }, agent: { select: { index: true } } },
            orderBy: [{ agent: { index: 'asc' } }, { task: { name: 'asc' } }, { index: 'asc' }],
          }),
        ),
        emails(app.db, [row.createdById]),
        creatorsOf(app.db, [row.createdById]),
        secretScopesOf(app.db, row.id, row.secretRefs),
      ]);
      const faults = await faultsOfRuns(
        app.db,
        [{ id: row.id, status: row.status, progress: results.progress }],
        app.config.rankedMaxErroredShare,
      );
      const truncated = attempts.length > RUN_INFO_MAX_ATTEMPTS;
      const attemptInfos: AttemptInfo[] = attempts.slice(0, RUN_INFO_MAX_ATTEMPTS).map((a) => ({
        id: a.id,
        agent_index: a.agent.index,
        task_name: a.task.name,
        index: a.index,
        status: a.status,
        outcome: a.outcome,
        reward: a.reward,
        error_class: a.errorClass,
        error_message: a.errorMessage,
        try_count: a.tryCount,
        retries: (Array.isArray(a.history) ? (a.history as HistoryEntry[]) : []).map((h, i) => ({
          try: h.try ?? i + 1,
          outcome: h.outcome ?? 'errored',
          error_class: h.error_class ?? null,
          error_message: h.error_message ?? null,
          started_at: h.started_at ?? null,
          finished_at: h.finished_at ?? null,
          // usage an earlier execution spent, when it reported any
          ...(h.cost_usd != null || h.input_tokens != null || h.output_tokens != null
            ? {
                cost_usd: h.cost_usd ?? null,
                input_tokens: h.input_tokens ?? null,
                output_tokens: h.output_tokens ?? null,
              }
            : {}),
        })),
        env_ms: a.envMs,
        agent_setup_ms: a.agentSetupMs,
        agent_ms: a.agentMs,
        verifier_ms: a.verifierMs,
        agent_exit_code: a.agentExitCode,
        agent_timed_out: a.agentTimedOut,
        cost_usd: a.costUsd,
        input_tokens: a.inputTokens,
        output_tokens: a.outputTokens,
        cache_tokens: a.cacheTokens,
        started_at: iso(a.startedAt),
        finished_at: iso(a.finishedAt),
        steps: AttemptSteps.catch(null).parse(a.steps ?? null),
      }));
      return {
        data: {
          ...summary(row, {
            progress: results.progress,
            best: results.agents.reduce<number | null>(
              (best, agent) =>
                agent.pass_at_1 === null
                  ? best
                  : best === null
                    ? agent.pass_at_1
                    : Math.max(best, agent.pass_at_1),
              null,
            ),
            createdBy: users.get(row.createdById) ?? null,
            publicUrl: app.config.publicUrl,
            faults: faults.get(row.id)!,
            creator: creators.get(row.createdById),
          }),
          timeout_multiplier: row.timeoutMultiplier,
          max_retries: row.maxRetries,
          pass_threshold: row.passThreshold,
          judge_model: row.judgeModel,
          error_message: row.errorMessage,
          max_cost_usd: row.maxCostUsd,
          stop_reason: await stopReasonOf(app.db, row),
          agents: row.agents.map((a) => ({
            id: a.id,
            index: a.index,
            harness: a.harness,
            model_type: a.modelType,
            model: a.model,
            env: envOf(a.spec),
          })),
          task_selection: selectionOf(row.selection),
          secret_scopes: secretScopes,
          results,
          attempts: attemptInfos,
          attempts_truncated: truncated,
        },
      };
    },
  );

  app.get(
    '/runs/:name/events',
    {
      schema: {
        tags: ['runs'],
        summary:
          "A run's lifecycle events: newest page first, oldest first within a page; next_cursor pages back",
        params: RunNameParams,
        querystring: RunEventsQuery,
        response: { 200: RunEventsResponse, ...STANDARD_ERROR_RESPONSES },
      },
    },
    async (request) => {
      const run = await runOr404(app.db, request.auth.workspace.id, request.params.name);
      const { limit, cursor } = request.query;
      const where: Prisma.RunEventWhereInput = { runId: run.id };
      if (cursor) where.id = { lt: BigInt(cursor) };
      const [total, rows] = await Promise.all([
        app.db.runEvent.count({ where: { runId: run.id } }),
        app.db.runEvent.findMany({ where, orderBy: { id: 'desc' }, take: limit + 1 }),
      ]);
      const hasMore = rows.length > limit;
      const pageRows = rows.slice(0, limit).reverse();
      const attemptFields = await attemptFieldsOfEvents(app.db, run.id, pageRows);
      return {
        items: pageRows.map((e) => ({
          id: e.id.toString(),
          timestamp: iso(e.timestamp),
          level: e.level,
          step: e.step,
          message: e.message,
          details: e.details ?? null,
          attempt_id: e.attemptId,
          ...attemptFields.get(e.id),
        })),
        total_count: total,
        has_more: hasMore,
        next_offset: null,
        next_cursor: hasMore && pageRows[0] ? pageRows[0].id.toString() : null,
      };
    },
  );

  app.post(
    '/runs/:name/stop',
    {
      schema: {
        tags: ['runs'],
        summary: 'Stop a pending, queued or running run: queued attempts are cancelled, running ones aborted',
        params: RunNameParams,
        response: { 200: StopRunResponse, ...STANDARD_ERROR_RESPONSES },
      },
    },
    async (request) => {
      const run = await runOr404(app.db, request.auth.workspace.id, request.params.name);
      const stopped = await stopRun(app.db, run.id, request.auth.user.email);
      // workers abort the run's sandboxes on this message (and on their next heartbeat anyway)
      await app.redis.publish(runStopChannel(app.config.queuePrefix), run.id).catch((error: Error) => {
        request.log.warn({ err: error.message, run: run.id }, 'could not announce the stop');
      });
      return {
        data: {
          id: stopped.id,
          name: stopped.name,
          status: 'stopped' as const,
          previous_status: stopped.previousStatus,
          cancelled_attempts: stopped.cancelled,
          aborting_attempts: stopped.aborting,
        },
      };
    },
  );
};
