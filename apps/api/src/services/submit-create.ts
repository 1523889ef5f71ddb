// Creating a submitted run: ONE transaction writes the run, its agents, every planned attempt
// and the first events (run.submitted, run.queued); a clashing random name is retried.
import {
  effectiveEnv,
  type RunAgentSpec,
  type RunConfig,
  type RunReuse,
  type RunSelection,
  type SubmitRunBody,
} from '@osmosis/contracts';
import {
  agentSecretNames,
  planAttempts,
  type ResolvedRunConfig,
  randomRunBaseName,
  uniqueRunName,
} from '@osmosis/core';
import { appendRunEvents, type Db, type NewRunEvent } from '@osmosis/db';
import { isUniqueViolation } from './db-errors.ts';
import { buildRunLockRecord } from './run-lock-record.ts';
import type { TaskRow } from './submit-benchmark.ts';
import type { Caller, Prepared } from './submit-prepare.ts';
import { modelLabel } from './submit-preview.ts';
import { PROVIDED_SECRET_ID, storeProvidedSecrets } from './submit-provided-secrets.ts';
import { copyImagePins, planReuse, type ReusePlan, reuseKey, writeReusedAttempts } from './submit-reuse.ts';

const ATTEMPT_INSERT_CHUNK = 5000;

function agentSpec(
  config: RunConfig,
  index: number,
  resolved: ResolvedRunConfig<TaskRow>,
  verifierSecretEnv: string[],
): RunAgentSpec {
  const agent = config.agents[index]!;
  const harness = resolved.harnesses[index]!;
  return {
    harness,
    harness_defaulted: resolved.harnessDefaulted[index]!,
    harness_api_key_secret: agent.harness_api_key_secret ?? null,
    model: agent.model ?? null,
    env: effectiveEnv(config, index),
    secret_env: agentSecretNames(config, index),
    verifier_secret_env: verifierSecretEnv,
  };
}

/** The run.submitted event: what was submitted, by whom, and what was taken over from an earlier run. */
function submittedEvent(
  runId: string,
  caller: Caller,
  body: SubmitRunBody,
  prepared: Prepared,
  counts: { planned: number; reuse: ReusePlan | null },
): NewRunEvent {
  const { config, resolved, benchmark } = prepared;
  const reused = counts.reuse?.attempts.size ?? 0;
  const total = counts.planned + reused;
  const agents = config.agents.length;
  const k = config.execution.attempts_per_task;
  return {
    runId,
    level: 'info',
    step: 'run.submitted',
    message: `run submitted by ${caller.user.email}: ${benchmark.key}, ${resolved.selection.description}, ${agents} agent${agents === 1 ? '' : 's'} × ${k} attempt${k === 1 ? '' : 's'} per task = ${total} attempts${counts.reuse ? `, ${reused} taken over from run ${counts.reuse.sourceName}` : ''}`,
    details: {
      file_name: body.file_name,
      benchmark: benchmark.key,
      task_count: resolved.selection.tasks.length,
      agents: prepared.preview.agents.map((a) => ({ harness: a.harness, model: a.model })),
      attempts_per_task: k,
      total_attempts: total,
      reused_attempts: reused,
      reused_from: counts.reuse?.sourceName ?? null,
      max_concurrent_attempts: config.execution.max_concurrent_attempts,
      secrets: prepared.preview.secrets.map((s) => ({ name: s.name, scope: s.scope, phases: s.phases })),
      warnings: prepared.warnings.map((w) => w.code),
    },
  };
}

export interface CreateRunOptions {
  /** reproduce: the run whose image pins the new run gets, and no reuse_from */
  reproduces?: { runId: string };
}

/**
 * Creates the run, its agents, every planned attempt (reused ones as copies of the earlier
 * results: services/submit-reuse.ts) and its first events in one transaction.
 */
export async function createRun(
  db: Db,
  caller: Caller,
  body: SubmitRunBody,
  prepared: Prepared,
  options: CreateRunOptions = {},
) {
  const { config, resolved, benchmark, secrets } = prepared;
  const { workspace, user } = caller;
  const tasks = resolved.selection.tasks;
  const reuseFrom = options.reproduces ? null : (body.reuse_from ?? config.execution.reuse_from ?? null);
  const lock = await buildRunLockRecord(db, prepared, reuseFrom);
  const reuse = reuseFrom
    ? await planReuse(db, workspace.id, reuseFrom, prepared, lock, body.file_name)
    : null;
  const plan = planAttempts(config.agents.length, tasks, config.execution.attempts_per_task).filter(
    (p) => !reuse?.attempts.has(reuseKey(p.agentIndex, p.task.id, p.index)),
  );
  const selection: RunSelection = {
    mode: resolved.selection.mode,
    full_set: resolved.selection.mode === 'full',
    task_set: config.tasks?.task_set ?? null,
    task_names: config.tasks?.task_names ?? null,
    categories: config.tasks?.categories ?? null,
    task_count: tasks.length,
    description: resolved.selection.description,
  };
  // a supplied value has no record: its entry marks it (`{provided: true}`), the value is in run_secret_values
  const secretRefs = Object.fromEntries(
    [...secrets.values()].map((s) => [s.name, s.id === PROVIDED_SECRET_ID ? { provided: true } : s.id]),
  );

  for (let tries = 0; ; tries++) {
    const base = randomRunBaseName();
    const taken = await db.run.findMany({
      where: { workspaceId: workspace.id, name: { startsWith: base } },
      select: { name: true },
    });
    const name = uniqueRunName(
      base,
      taken.map((r) => r.name),
    );
    try {
      return await db.$transaction(
        async (tx) => {
          const run = await tx.run.create({
            data: {
              workspaceId: workspace.id,
              benchmarkId: benchmark.id,
              name,
              status: 'pending',
              configToml: body.config_toml,
              config: config as object,
              selection: selection as object,
              taskCount: tasks.length,
              attemptsPerTask: config.execution.attempts_per_task,
              maxConcurrentAttempts: config.execution.max_concurrent_attempts,
              timeoutMultiplier: config.execution.timeout_multiplier,
              maxRetries: config.execution.max_retries,
              passThreshold: resolved.passThreshold,
              judgeModel: resolved.judgeModel,
              maxCostUsd: config.execution.max_cost_usd ?? null,
              secretRefs,
              lock: lock as object,
              reusedFromRunId: reuse?.sourceRunId ?? null,
              createdById: user.id,
            },
          });
          await storeProvidedSecrets(tx, { runId: run.id, workspaceId: workspace.id }, prepared.provided);
          const agentIds: string[] = [];
          for (let i = 0; i < config.agents.length; i++) {
            const model = modelLabel(config.agents[i]!, resolved.harnesses[i]!);
            const agent = await tx.runAgent.create({
              data: {
                runId: run.id,
                index: i,
                harness: resolved.harnesses[i]!,
                modelType: model.type,
                model: model.label,
                spec: agentSpec(config, i, resolved, prepared.verifierSecretEnv) as object,
              },
              select: { id: true },
            });
            agentIds.push(agent.id);
          }
          for (let at = 0; at < plan.length; at += ATTEMPT_INSERT_CHUNK) {
            await tx.attempt.createMany({
              data: plan.slice(at, at + ATTEMPT_INSERT_CHUNK).map((p) => ({
                runId: run.id,
                agentId: agentIds[p.agentIndex]!,
                taskId: p.task.id,
                index: p.index,
                status: 'queued' as const,
              })),
            });
          }
          if (reuse) await writeReusedAttempts(tx, run.id, agentIds, reuse);
          else if (options.reproduces) await copyImagePins(tx, options.reproduces.runId, run.id);
          const queued = await tx.run.update({ where: { id: run.id }, data: { status: 'queued' } });
          await appendRunEvents(tx, [
            submittedEvent(run.id, caller, body, prepared, { planned: plan.length, reuse }),
            { runId: run.id, level: 'info', step: 'run.queued', message: 'run queued for dispatch' },
          ]);
          const reused: RunReuse | null = reuse
            ? { from: reuse.sourceName, attempts: reuse.attempts.size, to_run: plan.length }
            : null;
          return { ...queued, reuse: reused };
        },
        { timeout: 120_000, maxWait: 10_000 },
      );
    } catch (error) {
      if (isUniqueViolation(error) && tries < 5) continue;
      throw error;
    }
  }
}

/**
 * Removes a run whose dispatch job could not be queued (its rows cascade): it would never start.
 * A failed delete is swallowed so the caller still gets the queue's 503, not the database's error.
 */
export async function removeUnqueuedRun(db: Db, runId: string): Promise<void> {
  await db.run.delete({ where: { id: runId } }).catch(() => undefined);
}
