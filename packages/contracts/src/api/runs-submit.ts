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
  config_toml: z.string().min(1).max(MAX_CONFIG_BYTES),
  /** the file's path as the user named it, used in error messages */
  file_name: z.string().min(1).max(1024).default('config.toml'),
  secrets: z.strictObject({ provided: ProvidedSecrets.default({}) }).optional(),
  /** `--reuse-from RUN`: overrides the config's `[execution] reuse_from` */
  reuse_from: z.string().trim().min(1).max(200).optional(),
});
export type SubmitRunBody = z.infer<typeof SubmitRunBody>;

export const RunPreviewAgent = z.object({
  index: z.number().int(),
  harness: z.string(),
  /** true when the config names no harness and the benchmark's default is used */
  harness_defaulted: z.boolean(),
  model_type: z.enum([...MODEL_TYPES, 'none']),
  /** display name: provider/model, endpoint model @ host, base_model (+ lora) */
  model: z.string(),
  secret_names: z.array(z.string()),
});
export type RunPreviewAgent = z.infer<typeof RunPreviewAgent>;

export const RunPreviewSecret = z.object({
  name: z.string(),
  /**
   * the record the run will use: the submitter's personal one overrides a workspace one; `run`:
   * a value supplied with this submit for a `[secrets]` name
   */
  scope: z.enum([...SecretScope.options, 'run']),
  /** config keys (or `benchmark.required_secret_names`) that need it */
  used_by: z.array(z.string()),
  /** the phases of each attempt that receive the value (none: the run needs it but sends it nowhere) */
  phases: z.array(SecretPhase),
  /** each receiver: the phase, the agent, and whether the value enters the sandbox */
  receivers: z.array(SecretReceiver),
});
export type RunPreviewSecret = z.infer<typeof RunPreviewSecret>;

export const RunPreview = z.object({
  benchmark: z.object({ id: z.string(), key: z.string(), name: z.string(), default_harness: z.string() }),
  tasks: z.object({
    /** "task set parity → 20 tasks" */
    description: z.string(),
    mode: z.enum(['full', 'task_set', 'filtered']),
    task_set: z.string().nullable(),
    task_names: z.array(z.string()).nullable(),
    categories: z.array(z.string()).nullable(),
    task_count: z.number().int(),
    /** the first selected task names (at most 50) */
    sample: z.array(z.string()),
    /** tasks of the base selection the platform cannot run */
    skipped_count: z.number().int(),
  }),
  agents: z.array(RunPreviewAgent),
  attempts_per_task: z.number().int(),
  total_attempts: z.number().int(),
  max_concurrent_attempts: z.number().int(),
  /** the workspace's limit in force and its attempts in flight now (across all its runs) */
  workspace_limits: WorkspaceLimits.optional(),
  timeout_multiplier: z.number(),
  max_retries: z.number().int(),
  pass_threshold: z.number(),
  judge_model: z.string().nullable(),
  /** `[execution] max_cost_usd`; null: no budget */
  max_cost_usd: z.number().nullable().optional(),
  /** the run's cost estimated from earlier runs of the same benchmark and models */
  cost_estimate: CostEstimate.optional(),
  secrets: z.array(RunPreviewSecret),
  warnings: z.array(ConfigIssue),
});
export type RunPreview = z.infer<typeof RunPreview>;
export const RunPreviewResponse = dataOf(RunPreview);
export type RunPreviewResponse = z.infer<typeof RunPreviewResponse>;

export const SubmittedRun = z.object({
  id: z.string(),
  name: z.string(),
  status: RunStatusName,
  task_count: z.number().int(),
  created_at: Timestamp,
  platform_url: z.string(),
  total_attempts: z.number().int(),
  warnings: z.array(ConfigIssue),
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
  /** NAME → config keys (or `benchmark.required_secret_names`) that reference it */
  used_by: z.record(z.string(), z.array(z.string())),
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
  /**
   * Records the verifier (tests/test.sh) receives as env vars: the benchmark's
   * required_secret_names at submit (none for a benchmark graded by the LLM judge). Absent in
   * runs submitted before secrets were routed by phase.
   */
  verifier_secret_env: z.array(z.string()).optional(),
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
