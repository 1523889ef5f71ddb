// One run as `runs info` and the run page show it: settings, progress, scores, agents and the
// first RUN_INFO_MAX_ATTEMPTS attempts with their retries.
import {
  AttemptImage,
  type AttemptInfo,
  AttemptSteps,
  RUN_INFO_MAX_ATTEMPTS,
  RunImportInfo,
  type RunInfo,
} from '@osmosis/contracts';
import { type Db, firstAttemptIds } from '@osmosis/db';
import type { ServiceDeps } from './deps.ts';
import { stopReasonOf } from './run-budget.ts';
import { creatorsOf, RUN_LIST_INCLUDE, summary } from './run-list.ts';
import { loadRunResults, runOr404 } from './run-results.ts';
import { iso } from './serialize.ts';
import { faultsOfRuns } from './workers.ts';

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

type AttemptRow = Awaited<ReturnType<typeof attemptsOf>>[number];

// the first attempts found by keyset order (packages/db); then only those are loaded and sorted,
// only the columns attemptInfo shows (all of them, harness info and rewards too, took 150 ms for
// the 1 000 at 300 000 attempts, 60 ms so: bench/results-scale.ts)
async function attemptsOf(db: Db, runId: string) {
  const ids = await firstAttemptIds(db, runId, RUN_INFO_MAX_ATTEMPTS + 1);
  return db.attempt.findMany({
    where: { id: { in: ids } },
    select: {
      id: true,
      index: true,
      status: true,
      outcome: true,
      reward: true,
      errorClass: true,
      errorMessage: true,
      tryCount: true,
      history: true,
      envMs: true,
      agentSetupMs: true,
      agentMs: true,
      verifierMs: true,
      agentExitCode: true,
      agentTimedOut: true,
      costUsd: true,
      inputTokens: true,
      outputTokens: true,
      cacheTokens: true,
      startedAt: true,
      finishedAt: true,
      steps: true,
      imageInfo: true,
      reusedFromAttemptId: true,
      task: { select: { name: true } },
      agent: { select: { index: true } },
    },
    orderBy: [{ agent: { index: 'asc' } }, { task: { name: 'asc' } }, { index: 'asc' }],
  });
}

function attemptInfo(a: AttemptRow): AttemptInfo {
  return {
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
    image: AttemptImage.nullable()
      .catch(null)
      .parse(a.imageInfo ?? null),
    reused_from: a.reusedFromAttemptId,
  };
}

/** The run this one took attempts over from (null when none). */
async function reusedFromOf(db: Db, runId: string) {
  const run = await db.run.findUniqueOrThrow({
    where: { id: runId },
    select: { reusedFromRunId: true, reusedFrom: { select: { name: true } } },
  });
  if (!run.reusedFromRunId) return null;
  const attempts = await db.attempt.count({ where: { runId, reusedFromAttemptId: { not: null } } });
  return { run: run.reusedFrom?.name ?? null, attempts };
}

/** The run `name` of the workspace (404 when there is none). */
export async function runInfo(deps: ServiceDeps, workspaceId: string, name: string): Promise<RunInfo> {
  const { db, config } = deps;
  const forResults = await runOr404(db, workspaceId, name);
  const row = await db.run.findUniqueOrThrow({
    where: { id: forResults.id },
    include: { ...RUN_LIST_INCLUDE, agents: { orderBy: { index: 'asc' } } },
  });
  const [results, attempts, creators, secretScopes, pins, reuse] = await Promise.all([
    loadRunResults(db, forResults),
    attemptsOf(db, row.id),
    creatorsOf(db, [row.createdById]),
    secretScopesOf(db, row.id, row.secretRefs),
    db.runImagePin.findMany({ where: { runId: row.id }, orderBy: { reference: 'asc' } }),
    reusedFromOf(db, row.id),
  ]);
  const faults = await faultsOfRuns(db, [{ id: row.id, status: row.status, progress: results.progress }], {
    maxErroredShare: config.rankedMaxErroredShare,
    workspaceMax: config.workspaceMaxConcurrentAttempts,
  });
  const creator = creators.get(row.createdById);
  return {
    ...summary(row, {
      progress: results.progress,
      best: results.agents.reduce<number | null>(
        (best, agent) =>
          agent.pass_at_1 === null ? best : best === null ? agent.pass_at_1 : Math.max(best, agent.pass_at_1),
        null,
      ),
      createdBy: creator?.email ?? null,
      publicUrl: config.publicUrl,
      faults: faults.get(row.id)!,
      creator,
    }),
    timeout_multiplier: row.timeoutMultiplier,
    max_retries: row.maxRetries,
    pass_threshold: row.passThreshold,
    judge_model: row.judgeModel,
    error_message: row.errorMessage,
    max_cost_usd: row.maxCostUsd,
    import_info: row.importInfo ? RunImportInfo.parse(row.importInfo) : null,
    stop_reason: await stopReasonOf(db, row),
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
    attempts: attempts.slice(0, RUN_INFO_MAX_ATTEMPTS).map(attemptInfo),
    attempts_truncated: attempts.length > RUN_INFO_MAX_ATTEMPTS,
    image_pins: pins.map((p) => ({
      reference: p.reference,
      digest: p.digest,
      pinned_at: p.createdAt.toISOString(),
    })),
    reused_from: reuse,
  };
}
