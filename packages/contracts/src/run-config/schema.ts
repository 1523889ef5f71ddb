// The run config's vocabulary and its zod schema (defaults applied by the schema).
import { z } from 'zod';
import { AgentParams } from '../agent-params.ts';

// ---------------------------------------------------------------------------------------------
// Vocabulary

export const KNOWN_HARNESSES = [
  'terminus-2',
  'oracle',
  'nop',
  'claude-code',
  'codex',
  'cursor-cli',
  'mini-swe-agent',
  'openhands',
  'gemini-cli',
  'opencode',
] as const;
export const HarnessName = z.enum(KNOWN_HARNESSES);
export type HarnessName = z.infer<typeof HarnessName>;

/** Harnesses that take their own key: the only value `harness_api_key_secret` may hold for each. */
export const HARNESS_KEY_SECRETS: Readonly<Partial<Record<HarnessName, string>>> = {
  'cursor-cli': 'CURSOR_API_KEY',
  'mini-swe-agent': 'MSWEA_API_KEY',
};

/**
 * The wire APIs a model is called with: OpenAI-compatible chat completions or Anthropic's
 * Messages (the harness's ModelApi; its installed agents index HARNESS_MODEL_KEY_ENVS with it).
 */
export const MODEL_APIS = ['openai', 'anthropic'] as const;
export type ModelApiName = (typeof MODEL_APIS)[number];

/**
 * Providers of `provider/model` specs whose models speak Anthropic's Messages API; every other
 * provider, and every endpoint and hosted model, is OpenAI-compatible. The harness's PROVIDERS
 * table must agree (packages/harness/src/installed/agents.unit.test.ts checks it).
 */
export const ANTHROPIC_API_PROVIDERS: readonly string[] = ['anthropic'];

/** The API a model is called with, as the harness resolves it (provider names are case-insensitive). */
export function modelApiOf(model: ModelSpec): ModelApiName {
  if (model.type !== 'provider') return 'openai';
  const provider = model.model.slice(0, model.model.indexOf('/')).toLowerCase();
  return ANTHROPIC_API_PROVIDERS.includes(provider) ? 'anthropic' : 'openai';
}

/**
 * The single source of the env variables each installed harness exports the model key under, by
 * the model's API: the harness's installed agents read it (`keyEnvs`) and the run-config rules
 * refuse a literal env var with one of these names (ENV_HARNESS_KEY_COLLISION), which the harness
 * would overwrite at run time. An API missing from a harness's entry is one it cannot use.
 * terminus-2 (the model is called from the worker), oracle and nop export no key into the
 * sandbox; cursor-cli bills through the Cursor account (its only key is harness_api_key_secret).
 */
export const HARNESS_MODEL_KEY_ENVS: Readonly<
  Partial<Record<HarnessName, Readonly<Partial<Record<ModelApiName, readonly string[]>>>>>
> = {
  'claude-code': { anthropic: ['ANTHROPIC_API_KEY'] },
  // CODEX_API_KEY is the key variable of `codex exec` (developers.openai.com/codex/environment-variables).
  codex: { openai: ['CODEX_API_KEY', 'OPENAI_API_KEY'] },
  'cursor-cli': { openai: [], anthropic: [] },
  // LiteLLM's variables for `openai/…` and `anthropic/…` models.
  'mini-swe-agent': { openai: ['OPENAI_API_KEY'], anthropic: ['ANTHROPIC_API_KEY'] },
  openhands: { openai: ['LLM_API_KEY'], anthropic: ['LLM_API_KEY'] },
  // gemini-cli speaks Gemini's own API, but gemini/… models are OpenAI-compatible on the platform.
  'gemini-cli': { openai: ['GEMINI_API_KEY'] },
  opencode: { openai: ['OPENAI_API_KEY'], anthropic: ['ANTHROPIC_API_KEY'] },
};

/** The variables `harness` exports the key of a model called with `api` under ([] when none). */
export function harnessModelKeyEnvs(harness: HarnessName, api: ModelApiName): readonly string[] {
  return HARNESS_MODEL_KEY_ENVS[harness]?.[api] ?? [];
}

/** Harnesses that call no model, so `[agents.model]` may be omitted. */
export const MODEL_FREE_HARNESSES: readonly HarnessName[] = ['oracle', 'nop'];

/** A harness that calls no model costs nothing of its own: its model cost is $0, not unknown. */
export function isModelFreeHarness(harness: string): boolean {
  return (MODEL_FREE_HARNESSES as readonly string[]).includes(harness);
}

export const MODEL_TYPES = ['provider', 'endpoint', 'hosted'] as const;
export type ModelType = (typeof MODEL_TYPES)[number];

export const SECRET_NAME_PATTERN = /^[A-Z][A-Z0-9_]*$/;
export const ENV_KEY_PATTERN = /^[A-Z_][A-Z0-9_]*$/;
export const RESERVED_ENV_PREFIX = '_OSMOSIS_';
/** Injected by the runner for every benchmark that needs it; never a literal env var. */
export const RUNNER_RESERVED_ENV = ['HF_TOKEN'] as const;
/** Names no secret field of a config may hold (the runner's own credentials). */
export const RESERVED_SECRET_NAMES = [
  'HF_TOKEN',
  'DAYTONA_API_KEY',
  'DAYTONA_API_URL',
  'SKYPILOT_SERVICE_ACCOUNT_TOKEN',
  'SKYPILOT_API_SERVER_ENDPOINT',
] as const;
/** `provider/model`, e.g. `openai/gpt-5.2`, `anthropic/claude-sonnet-4-5`. */
export const PROVIDER_MODEL_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]*\/\S+$/;
/** RFC 9110 header field name (token). */
export const HEADER_NAME_PATTERN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

export const RUN_CONFIG_LIMITS = {
  agents: { min: 1, max: 8 },
  attempts_per_task: { min: 1, max: 100 },
  max_concurrent_attempts: { min: 1, max: 256 },
  timeout_multiplier: { min: 0, max: 10 },
  max_retries: { min: 0, max: 10 },
  pass_threshold: { min: 0, max: 1 },
  max_cost_usd: { min: 0, max: 1_000_000 },
} as const;

export const RUN_CONFIG_DEFAULTS = {
  attempts_per_task: 1,
  max_concurrent_attempts: 4,
  timeout_multiplier: 1,
  max_retries: 0,
} as const;

// ---------------------------------------------------------------------------------------------
// Schema

export const SecretName = z.string().regex(SECRET_NAME_PATTERN);

/** Env values are strings; TOML numbers and booleans are accepted and written as strings. */
const EnvValue = z.union([z.string(), z.number(), z.boolean()]).transform((v) => String(v));
const EnvTable = z.record(z.string(), EnvValue);

export const ProviderModelSpec = z.strictObject({
  type: z.literal('provider'),
  model: z.string().regex(PROVIDER_MODEL_PATTERN),
  api_key_secret: SecretName,
});
export const EndpointModelSpec = z.strictObject({
  type: z.literal('endpoint'),
  base_url: z.url({ protocol: /^https?$/ }),
  model: z.string().min(1),
  api_key_secret: SecretName,
  extra_headers: z.record(z.string().regex(HEADER_NAME_PATTERN), z.string()).optional(),
});
export const HostedModelSpec = z.strictObject({
  type: z.literal('hosted'),
  base_model: z.string().min(1),
  lora_model_name: z.string().min(1).optional(),
});
export const ModelSpec = z.discriminatedUnion('type', [
  ProviderModelSpec,
  EndpointModelSpec,
  HostedModelSpec,
]);
export type ModelSpec = z.infer<typeof ModelSpec>;

export const AgentConfig = z.strictObject({
  harness: HarnessName.optional(),
  harness_api_key_secret: SecretName.optional(),
  model: ModelSpec.optional(),
  env: EnvTable.default({}),
  params: AgentParams.optional(),
});
export type AgentConfig = z.infer<typeof AgentConfig>;

export const ExperimentConfig = z.strictObject({
  benchmark: z.string().trim().min(1),
});

export const TasksConfig = z.strictObject({
  task_names: z.array(z.string().trim().min(1)).min(1).optional(),
  categories: z.array(z.string().trim().min(1)).min(1).optional(),
  task_set: z.string().trim().min(1).optional(),
});
export type TasksConfig = z.infer<typeof TasksConfig>;

const L = RUN_CONFIG_LIMITS;
export const ExecutionConfig = z.strictObject({
  attempts_per_task: z
    .int()
    .min(L.attempts_per_task.min)
    .max(L.attempts_per_task.max)
    .default(RUN_CONFIG_DEFAULTS.attempts_per_task),
  max_concurrent_attempts: z
    .int()
    .min(L.max_concurrent_attempts.min)
    .max(L.max_concurrent_attempts.max)
    .default(RUN_CONFIG_DEFAULTS.max_concurrent_attempts),
  timeout_multiplier: z
    .number()
    .gt(L.timeout_multiplier.min)
    .max(L.timeout_multiplier.max)
    .default(RUN_CONFIG_DEFAULTS.timeout_multiplier),
  max_retries: z.int().min(L.max_retries.min).max(L.max_retries.max).default(RUN_CONFIG_DEFAULTS.max_retries),
  pass_threshold: z.number().min(L.pass_threshold.min).max(L.pass_threshold.max).optional(),
  judge_model: z.string().regex(PROVIDER_MODEL_PATTERN).optional(),
  judge_api_key_secret: SecretName.optional(),
  /** the run's budget in USD (models and judge): dispatch stops when the spend reaches it */
  max_cost_usd: z.number().gt(L.max_cost_usd.min).max(L.max_cost_usd.max).optional(),
  /**
   * an earlier run of the workspace whose finished, scored attempts this run takes over where the
   * task and agent match (docs/reproducibility.md "Reuse"); only the rest run
   */
  reuse_from: z.string().trim().min(1).max(200).optional(),
});
export type ExecutionConfig = z.infer<typeof ExecutionConfig>;

/** At most this many names in `[secrets] required` and `[verifier] required` (as upstream). */
export const MAX_TABLE_SECRET_NAMES = 16;

/**
 * `[secrets] required = [...]` (upstream's BenchmarkSecretsSection): records every agent receives
 * as env vars of the same name; a value may be supplied per run at submit (`--secrets-file`, the
 * environment) instead of a stored record, and is never saved beyond the run.
 */
export const SecretsTable = z.strictObject({
  required: z.array(SecretName).max(MAX_TABLE_SECRET_NAMES).default([]),
});

/**
 * `[verifier] required = [...]` (upstream's BenchmarkVerifierSection): stored records the
 * benchmark's verifier (tests/test.sh) receives, besides the benchmark's own required records.
 */
export const VerifierTable = z.strictObject({
  required: z.array(SecretName).max(MAX_TABLE_SECRET_NAMES).default([]),
});

export const RunConfig = z.strictObject({
  experiment: ExperimentConfig,
  tasks: TasksConfig.optional(),
  execution: ExecutionConfig.prefault({}),
  env: EnvTable.default({}),
  agents: z.array(AgentConfig).min(L.agents.min).max(L.agents.max),
  secrets: SecretsTable.optional(),
  verifier: VerifierTable.optional(),
});
/** A validated run config with defaults applied. */
export type RunConfig = z.infer<typeof RunConfig>;
export type RunConfigInput = z.input<typeof RunConfig>;

// ---------------------------------------------------------------------------------------------
// What the benchmark-dependent rules (@osmosis/core config-rules) need to know of a benchmark

export const RunConfigBenchmark = z.object({
  id: z.string(),
  key: z.string(),
  name: z.string(),
  default_harness: z.string(),
  /** when set, the only harnesses the benchmark can run with */
  supported_harnesses: z.array(z.string()).nullish(),
  requires_judge_model: z.boolean(),
  judge_model_default: z.string().nullish(),
  /** hle | gdpval | null */
  judge_kind: z.string().nullish(),
  pass_threshold: z.number(),
  required_secret_names: z.array(z.string()),
  task_sets: z.array(
    z.object({ name: z.string(), task_names: z.array(z.string()), recommended: z.boolean().optional() }),
  ),
});
export type RunConfigBenchmark = z.infer<typeof RunConfigBenchmark>;
