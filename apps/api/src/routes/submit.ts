// Run submission:
//   POST /v1/runs/preview   validate a config against the workspace and show what would run
//   POST /v1/runs           the same validation, then ONE transaction creates the run, its agents,
//                           every planned attempt and the first events; then the run is enqueued
//
// The API never trusts the CLI: the TOML is parsed and every rule re-checked here. Failures, in
// order: INVALID_CONFIG (400, details {file_name, issues}), NOT_FOUND (benchmark), BENCHMARK_NOT_READY
// (409), INVALID_CONFIG for rules needing the benchmark (tasks, harness, judge), MISSING_SECRETS
// (422, every missing record at once), INVALID_CONFIG for secrets sent where they may not go
// (model-destinations.ts). WORKSPACE_LIMIT_EXCEEDED (422) right after the config parses:
// services/workspace-limits.ts. A failed request leaves no rows and no jobs.
import {
  agentSecretRefs,
  type ConfigIssue,
  effectiveEnv,
  formatConfigIssue,
  HARNESS_KEY_SECRETS,
  locateConfigIssues,
  type MissingSecretsDetails,
  type RunAgentSpec,
  type RunConfig,
  type RunConfigBenchmark,
  type RunPreview,
  RunPreviewResponse,
  type RunSelection,
  routeSecrets,
  STANDARD_ERROR_RESPONSES,
  SubmitRunBody,
  SubmitRunResponse,
  validateRunConfig,
  verifierSecretNames,
  verifierTableNames,
} from '@osmosis/contracts';
import {
  checkConfigAgainstBenchmark,
  planAttempts,
  type ResolvedRunConfig,
  randomRunBaseName,
  uniqueRunName,
} from '@osmosis/core';
import type { Db } from '@osmosis/db';
import { enqueueRunDispatch } from '@osmosis/queues';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { isUuid } from '../auth.ts';
import { ApiError } from '../errors.ts';
import { checkSecretDestinations } from '../model-destinations.ts';
import { type ResolvedSecret, resolveSecretsForUser } from '../secret-records.ts';
import { iso } from '../services/serialize.ts';
import { checkRunAgainstWorkspaceLimit } from '../services/workspace-limits.ts';
import { workspaceEndpointHosts } from './endpoint-hosts.ts';
import { budgetWarning, estimateRunCost } from './run-budget.ts';
import { checkProvidedSecrets, PROVIDED_SECRET_ID, storeProvidedSecrets } from './submit-provided-secrets.ts';

const ATTEMPT_INSERT_CHUNK = 5000;
const PREVIEW_SAMPLE = 50;

interface TaskRow {
  id: string;
  name: string;
  category: string | null;
  unavailable_reason: string | null;
}

interface Prepared {
  config: RunConfig;
  benchmark: { id: string; key: string; name: string; defaultHarness: string };
  resolved: ResolvedRunConfig<TaskRow>;
  secrets: Map<string, ResolvedSecret>;
  /** `[secrets]` names whose value came with the submit (not a stored record) */
  provided: Record<string, string>;
  secretUses: Map<string, string[]>;
  /** records the verifier receives (RunAgentSpec.verifier_secret_env) */
  verifierSecretEnv: string[];
  warnings: ConfigIssue[];
  preview: RunPreview;
}

function invalidConfig(fileName: string, issues: ConfigIssue[]): ApiError {
  const lines = issues.map((i) => formatConfigIssue(fileName, i));
  return new ApiError(
    'INVALID_CONFIG',
    `${fileName}: ${issues.length} problem${issues.length === 1 ? '' : 's'}:\n${lines.map((l) => `  ${l}`).join('\n')}`,
    { file_name: fileName, issues },
  );
}

function modelLabel(
  agent: RunConfig['agents'][number],
  harness: string,
): { type: RunPreview['agents'][number]['model_type']; label: string } {
  const m = agent.model;
  if (!m) return { type: 'none', label: harness === 'oracle' ? 'reference solution' : 'no model' };
  if (m.type === 'provider') return { type: 'provider', label: m.model };
  if (m.type === 'endpoint') {
    let host = m.base_url;
    try {
      host = new URL(m.base_url).host;
    } catch {
      // validated already
    }
    return { type: 'endpoint', label: `${m.model} @ ${host}` };
  }
  return {
    type: 'hosted',
    label: m.lora_model_name ? `${m.base_model} + ${m.lora_model_name}` : m.base_model,
  };
}

async function findBenchmark(db: Db, workspaceId: string, ref: string) {
  const or: ({ id: string } | { key: string } | { name: string })[] = [{ key: ref }, { name: ref }];
  if (isUuid(ref)) or.push({ id: ref });
  const rows = await db.benchmark.findMany({ where: { workspaceId, OR: or }, include: { taskSets: true } });
  // a key match wins over a name match, an id match over both
  return (
    rows.find((b) => b.id === ref) ??
    rows.find((b) => b.key === ref) ??
    rows.find((b) => b.name === ref) ??
    null
  );
}

async function prepare(
  app: FastifyInstance,
  request: FastifyRequest,
  body: SubmitRunBody,
): Promise<Prepared> {
  const fileName = body.file_name;
  const text = body.config_toml;
  const validation = validateRunConfig(text, fileName);
  if (!validation.ok) throw invalidConfig(fileName, validation.issues);
  const config = validation.config;
  const { workspace, user } = request.auth;
  const provided = checkProvidedSecrets(config, fileName, body.secrets?.provided ?? {});
  const limits = await checkRunAgainstWorkspaceLimit(app.db, workspace, config, fileName, app.config);

  const bench = await findBenchmark(app.db, workspace.id, config.experiment.benchmark);
  if (!bench)
    throw new ApiError(
      'NOT_FOUND',
      `${fileName}: no benchmark "${config.experiment.benchmark}" in workspace ${workspace.name}: [experiment] benchmark takes a key, exact name or id from \`osmosis benchmark list\`; add a new one with \`osmosis benchmark add\``,
      { path: 'experiment.benchmark', benchmark: config.experiment.benchmark },
    );
  if (bench.syncStatus !== 'ready') {
    const progress =
      bench.expectedTaskCount !== null
        ? `${bench.syncedTaskCount} / ${bench.expectedTaskCount} tasks`
        : `${bench.syncedTaskCount} tasks so far`;
    const why =
      bench.syncStatus === 'failed'
        ? `its task sync failed (${bench.syncError ?? 'no reason recorded'}); retry the sync (see \`osmosis benchmark info ${bench.key}\`), then submit again`
        : bench.syncStatus === 'syncing'
          ? `its tasks are still syncing (${progress}); submit again when \`osmosis benchmark list\` shows it ready`
          : 'its task sync has not started yet; submit again when `osmosis benchmark list` shows it ready';
    throw new ApiError('BENCHMARK_NOT_READY', `benchmark ${bench.key} (${bench.name}) is not ready: ${why}`, {
      benchmark: {
        id: bench.id,
        key: bench.key,
        sync_status: bench.syncStatus,
        synced_task_count: bench.syncedTaskCount,
        sync_error: bench.syncError,
      },
    });
  }

  const taskRows = await app.db.task.findMany({
    where: { benchmarkId: bench.id },
    select: { id: true, name: true, category: true, unsupportedReason: true, parseError: true },
    orderBy: { name: 'asc' },
  });
  const tasks: TaskRow[] = taskRows.map((t) => ({
    id: t.id,
    name: t.name,
    category: t.category,
    unavailable_reason:
      t.unsupportedReason ?? (t.parseError ? `task.toml could not be parsed: ${t.parseError}` : null),
  }));
  const description: RunConfigBenchmark = {
    id: bench.id,
    key: bench.key,
    name: bench.name,
    default_harness: bench.defaultHarness,
    supported_harnesses: null,
    requires_judge_model: bench.requiresJudgeModel,
    judge_model_default: bench.judgeModelDefault,
    judge_kind: bench.judgeKind,
    pass_threshold: bench.passThreshold,
    required_secret_names: bench.requiredSecretNames,
    task_sets: bench.taskSets.map((s) => ({
      name: s.name,
      task_names: s.taskNames,
      recommended: s.recommended,
    })),
  };
  const rules = checkConfigAgainstBenchmark(config, description, tasks);
  const warnings = locateConfigIssues(text, rules.warnings);
  if (!rules.ok) throw invalidConfig(fileName, locateConfigIssues(text, rules.issues));
  const resolved = rules.resolved;

  // every record the run needs: referenced by the config, or required by the benchmark
  const secretUses = new Map<string, string[]>();
  const use = (name: string, by: string) => secretUses.set(name, [...(secretUses.get(name) ?? []), by]);
  config.agents.forEach((_, i) => {
    for (const ref of agentSecretRefs(config, i))
      if (!ref.path.startsWith('execution.')) use(ref.name, ref.path);
  });
  if (config.execution.judge_api_key_secret)
    use(config.execution.judge_api_key_secret, 'execution.judge_api_key_secret');
  for (const name of bench.requiredSecretNames) use(name, `benchmark ${bench.key} (required_secret_names)`);
  verifierTableNames(config).forEach((name, j) => {
    use(name, `verifier.required[${j}]`);
  });
  const judgedByModel = !!bench.judgeKind;
  if (judgedByModel && verifierTableNames(config).length > 0)
    throw invalidConfig(
      fileName,
      locateConfigIssues(text, [
        {
          code: 'VERIFIER_NOT_USED',
          path: 'verifier',
          message: `[verifier] is not used by ${bench.key}: it is graded by an LLM judge in the platform, and no verifier script runs that could receive ${verifierTableNames(config).join(', ')}; remove the [verifier] table`,
        },
      ]),
    );
  const names = [...secretUses.keys()];
  const stored = names.filter((n) => provided[n] === undefined);
  const secrets = await resolveSecretsForUser(app.db, workspace.id, user.id, stored);
  // a value supplied with the submit is the submitter's own, like a personal record
  for (const name of Object.keys(provided))
    secrets.set(name, { id: PROVIDED_SECRET_ID, name, scope: 'personal' });
  const missing = names.filter((n) => !secrets.has(n));
  if (missing.length > 0) {
    const commands = missing.map((n) => `osmosis secret set ${n}`);
    const details: MissingSecretsDetails = {
      missing,
      used_by: Object.fromEntries(missing.map((n) => [n, secretUses.get(n)!])),
      commands,
    };
    throw new ApiError(
      'MISSING_SECRETS',
      `${missing.length} secret record${missing.length === 1 ? '' : 's'} this run needs ${missing.length === 1 ? 'does' : 'do'} not exist for you (personal or workspace): ${missing
        .map((n) => `${n} (${secretUses.get(n)!.join(', ')})`)
        .join(', ')}. Create ${missing.length === 1 ? 'it' : 'each'} with: ${commands.join(' ; ')}`,
      details,
    );
  }

  // where each record goes, and whether it may go there
  const verifierNames = [...new Set([...bench.requiredSecretNames, ...verifierTableNames(config)])];
  const routes = routeSecrets({
    config,
    harnesses: resolved.harnesses,
    requiredSecretNames: verifierNames,
    judgedByModel,
  });
  const destinationIssues = await checkSecretDestinations({
    config,
    harnesses: resolved.harnesses,
    secrets,
    routes,
    submitterRole: request.auth.role,
    workspaceName: workspace.name,
    workspaceHosts: await workspaceEndpointHosts(app.db, workspace.id),
    allow: app.config.sources.egress.allow,
    benchmarkKey: bench.key,
    ...(app.config.egressResolve ? { resolve: app.config.egressResolve } : {}),
  });
  if (destinationIssues.length > 0)
    throw invalidConfig(fileName, locateConfigIssues(text, destinationIssues));

  const selection = resolved.selection;
  const preview: RunPreview = {
    benchmark: { id: bench.id, key: bench.key, name: bench.name, default_harness: bench.defaultHarness },
    tasks: {
      description: selection.description,
      mode: selection.mode,
      task_set: config.tasks?.task_set ?? null,
      task_names: config.tasks?.task_names ?? null,
      categories: config.tasks?.categories ?? null,
      task_count: selection.tasks.length,
      sample: selection.tasks.slice(0, PREVIEW_SAMPLE).map((t) => t.name),
      skipped_count: selection.skipped.length,
    },
    agents: config.agents.map((agent, i) => {
      const harness = resolved.harnesses[i]!;
      const model = modelLabel(agent, harness);
      return {
        index: i,
        harness,
        harness_defaulted: resolved.harnessDefaulted[i]!,
        model_type: model.type,
        model: model.label,
        secret_names: agentSecretRefs(config, i)
          .filter((r) => !r.path.startsWith('execution.'))
          .map((r) => r.name),
      };
    }),
    attempts_per_task: config.execution.attempts_per_task,
    total_attempts: resolved.totalAttempts,
    max_concurrent_attempts: config.execution.max_concurrent_attempts,
    workspace_limits: limits,
    timeout_multiplier: config.execution.timeout_multiplier,
    max_retries: config.execution.max_retries,
    pass_threshold: resolved.passThreshold,
    judge_model: resolved.judgeModel,
    max_cost_usd: config.execution.max_cost_usd ?? null,
    secrets: names.map((n) => {
      const receivers = (routes.get(n) ?? []).map(({ path: _path, ...r }) => r);
      return {
        name: n,
        scope: provided[n] !== undefined ? ('run' as const) : secrets.get(n)!.scope,
        used_by: secretUses.get(n)!,
        phases: [...new Set(receivers.map((r) => r.phase))],
        receivers,
      };
    }),
    warnings,
  };
  preview.cost_estimate = await estimateRunCost(app.db, {
    workspaceId: workspace.id,
    benchmarkId: bench.id,
    benchmarkKey: bench.key,
    agents: preview.agents,
    attemptsPerAgent: selection.tasks.length * config.execution.attempts_per_task,
  });
  warnings.push(
    ...locateConfigIssues(text, budgetWarning(preview.cost_estimate, config.execution.max_cost_usd)),
  );
  return {
    config,
    benchmark: { id: bench.id, key: bench.key, name: bench.name, defaultHarness: bench.defaultHarness },
    resolved,
    secrets,
    provided,
    secretUses,
    verifierSecretEnv: verifierSecretNames(verifierNames, judgedByModel),
    warnings,
    preview,
  };
}

function agentSpec(
  config: RunConfig,
  index: number,
  resolved: ResolvedRunConfig<TaskRow>,
  verifierSecretEnv: string[],
): RunAgentSpec {
  const agent = config.agents[index]!;
  const harness = resolved.harnesses[index]!;
  const secretEnv = agentSecretRefs(config, index)
    .filter((r) => !r.path.startsWith('execution.'))
    .map((r) => r.name);
  const harnessKey = HARNESS_KEY_SECRETS[harness];
  if (harnessKey && agent.harness_api_key_secret === harnessKey && !secretEnv.includes(harnessKey))
    secretEnv.push(harnessKey);
  return {
    harness,
    harness_defaulted: resolved.harnessDefaulted[index]!,
    harness_api_key_secret: agent.harness_api_key_secret ?? null,
    model: agent.model ?? null,
    env: effectiveEnv(config, index),
    secret_env: [...new Set(secretEnv)],
    verifier_secret_env: verifierSecretEnv,
  };
}

function isUniqueViolation(error: unknown): boolean {
  return !!error && typeof error === 'object' && (error as { code?: string }).code === 'P2002';
}

async function createRun(
  app: FastifyInstance,
  request: FastifyRequest,
  body: SubmitRunBody,
  prepared: Prepared,
) {
  const { config, resolved, benchmark, secrets } = prepared;
  const { workspace, user } = request.auth;
  const tasks = resolved.selection.tasks;
  const plan = planAttempts(config.agents.length, tasks, config.execution.attempts_per_task);
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
    const taken = await app.db.run.findMany({
      where: { workspaceId: workspace.id, name: { startsWith: base } },
      select: { name: true },
    });
    const name = uniqueRunName(
      base,
      taken.map((r) => r.name),
    );
    try {
      return await app.db.$transaction(
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
          await tx.runEvent.create({
            data: {
              runId: run.id,
              level: 'info',
              step: 'submitted',
              message: `run submitted by ${user.email}: ${benchmark.key}, ${resolved.selection.description}, ${config.agents.length} agent${config.agents.length === 1 ? '' : 's'} × ${config.execution.attempts_per_task} attempt${config.execution.attempts_per_task === 1 ? '' : 's'} per task = ${plan.length} attempts`,
              details: {
                file_name: body.file_name,
                benchmark: benchmark.key,
                task_count: tasks.length,
                agents: prepared.preview.agents.map((a) => ({ harness: a.harness, model: a.model })),
                attempts_per_task: config.execution.attempts_per_task,
                total_attempts: plan.length,
                max_concurrent_attempts: config.execution.max_concurrent_attempts,
                secrets: prepared.preview.secrets.map((s) => ({
                  name: s.name,
                  scope: s.scope,
                  phases: s.phases,
                })),
                warnings: prepared.warnings.map((w) => w.code),
              },
            },
          });
          const queued = await tx.run.update({ where: { id: run.id }, data: { status: 'queued' } });
          await tx.runEvent.create({
            data: { runId: run.id, level: 'info', step: 'queued', message: 'run queued for dispatch' },
          });
          return queued;
        },
        { timeout: 120_000, maxWait: 10_000 },
      );
    } catch (error) {
      if (isUniqueViolation(error) && tries < 5) continue;
      throw error;
    }
  }
}

export const submitRoutes: FastifyPluginAsyncZod = async (app) => {
  app.post(
    '/runs/preview',
    {
      schema: {
        tags: ['runs'],
        summary:
          'Validate a run config against the workspace (benchmark, tasks, harnesses, secrets) and show what would run; writes nothing',
        body: SubmitRunBody,
        response: {
          200: RunPreviewResponse,
          422: STANDARD_ERROR_RESPONSES[400],
          ...STANDARD_ERROR_RESPONSES,
        },
      },
    },
    async (request) => {
      const prepared = await prepare(app, request, request.body);
      return { data: prepared.preview };
    },
  );

  app.post(
    '/runs',
    {
      schema: {
        tags: ['runs'],
        summary:
          'Submit a run: the config is validated again, then the run, its agents and every attempt are created in one transaction and the run is queued',
        body: SubmitRunBody,
        response: { 201: SubmitRunResponse, 422: STANDARD_ERROR_RESPONSES[400], ...STANDARD_ERROR_RESPONSES },
      },
    },
    async (request, reply) => {
      const prepared = await prepare(app, request, request.body);
      const run = await createRun(app, request, request.body, prepared);
      try {
        await enqueueRunDispatch(app.queues, run.id);
      } catch (error) {
        // nothing may stay behind: the run without its job would never start
        request.log.error({ err: error, run_id: run.id }, 'could not enqueue the run; removing it');
        await app.db.run.delete({ where: { id: run.id } }).catch(() => undefined);
        throw new ApiError(
          'UNAVAILABLE',
          'the run could not be queued (the job queue did not answer); nothing was created — submit again',
        );
      }
      request.log.info(
        {
          run_id: run.id,
          run_name: run.name,
          task_count: run.taskCount,
          total_attempts: prepared.resolved.totalAttempts,
        },
        'run submitted',
      );
      reply.code(201);
      return {
        data: {
          id: run.id,
          name: run.name,
          status: run.status,
          task_count: run.taskCount,
          created_at: iso(run.createdAt),
          platform_url: `${app.config.publicUrl.replace(/\/+$/, '')}/runs/${encodeURIComponent(run.name)}`,
          total_attempts: prepared.resolved.totalAttempts,
          warnings: prepared.warnings,
        },
      };
    },
  );
};
