// POST /v1/runs (submit) and POST /v1/runs/preview (same validation, nothing written).
import { z } from 'zod';
import { ConfigIssue, MAX_TABLE_SECRET_NAMES, MODEL_TYPES, ModelSpec } from '../run-config.ts';
import { RunStatusName } from '../run-statuses.ts';
import { SecretPhase, SecretReceiver } from '../secret-routing.ts';
import { dataOf, Timestamp } from './common.ts';
import { CostEstimate } from './run-budget.ts';
import { MAX_SECRET_VALUE_BYTES, SecretNameString, SecretScope } from './secrets.ts';
import { WorkspaceLimits } from './workspace-limits.ts';

/** Largest accepted config file. */
export const MAX_CONFIG_BYTES = 256 * 1024;

/**
 * Values of `[secrets]` names supplied with this submit (upstream's `secrets.provided`: from
 * `--secrets-file` or the environment), used by this run only and never saved beyond it. Only
 * names the config lists in `[secrets] required` may be supplied.
 */
export const ProvidedSecrets = z
  .record(
    SecretNameString,
    z
      .string()
      .min(1, 'the value is empty')
      .refine((v) => Buffer.byteLength(v, 'utf8') <= MAX_SECRET_VALUE_BYTES, {
        message: `the value is longer than ${MAX_SECRET_VALUE_BYTES} bytes`,
      }),
  )
  .refine((v) => Object.keys(v).length <= MAX_TABLE_SECRET_NAMES, {
    message: `at most ${MAX_TABLE_SECRET_NAMES} values (the [secrets] names of the config)`,
  });
export type ProvidedSecrets = z.infer<typeof ProvidedSecrets>;

export const SubmitRunBody = z.strictObject({
  config_toml: z
    .string()
    .min(1)
    .max(MAX_CONFIG_BYTES)
    .describe('The run config, TOML text (docs/run-config.md), at most 256 KiB'),
  file_name: z
    .string()
    .min(1)
    .max(1024)
    .default('config.toml')
    .describe("the file's path as the user named it, used in error messages"),
  secrets: z
    .strictObject({
      provided: ProvidedSecrets.default({}).describe(
        "NAME → value for the config's `[secrets] required` names, used by this run only",
      ),
    })
    .optional()
    .describe('Secret values supplied for this run only (`provided`: NAME → value), never stored beyond it'),
  reuse_from: z
    .string()
    .trim()
    .min(1)
    .max(200)
    .optional()
    .describe("`--reuse-from RUN`: overrides the config's `[execution] reuse_from`"),
});
export type SubmitRunBody = z.infer<typeof SubmitRunBody>;

export const RunPreviewAgent = z.object({
  index: z.number().int().describe("The agent's position in the config (0-based)"),
  harness: z.string().describe('The harness it will run'),
  harness_defaulted: z
    .boolean()
    .describe("true when the config names no harness and the benchmark's default is used"),
  model_type: z
    .enum([...MODEL_TYPES, 'none'])
    .describe("provider, endpoint or hosted (the config's `model.type`), or none without a model"),
  model: z.string().describe('display name: provider/model, endpoint model @ host, base_model (+ lora)'),
  secret_names: z.array(z.string()).describe("Secret record names this agent's config references"),
});
export type RunPreviewAgent = z.infer<typeof RunPreviewAgent>;

export const RunPreviewSecret = z.object({
  name: z.string().describe("The secret record's name"),
  scope: z
    .enum([...SecretScope.options, 'run'])
    .describe(
      "the record the run will use: the submitter's personal one overrides a workspace one; `run`: a value supplied with this submit for a `[secrets]` name",
    ),
  used_by: z.array(z.string()).describe('config keys (or `benchmark.required_secret_names`) that need it'),
  phases: z
    .array(SecretPhase)
    .describe(
      'the phases of each attempt that receive the value (none: the run needs it but sends it nowhere)',
    ),
  receivers: z
    .array(SecretReceiver)
    .describe('each receiver: the phase, the agent, and whether the value enters the sandbox'),
});
export type RunPreviewSecret = z.infer<typeof RunPreviewSecret>;

/** What a run with `reuse_from` takes over from the earlier run, and what it still runs. */
export const RunReuse = z.object({
  from: z.string().describe('The earlier run whose attempts are taken over'),
  attempts: z
    .number()
    .int()
    .describe('Its finished, scored attempts the new run takes over (those whose task and agent match)'),
  to_run: z.number().int().describe('Attempts the new run still runs: total_attempts − attempts'),
});
export type RunReuse = z.infer<typeof RunReuse>;

export const RunPreview = z.object({
  benchmark: z
    .object({
      id: z.string().describe('Its id'),
      key: z.string().describe('Its key'),
      name: z.string().describe('Its name'),
      default_harness: z.string().describe('The harness used when an agent names none'),
    })
    .describe('The benchmark the config names'),
  tasks: z
    .object({
      description: z.string().describe('"task set parity → 20 tasks"'),
      mode: z
        .enum(['full', 'task_set', 'filtered'])
        .describe('full (every task), task_set (a named set) or filtered (by names or categories)'),
      task_set: z.string().nullable().describe('The task set chosen; null when not by set'),
      task_names: z.array(z.string()).nullable().describe('The task names asked for; null when not by name'),
      categories: z
        .array(z.string())
        .nullable()
        .describe('The categories asked for; null when not by category'),
      task_count: z.number().int().describe('Tasks selected'),
      sample: z.array(z.string()).describe('the first selected task names (at most 50)'),
      skipped_count: z.number().int().describe('tasks of the base selection the platform cannot run'),
    })
    .describe('The tasks the run would have'),
  agents: z.array(RunPreviewAgent).describe('The agents, in config order'),
  attempts_per_task: z.number().int().describe('Attempts of each task by each agent'),
  total_attempts: z
    .number()
    .int()
    .describe('Attempts the run would plan: agents × tasks × attempts_per_task'),
  max_concurrent_attempts: z.number().int().describe('Most attempts of the run at once'),
  workspace_limits: WorkspaceLimits.optional().describe(
    "the workspace's limit in force and its attempts in flight now (across all its runs)",
  ),
  timeout_multiplier: z.number().describe('Factor on every task timeout'),
  max_retries: z.number().int().describe('Retries of an errored attempt'),
  pass_threshold: z.number().describe('Reward at or above which an attempt passes (0–1)'),
  judge_model: z.string().nullable().describe("The judge's model; null when the benchmark needs none"),
  max_cost_usd: z.number().nullable().optional().describe('`[execution] max_cost_usd`; null: no budget'),
  reuse: RunReuse.nullable()
    .optional()
    .describe(
      '`reuse_from`: what the run would take over and what it would still run; null without reuse_from',
    ),
  cost_estimate: CostEstimate.optional().describe(
    "the run's cost estimated from earlier runs of the same benchmark and models (attempts taken over cost nothing)",
  ),
  secrets: z
    .array(RunPreviewSecret)
    .describe('Every secret record the run would use, and where each value goes'),
  warnings: z.array(ConfigIssue).describe('Problems that do not refuse the run (e.g. ESTIMATE_OVER_BUDGET)'),
});
export type RunPreview = z.infer<typeof RunPreview>;
export const RunPreviewResponse = dataOf(RunPreview);
export type RunPreviewResponse = z.infer<typeof RunPreviewResponse>;

export const SubmittedRun = z.object({
  id: z.string().describe("The new run's id"),
  name: z.string().describe("The new run's name"),
  status: RunStatusName.describe('Its status now (queued)'),
  task_count: z.number().int().describe('Tasks in the run'),
  created_at: Timestamp.describe('When it was created'),
  platform_url: z.string().describe("The run's page on the web platform"),
  total_attempts: z.number().int().describe('Attempts planned: agents × tasks × attempts_per_task'),
  reuse: RunReuse.nullable()
    .optional()
    .describe('`reuse_from`: what the run took over and what it still runs; null without reuse_from'),
  warnings: z.array(ConfigIssue).describe('Problems that did not refuse the run'),
});
export type SubmittedRun = z.infer<typeof SubmittedRun>;
export const SubmitRunResponse = dataOf(SubmittedRun);
export type SubmitRunResponse = z.infer<typeof SubmitRunResponse>;

/** `details` of INVALID_CONFIG. */
export const InvalidConfigDetails = z.object({ file_name: z.string(), issues: z.array(ConfigIssue) });
export type InvalidConfigDetails = z.infer<typeof InvalidConfigDetails>;

/** `details` of MISSING_SECRETS: every record to create, what needs it, and the commands. */
export const MissingSecretsDetails = z.object({
  missing: z.array(z.string()),
  used_by: z
    .record(z.string(), z.array(z.string()))
    .describe('NAME → config keys (or `benchmark.required_secret_names`) that reference it'),
  commands: z.array(z.string()),
});
export type MissingSecretsDetails = z.infer<typeof MissingSecretsDetails>;

/** `details` of BENCHMARK_NOT_READY. */
export const BenchmarkNotReadyDetails = z.object({
  benchmark: z.object({
    id: z.string(),
    key: z.string(),
    sync_status: z.string(),
    synced_task_count: z.number().int(),
    sync_error: z.string().nullable(),
  }),
});
export type BenchmarkNotReadyDetails = z.infer<typeof BenchmarkNotReadyDetails>;

/**
 * RunAgent.spec as the API stores it at submit, for the worker and harnesses: the agent as
 * resolved (harness default applied), its effective literal env ([env] + [agents.env]), the
 * secret record names to inject into the agent's env under their own names, and those the
 * verifier gets (contracts' secret-routing.ts decides which phase receives what). Run.secret_refs maps each name
 * the run uses to the secret record id it resolved to for the submitter.
 */
export const RunAgentSpec = z.object({
  harness: z.string(),
  harness_defaulted: z.boolean(),
  harness_api_key_secret: z.string().nullable(),
  model: ModelSpec.nullable(),
  env: z.record(z.string(), z.string()),
  secret_env: z.array(z.string()),
  verifier_secret_env: z
    .array(z.string())
    .optional()
    .describe(
      "Records the verifier (tests/test.sh) receives as env vars: the benchmark's required_secret_names at submit (none for a benchmark graded by the LLM judge). Absent in runs submitted before secrets were routed by phase",
    ),
});
export type RunAgentSpec = z.infer<typeof RunAgentSpec>;

/** Run.selection as stored at submit. */
export const RunSelection = z.object({
  mode: z.enum(['full', 'task_set', 'filtered']),
  full_set: z.boolean(),
  task_set: z.string().nullable(),
  task_names: z.array(z.string()).nullable(),
  categories: z.array(z.string()).nullable(),
  task_count: z.number().int(),
  description: z.string(),
});
export type RunSelection = z.infer<typeof RunSelection>;
