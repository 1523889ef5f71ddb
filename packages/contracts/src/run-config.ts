// The run config (TOML) users submit with `osmosis benchmark submit`: its schema, and the rules
// that need nothing but the file itself. Shared by the CLI (local validation) and the API
// (re-validation on submit). Rules that need the benchmark live in @osmosis/core config-rules.
//
// Error messages never repeat a value from the file that could be a secret: secret fields that
// fail validation, TOML syntax errors and env values are described, not echoed.
import { parse as parseToml, TomlError } from 'smol-toml';
import { z } from 'zod';
import { AgentParams, checkAgentParams } from './agent-params.ts';
import { quoteConfigValue } from './config-value-quote.ts';

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
 * table must agree (packages/harness/src/installed/agents.test.ts checks it).
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
// Issues

export const ConfigIssueCode = z.enum([
  // shape
  'TOML_SYNTAX',
  'UNKNOWN_KEY',
  'MISSING_KEY',
  'INVALID_TYPE',
  'OUT_OF_RANGE',
  'EMPTY_VALUE',
  'EMPTY_LIST',
  'AGENT_COUNT',
  'UNKNOWN_HARNESS',
  'INVALID_MODEL_TYPE',
  'INVALID_MODEL',
  'INVALID_URL',
  'INVALID_HEADER_NAME',
  'AUTHORIZATION_HEADER',
  'BENCHMARK_IS_PATH',
  // secrets and env
  'INVALID_SECRET_NAME',
  'RESERVED_SECRET_NAME',
  'INVALID_ENV_KEY',
  'RESERVED_ENV_KEY',
  'ENV_SECRET_COLLISION',
  'ENV_HARNESS_KEY_COLLISION',
  // harness
  'HARNESS_KEY_REQUIRED',
  'HARNESS_KEY_NAME',
  'HARNESS_KEY_NOT_ACCEPTED',
  'MODEL_REQUIRED',
  'HOSTED_MODEL_IN_SANDBOX',
  'PARAMS_NOT_ACCEPTED',
  'PARAMS_CONFLICT',
  // [secrets] / [verifier] (upstream's tables)
  'VERIFIER_NOT_USED',
  // where secrets may be sent (the API, at submit: apps/api/src/model-destinations.ts)
  'ENDPOINT_HOST_NOT_ALLOWED',
  'PRIVATE_ENDPOINT',
  'WORKSPACE_SECRET_IN_SANDBOX',
  // against the benchmark (@osmosis/core config-rules)
  'UNKNOWN_TASK_SET',
  'UNKNOWN_TASK_NAMES',
  'TASK_NOT_IN_SET',
  'TASK_UNAVAILABLE',
  'UNKNOWN_CATEGORIES',
  'EMPTY_SELECTION',
  'HARNESS_NOT_SUPPORTED',
  'JUDGE_SECRET_REQUIRED',
  'TOO_MANY_ATTEMPTS',
  // warnings
  'HLE_PARITY_RECOMMENDED',
  'NON_DEFAULT_HARNESS',
  'JUDGE_NOT_USED',
  /** the preview's cost estimate exceeds `[execution] max_cost_usd` */
  'ESTIMATE_OVER_BUDGET',
]);
export type ConfigIssueCode = z.infer<typeof ConfigIssueCode>;

export const ConfigIssue = z.object({
  code: ConfigIssueCode,
  /** `execution.max_retries`, `agents[0].model.api_key_secret`, `env.HF_TOKEN`; '' for the file */
  path: z.string(),
  /** what is wrong and how to fix it; names the table, the key and the agent */
  message: z.string(),
  /** 1-based position in the file when it could be located */
  line: z.number().int().optional(),
  column: z.number().int().optional(),
});
export type ConfigIssue = z.infer<typeof ConfigIssue>;

export type RunConfigValidation =
  | { ok: true; config: RunConfig; issues: []; warnings: ConfigIssue[] }
  | { ok: false; config?: undefined; issues: ConfigIssue[]; warnings: ConfigIssue[] };

type PathPart = string | number;

// ---------------------------------------------------------------------------------------------
// Helpers

export function formatConfigPath(path: readonly PathPart[]): string {
  let out = '';
  for (const p of path) {
    if (typeof p === 'number') out += `[${p}]`;
    else out += out === '' ? p : `.${p}`;
  }
  return out;
}

/** "agent 1 (harness terminus-2)" style naming is done by callers; this names the table of a key. */
/** Inverse of formatConfigPath: `agents[0].model.type` → ['agents', 0, 'model', 'type']. */
export function parseConfigPath(path: string): PathPart[] {
  const parts: PathPart[] = [];
  for (const m of path.matchAll(/([^.[\]]+)|\[(\d+)\]/g))
    parts.push(m[2] !== undefined ? Number(m[2]) : m[1]!);
  return parts;
}

export function describeTable(path: readonly PathPart[]): string {
  // path points at a key; the table is everything before it
  const table = path.slice(0, -1);
  if (table.length === 0) return 'the top level';
  if (table[0] === 'agents' && typeof table[1] === 'number') {
    const agent = `agent ${table[1] + 1}`;
    const rest = table.slice(2).filter((p): p is string => typeof p === 'string');
    if (rest.length === 0) return `[[agents]] (${agent})`;
    return `[agents.${rest.join('.')}] of ${agent}`;
  }
  return `[${table.filter((p) => typeof p === 'string').join('.')}]`;
}

export function levenshtein(a: string, b: string): number {
  const prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0]!;
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = prev[j]!;
      prev[j] = Math.min(prev[j]! + 1, prev[j - 1]! + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = tmp;
    }
  }
  return prev[b.length]!;
}

/** The closest candidate by edit distance (case-insensitive), if close enough to be a typo. */
export function nearest(word: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  const w = word.toLowerCase();
  for (const c of candidates) {
    const d = levenshtein(w, c.toLowerCase());
    if (d < bestDistance) {
      best = c;
      bestDistance = d;
    }
  }
  const limit = Math.max(2, Math.floor(word.length / 3));
  if (bestDistance <= limit) return best;
  // a clipped key (`api_key` for `api_key_secret`) is a typo too
  if (w.length >= 4) return candidates.find((c) => c.toLowerCase().startsWith(w));
  return undefined;
}

function getAt(root: unknown, path: readonly PathPart[]): unknown {
  let cur: unknown = root;
  for (const p of path) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string | number, unknown>)[p];
  }
  return cur;
}

function describeValueType(v: unknown): string {
  if (v === undefined) return 'nothing';
  if (Array.isArray(v)) return 'an array';
  if (v instanceof Date || (v !== null && typeof v === 'object' && v.constructor?.name === 'TomlDate'))
    return 'a date';
  if (v !== null && typeof v === 'object') return 'a table';
  if (typeof v === 'number') return Number.isInteger(v) ? 'an integer' : 'a float';
  if (typeof v === 'string') return 'a string';
  if (typeof v === 'boolean') return 'a boolean';
  return typeof v;
}

const modelShapes: Record<ModelType, readonly string[]> = {
  provider: Object.keys(ProviderModelSpec.shape),
  endpoint: Object.keys(EndpointModelSpec.shape),
  hosted: Object.keys(HostedModelSpec.shape),
};

/** Valid keys of the table at `tablePath` (indices included), given the raw document. */
function validKeysAt(raw: unknown, tablePath: readonly PathPart[]): readonly string[] {
  const names = tablePath.filter((p): p is string => typeof p === 'string').join('.');
  switch (names) {
    case '':
      return Object.keys(RunConfig.shape);
    case 'experiment':
      return Object.keys(ExperimentConfig.shape);
    case 'tasks':
      return Object.keys(TasksConfig.shape);
    case 'execution':
      return Object.keys(ExecutionConfig.shape);
    case 'agents':
      return Object.keys(AgentConfig.shape);
    case 'agents.params':
      return Object.keys(AgentParams.shape);
    case 'secrets':
      return Object.keys(SecretsTable.shape);
    case 'verifier':
      return Object.keys(VerifierTable.shape);
    case 'agents.model': {
      const type = getAt(raw, [...tablePath, 'type']);
      if (typeof type === 'string' && type in modelShapes) return modelShapes[type as ModelType];
      return [...new Set(Object.values(modelShapes).flat())];
    }
    default:
      return [];
  }
}

/** Example text for a required key, so the message can show the line to add. */
const KEY_EXAMPLES: Record<string, string> = {
  benchmark: 'benchmark = "terminal-bench-2-1"   # key, exact name or id',
  model: 'model = "openai/gpt-5.2"',
  api_key_secret: 'api_key_secret = "OPENAI_API_KEY"',
  base_url: 'base_url = "https://models.example.com/v1"',
  base_model: 'base_model = "Qwen/Qwen3-8B"',
  type: 'type = "provider"   # provider | endpoint | hosted',
};

const SECRET_FIELD_HELP =
  'must be the NAME of a secret record matching ^[A-Z][A-Z0-9_]*$ (e.g. OPENAI_API_KEY), never the value itself; ' +
  'store the value with `osmosis secret set NAME` and put NAME here';

// ---------------------------------------------------------------------------------------------
// Locating keys in the text (best effort: for messages only)

function unquote(s: string): string {
  const t = s.trim();
  if ((t.startsWith('"') && t.endsWith('"')) || (t.startsWith("'") && t.endsWith("'"))) return t.slice(1, -1);
  return t;
}

function splitDotted(s: string): string[] {
  const parts: string[] = [];
  let cur = '';
  let quote: string | null = null;
  for (const ch of s) {
    if (quote) {
      if (ch === quote) quote = null;
      cur += ch;
    } else if (ch === '"' || ch === "'") {
      quote = ch;
      cur += ch;
    } else if (ch === '.') {
      parts.push(unquote(cur));
      cur = '';
    } else cur += ch;
  }
  parts.push(unquote(cur));
  return parts;
}

/** 1-based line and column of the key (or table header) at `path`, or of its nearest parent. */
export function locateInToml(
  text: string,
  path: readonly PathPart[],
): { line: number; column: number } | undefined {
  const lines = text.split(/\r?\n/);
  const target = formatConfigPath(path);
  let table: PathPart[] = [];
  let agentIndex = -1;
  let best: { line: number; column: number; depth: number } | undefined;
  const consider = (p: PathPart[], line: number, column: number) => {
    const f = formatConfigPath(p);
    if (f === target) {
      if (!best || best.depth < Number.POSITIVE_INFINITY)
        best = { line, column, depth: Number.POSITIVE_INFINITY };
      return;
    }
    if (target.startsWith(f) && (target[f.length] === '.' || target[f.length] === '[')) {
      if (!best || p.length > best.depth) best = { line, column, depth: p.length };
    }
  };
  for (let i = 0; i < lines.length; i++) {
    const rawLine = lines[i]!;
    const trimmed = rawLine.trimStart();
    const column = rawLine.length - trimmed.length + 1;
    if (trimmed === '' || trimmed.startsWith('#')) continue;
    const arrayHeader = /^\[\[\s*([^\]]+?)\s*\]\]/.exec(trimmed);
    const header = arrayHeader ? undefined : /^\[\s*([^\]]+?)\s*\]/.exec(trimmed);
    if (arrayHeader) {
      const parts = splitDotted(arrayHeader[1]!);
      if (parts.length === 1 && parts[0] === 'agents') {
        agentIndex++;
        table = ['agents', agentIndex];
      } else table = parts;
      consider(table, i + 1, column);
      continue;
    }
    if (header) {
      const parts = splitDotted(header[1]!);
      table = parts[0] === 'agents' && agentIndex >= 0 ? ['agents', agentIndex, ...parts.slice(1)] : parts;
      consider(table, i + 1, column);
      continue;
    }
    const keyMatch =
      /^((?:"[^"]*"|'[^']*'|[A-Za-z0-9_-]+)(?:\s*\.\s*(?:"[^"]*"|'[^']*'|[A-Za-z0-9_-]+))*)\s*=/.exec(
        trimmed,
      );
    if (keyMatch) consider([...table, ...splitDotted(keyMatch[1]!)], i + 1, column);
  }
  return best ? { line: best.line, column: best.column } : undefined;
}

// ---------------------------------------------------------------------------------------------
// zod issues → config issues

interface ZodIssueLike {
  code: string;
  path: PropertyKey[];
  message: string;
  keys?: string[];
  minimum?: number | bigint;
  maximum?: number | bigint;
  inclusive?: boolean;
  origin?: string;
  expected?: string;
  format?: string;
  values?: unknown[];
  note?: string;
  discriminator?: string;
}

function rangeText(key: string): string {
  const l = (RUN_CONFIG_LIMITS as Record<string, { min: number; max: number }>)[key];
  if (!l) return '';
  if (key === 'timeout_multiplier' || key === 'max_cost_usd')
    return `greater than ${l.min} and at most ${l.max}`;
  return `between ${l.min} and ${l.max}`;
}

function issueFromZod(raw: unknown, zi: ZodIssueLike): ConfigIssue[] {
  const path = zi.path.filter((p): p is string | number => typeof p !== 'symbol');
  const key = String(path[path.length - 1] ?? '');
  const where = describeTable(path);
  const p = formatConfigPath(path);
  const value = getAt(raw, path);

  if (zi.code === 'unrecognized_keys') {
    const valid = validKeysAt(raw, path);
    return (zi.keys ?? []).map((k) => {
      const keyPath = [...path, k];
      const suggestion = nearest(k, valid);
      const isTopTable =
        path.length === 0 && getAt(raw, keyPath) !== null && typeof getAt(raw, keyPath) === 'object';
      let message: string;
      if (isTopTable) {
        const v = getAt(raw, keyPath);
        const brackets = (name: string) => (Array.isArray(v) ? `[[${name}]]` : `[${name}]`);
        message =
          `unknown table \`${brackets(k)}\`` +
          (suggestion
            ? `; did you mean \`${brackets(suggestion)}\`?`
            : `; valid tables: ${valid.map((x) => `[${x}]`).join(', ')}`);
      } else {
        message = `unknown key \`${k}\` in ${describeTable(keyPath)}`;
        const names = path.filter((x): x is string => typeof x === 'string').join('.');
        const otherModelType =
          names === 'agents.model'
            ? MODEL_TYPES.find((t) => modelShapes[t].includes(k) && !valid.includes(k))
            : undefined;
        if (suggestion) message += `; did you mean \`${suggestion}\`?`;
        else if (otherModelType)
          message += `; \`${k}\` belongs to type = "${otherModelType}" models; remove it or change the type`;
        else message += `; valid keys: ${valid.join(', ')}`;
      }
      return { code: 'UNKNOWN_KEY', path: formatConfigPath(keyPath), message };
    });
  }

  if (zi.code === 'invalid_type') {
    if (value === undefined) {
      if (path.length === 1 && path[0] === 'agents')
        return [
          {
            code: 'AGENT_COUNT',
            path: p,
            message:
              'the config has no [[agents]]: add at least one [[agents]] table (1 to 8) with its [agents.model]',
          },
        ];
      if (path.length === 1 && path[0] === 'experiment')
        return [
          {
            code: 'MISSING_KEY',
            path: p,
            message: `missing [experiment] table: add\n[experiment]\n${KEY_EXAMPLES.benchmark}`,
          },
        ];
      const example = KEY_EXAMPLES[key];
      return [
        {
          code: 'MISSING_KEY',
          path: p,
          message: `\`${key}\` is required in ${where}${example ? `: add ${example}` : ''}`,
        },
      ];
    }
    const integerKeys = ['attempts_per_task', 'max_concurrent_attempts', 'max_retries'];
    const expected =
      zi.expected === 'int' || (zi.expected === 'number' && integerKeys.includes(key))
        ? 'an integer'
        : zi.expected === 'number'
          ? 'a number'
          : zi.expected === 'object'
            ? 'a table'
            : zi.expected === 'array'
              ? 'an array'
              : zi.expected === 'string'
                ? 'a string'
                : zi.expected === 'record'
                  ? 'a table'
                  : (zi.expected ?? 'another type');
    if (path.length === 1 && path[0] === 'agents')
      return [
        {
          code: 'INVALID_TYPE',
          path: p,
          message:
            'agents must be an array of tables: write each agent as [[agents]] (double brackets), not [agents]',
        },
      ];
    const union = zi.expected === undefined && typeof value !== 'string';
    return [
      {
        code: 'INVALID_TYPE',
        path: p,
        message: `\`${key}\` in ${where} must be ${union ? 'a string, number or boolean' : expected} (got ${describeValueType(value)})`,
      },
    ];
  }

  if (zi.code === 'too_small' || zi.code === 'too_big') {
    if (path.length === 1 && path[0] === 'agents')
      return [
        {
          code: 'AGENT_COUNT',
          path: p,
          message:
            zi.code === 'too_small'
              ? 'the config has no [[agents]]: add at least one [[agents]] table (1 to 8)'
              : `the config has ${Array.isArray(value) ? value.length : 'too many'} [[agents]] tables; a run takes 1 to 8 agents: remove some or split the run`,
        },
      ];
    if (zi.origin === 'array' && zi.code === 'too_big')
      return [
        {
          code: 'OUT_OF_RANGE',
          path: p,
          message: `\`${key}\` in ${where} lists ${Array.isArray(value) ? value.length : 'too many'} names; at most ${zi.maximum} are allowed`,
        },
      ];
    if (zi.origin === 'array')
      return [
        {
          code: 'EMPTY_LIST',
          path: p,
          message: `\`${key}\` in ${where} is an empty list: name at least one entry, or remove the key to run the full benchmark`,
        },
      ];
    if (zi.origin === 'string')
      return [{ code: 'EMPTY_VALUE', path: p, message: `\`${key}\` in ${where} must not be empty` }];
    return [
      {
        code: 'OUT_OF_RANGE',
        path: p,
        message: `\`${key}\` in ${where} must be ${rangeText(key) || (zi.code === 'too_small' ? `at least ${zi.minimum}` : `at most ${zi.maximum}`)} (got ${String(value)})`,
      },
    ];
  }

  if (zi.code === 'invalid_format') {
    // an entry of `[secrets] required` / `[verifier] required`
    const list =
      path.length === 3 && (path[0] === 'secrets' || path[0] === 'verifier') && path[1] === 'required';
    if (list)
      return [
        {
          code: 'INVALID_SECRET_NAME',
          path: p,
          message: `entry ${Number(path[2]) + 1} of \`required\` in [${String(path[0])}] ${SECRET_FIELD_HELP}`,
        },
      ];
    if (key.endsWith('_secret'))
      return [
        {
          code: 'INVALID_SECRET_NAME',
          path: p,
          message: `\`${key}\` in ${where} ${SECRET_FIELD_HELP}${quoteConfigValue(path, value)}`,
        },
      ];
    if (key === 'model' || key === 'judge_model')
      return [
        {
          code: 'INVALID_MODEL',
          path: p,
          message: `\`${key}\` in ${where} must be written provider/model, e.g. "openai/gpt-5.2" or "anthropic/claude-sonnet-4-5"${quoteConfigValue(path, value)}`,
        },
      ];
    if (key === 'base_url')
      return [
        {
          code: 'INVALID_URL',
          path: p,
          message: `\`base_url\` in ${where} must be an http(s) URL such as "https://models.example.com/v1"${quoteConfigValue(path, value)}`,
        },
      ];
    if (path.includes('extra_headers'))
      return [
        {
          code: 'INVALID_HEADER_NAME',
          path: p,
          message: `header name \`${key}\` in ${where} is not a valid HTTP header name: use letters, digits and '-'`,
        },
      ];
    return [
      {
        code: 'INVALID_TYPE',
        path: p,
        message: `\`${key}\` in ${where}: ${zi.message}${quoteConfigValue(path, value)}`,
      },
    ];
  }

  if (zi.code === 'invalid_union' && zi.discriminator === 'type') {
    return [
      {
        code: 'INVALID_MODEL_TYPE',
        path: p,
        message:
          value === undefined
            ? `\`type\` is required in ${describeTable(path)}: add type = "provider", "endpoint" or "hosted"`
            : `\`type\` in ${describeTable(path)} must be "provider", "endpoint" or "hosted" (got ${JSON.stringify(value)})`,
      },
    ];
  }

  if (zi.code === 'invalid_value' && key === 'harness') {
    const suggestion = typeof value === 'string' ? nearest(value, KNOWN_HARNESSES) : undefined;
    return [
      {
        code: 'UNKNOWN_HARNESS',
        path: p,
        message:
          `unknown harness ${JSON.stringify(value)} in ${where}` +
          (suggestion ? `; did you mean "${suggestion}"?` : '') +
          ` Known harnesses: ${KNOWN_HARNESSES.join(', ')}`,
      },
    ];
  }

  if (zi.code === 'invalid_key' && path.includes('extra_headers'))
    return [
      {
        code: 'INVALID_HEADER_NAME',
        path: p,
        message: `header name ${JSON.stringify(key)} in ${where} is not a valid HTTP header name: use letters, digits and '-' (e.g. X-Request-Source)`,
      },
    ];

  if (zi.code === 'invalid_union' && (path[0] === 'env' || path[path.length - 2] === 'env'))
    return [
      {
        code: 'INVALID_TYPE',
        path: p,
        message: `env var \`${key}\` in ${where} must be a string (numbers and booleans are accepted), got ${describeValueType(value)}: write ${key} = "..."`,
      },
    ];

  return [
    {
      code: 'INVALID_TYPE',
      path: p,
      message: `\`${key}\` in ${where}: ${zi.message}${quoteConfigValue(path, value)}`,
    },
  ];
}

// ---------------------------------------------------------------------------------------------
// Rules that need only the file

/** Secret record names an agent references, with the config key that names each. */
export function agentSecretRefs(config: RunConfig, index: number): { name: string; path: string }[] {
  const agent = config.agents[index];
  if (!agent) return [];
  const refs: { name: string; path: string }[] = [];
  if (agent.model && agent.model.type !== 'hosted')
    refs.push({ name: agent.model.api_key_secret, path: `agents[${index}].model.api_key_secret` });
  if (agent.harness_api_key_secret)
    refs.push({ name: agent.harness_api_key_secret, path: `agents[${index}].harness_api_key_secret` });
  // [secrets] names go to every agent, as env vars of the same name
  config.secrets?.required.forEach((name, j) => {
    refs.push({ name, path: `secrets.required[${j}]` });
  });
  if (config.execution.judge_api_key_secret)
    refs.push({ name: config.execution.judge_api_key_secret, path: 'execution.judge_api_key_secret' });
  return refs;
}

/** The `[verifier] required` names (records the verifier receives besides the benchmark's own). */
export function verifierTableNames(config: RunConfig): string[] {
  return [...new Set(config.verifier?.required ?? [])];
}

/** Every secret record name the config references (deduplicated, in order of appearance). */
export function configSecretNames(config: RunConfig): string[] {
  const names = new Set<string>();
  config.agents.forEach((_, i) => {
    for (const r of agentSecretRefs(config, i)) names.add(r.name);
  });
  return [...names];
}

/** The env an agent's harness sees, without secrets: [env] overridden by [agents.env]. */
export function effectiveEnv(config: RunConfig, index: number): Record<string, string> {
  return { ...config.env, ...(config.agents[index]?.env ?? {}) };
}

/** The config path a name of an agent's effective env comes from: `agents[i].env.NAME` or `env.NAME`. */
export function envSource(config: RunConfig, index: number, name: string): string {
  return config.agents[index]?.env[name] !== undefined ? `agents[${index}].env.${name}` : `env.${name}`;
}

/** The env table `envSource` names, as messages write it: `[env]` or `[agents.env] of agent N`. */
export function envTableLabel(source: string): string {
  const m = /^agents\[(\d+)\]\./.exec(source);
  return m ? `[agents.env] of agent ${Number(m[1]) + 1}` : '[env]';
}

/**
 * Rules that depend on an agent's harness. The file-only validation runs them for agents that
 * name their harness; config-rules runs them with the benchmark's default harness for the rest.
 */
export function checkAgentHarness(config: RunConfig, index: number, harness: HarnessName): ConfigIssue[] {
  const agent = config.agents[index];
  if (!agent) return [];
  const issues: ConfigIssue[] = [];
  const label = `agent ${index + 1}`;
  const required = HARNESS_KEY_SECRETS[harness];
  const harnessNote = agent.harness ? `harness ${harness}` : `harness ${harness} (the benchmark's default)`;
  if (required) {
    if (!agent.harness_api_key_secret)
      issues.push({
        code: 'HARNESS_KEY_REQUIRED',
        path: `agents[${index}].harness_api_key_secret`,
        message: `${label} uses ${harnessNote}, which needs its own key: add harness_api_key_secret = "${required}" to [[agents]] (${label}) and create the record with \`osmosis secret set ${required}\``,
      });
    else if (agent.harness_api_key_secret !== required)
      issues.push({
        code: 'HARNESS_KEY_NAME',
        path: `agents[${index}].harness_api_key_secret`,
        message: `\`harness_api_key_secret\` of ${label} (${harnessNote}) must be exactly "${required}": rename the record to ${required} (\`osmosis secret set ${required}\`) and reference that name`,
      });
    const env = effectiveEnv(config, index);
    if (env[required] !== undefined)
      issues.push({
        code: 'ENV_HARNESS_KEY_COLLISION',
        path: envSource(config, index, required),
        message: `${label} sets ${required} literally in ${envSource(config, index, required).startsWith('env.') ? '[env]' : '[agents.env]'}, but ${required} is the key variable of ${harness}, injected from the secret record: remove ${required} from the env table and use harness_api_key_secret = "${required}"`,
      });
  } else if (agent.harness_api_key_secret) {
    issues.push({
      code: 'HARNESS_KEY_NOT_ACCEPTED',
      path: `agents[${index}].harness_api_key_secret`,
      message: `${label} uses ${harnessNote}, which does not take harness_api_key_secret (only cursor-cli and mini-swe-agent do): remove harness_api_key_secret from [[agents]] (${label})`,
    });
  }
  issues.push(...checkAgentParams(agent, index, harness, harnessNote));
  if (agent.model?.type === 'hosted' && HARNESS_MODEL_KEY_ENVS[harness])
    issues.push(hostedModelInSandbox(index, harnessNote));
  else if (agent.model) {
    // the model key, exported by the harness under its own variables (overwriting a literal);
    // names that are also secret records of the agent are ENV_SECRET_COLLISION (fileRules)
    const api = modelApiOf(agent.model);
    const env = effectiveEnv(config, index);
    const refs = new Set(agentSecretRefs(config, index).map((r) => r.name));
    for (const name of harnessModelKeyEnvs(harness, api)) {
      if (env[name] === undefined || refs.has(name) || name === required) continue;
      const src = envSource(config, index, name);
      const table = envTableLabel(src);
      const fix =
        agent.model.type === 'hosted'
          ? `remove ${name} from ${table}; hosted models are called with the platform operator's key, which the harness exports as ${name} when the operator has configured one`
          : `remove ${name} from ${table}; the value comes from the secret record named by api_key_secret ("${agent.model.api_key_secret}"), so to use another key, store it as a secret record (\`osmosis secret set NAME\`) and set api_key_secret = "NAME" in [agents.model] of ${label}`;
      issues.push({
        code: 'ENV_HARNESS_KEY_COLLISION',
        path: src,
        message: `${label} sets ${name} literally in ${table}, but ${harnessNote} exports the model key as ${name} (for ${api}-API models), so the literal would be overwritten at run time: ${fix}`,
      });
    }
  }
  if (!agent.model && !MODEL_FREE_HARNESSES.includes(harness))
    issues.push({
      code: 'MODEL_REQUIRED',
      path: `agents[${index}].model`,
      message: `${label} uses ${harnessNote}, which needs a model: add an [agents.model] table after [[agents]] (${label}), e.g.\n[agents.model]\ntype = "provider"\nmodel = "openai/gpt-5.2"\napi_key_secret = "OPENAI_API_KEY"`,
    });
  return issues;
}

/**
 * Installed agents run inside the sandbox, where the agent's code can read their env: the
 * operator's hosted-model key (OSMOSIS_HOSTED_API_KEY) is never given to them.
 */
function hostedModelInSandbox(index: number, harnessNote: string): ConfigIssue {
  return {
    code: 'HOSTED_MODEL_IN_SANDBOX',
    path: `agents[${index}].model.type`,
    message: `agent ${index + 1} uses ${harnessNote} with a hosted model: installed agents run inside the sandbox, where code the agent runs could read the platform operator's hosted-model key, so hosted models run only with harness = "terminus-2" (which calls the model from the platform); set harness = "terminus-2" in [[agents]] (agent ${index + 1}), or use a provider or endpoint model with your own key`,
  };
}

function checkEnvTable(env: Record<string, string>, prefix: readonly PathPart[]): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  for (const name of Object.keys(env)) {
    const path = [...prefix, name];
    const where = describeTable(path);
    if (!ENV_KEY_PATTERN.test(name))
      issues.push({
        code: 'INVALID_ENV_KEY',
        path: formatConfigPath(path),
        message: `env key \`${name}\` in ${where} is not a valid name: env keys match ^[A-Z_][A-Z0-9_]*$ (upper case letters, digits, underscores), e.g. ${name
          .toUpperCase()
          .replace(/[^A-Z0-9_]/g, '_')
          .replace(/^[0-9]/, '_$&')}`,
      });
    else if (name.startsWith(RESERVED_ENV_PREFIX))
      issues.push({
        code: 'RESERVED_ENV_KEY',
        path: formatConfigPath(path),
        message: `env key \`${name}\` in ${where} starts with ${RESERVED_ENV_PREFIX}, which is reserved for the platform: rename it`,
      });
    else if ((RUNNER_RESERVED_ENV as readonly string[]).includes(name))
      issues.push({
        code: 'RESERVED_ENV_KEY',
        path: formatConfigPath(path),
        message: `\`${name}\` in ${where} is reserved by the runner and is never set in a config: remove it; benchmarks that need it get it from the secret record ${name} (\`osmosis secret set ${name}\`)`,
      });
  }
  return issues;
}

function checkSecretField(name: string | undefined, path: string): ConfigIssue[] {
  if (!name || !(RESERVED_SECRET_NAMES as readonly string[]).includes(name)) return [];
  if (path.startsWith('secrets.'))
    return [
      {
        code: 'RESERVED_SECRET_NAME',
        path,
        message: `"${name}" in [secrets] required is not allowed: ${name} is reserved by the runner (reserved: ${RESERVED_SECRET_NAMES.join(', ')}), so it is never given to an agent; remove it from the list`,
      },
    ];
  const key = path.split('.').pop()!;
  return [
    {
      code: 'RESERVED_SECRET_NAME',
      path,
      message: `\`${key}\` = "${name}" in ${describeTable(parseConfigPath(path))} is not allowed: ${name} is reserved by the runner (reserved: ${RESERVED_SECRET_NAMES.join(', ')}); reference the record that holds your model provider's key instead`,
    },
  ];
}

function fileRules(config: RunConfig): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  const b = config.experiment.benchmark;
  if (/^(\.{1,2}\/|\/|~\/)/.test(b) || /\.(toml|tar|tgz|tar\.gz|zip)$/i.test(b))
    issues.push({
      code: 'BENCHMARK_IS_PATH',
      path: 'experiment.benchmark',
      message:
        '`benchmark` in [experiment] looks like a local path; a run references a benchmark already added to the workspace by its key, exact name or id: add the directory with `osmosis benchmark add` first, then use its key (see `osmosis benchmark list`)',
    });
  issues.push(...checkEnvTable(config.env, ['env']));
  issues.push(...checkSecretField(config.execution.judge_api_key_secret, 'execution.judge_api_key_secret'));
  config.secrets?.required.forEach((name, j) => {
    issues.push(...checkSecretField(name, `secrets.required[${j}]`));
  });
  config.agents.forEach((agent, i) => {
    issues.push(...checkEnvTable(agent.env, ['agents', i, 'env']));
    if (agent.model && agent.model.type !== 'hosted')
      issues.push(...checkSecretField(agent.model.api_key_secret, `agents[${i}].model.api_key_secret`));
    issues.push(...checkSecretField(agent.harness_api_key_secret, `agents[${i}].harness_api_key_secret`));
    if (agent.model?.type === 'endpoint')
      for (const header of Object.keys(agent.model.extra_headers ?? {}))
        if (header.toLowerCase() === 'authorization')
          issues.push({
            code: 'AUTHORIZATION_HEADER',
            path: `agents[${i}].model.extra_headers.${header}`,
            message: `\`${header}\` in [agents.model.extra_headers] of agent ${i + 1} is not allowed: the platform sends Authorization: Bearer <key> from api_key_secret; remove the header and put the key in a secret record named by api_key_secret`,
          });
    // literal env named like a referenced secret
    const env = effectiveEnv(config, i);
    const harnessKey = agent.harness ? HARNESS_KEY_SECRETS[agent.harness] : undefined;
    const seen = new Set<string>();
    for (const ref of agentSecretRefs(config, i)) {
      if (seen.has(ref.name) || ref.name === harnessKey || env[ref.name] === undefined) continue;
      seen.add(ref.name);
      const src = envSource(config, i, ref.name);
      issues.push({
        code: 'ENV_SECRET_COLLISION',
        path: src,
        message: `agent ${i + 1} references the secret record ${ref.name} (${ref.path}), which the platform injects as the env var ${ref.name}, but ${src.startsWith('env.') ? '[env]' : `[agents.env] of agent ${i + 1}`} also sets ${ref.name} literally: remove ${ref.name} from the env table`,
      });
    }
    if (agent.harness) issues.push(...checkAgentHarness(config, i, agent.harness));
    else if (!agent.model)
      issues.push({
        code: 'MODEL_REQUIRED',
        path: `agents[${i}].model`,
        message: `agent ${i + 1} has no [agents.model]: add one after [[agents]] (agent ${i + 1}), or set harness = "oracle" or "nop" for an agent that calls no model`,
      });
  });
  return issues;
}

// ---------------------------------------------------------------------------------------------
// Entry points

function withLocation(text: string, issue: ConfigIssue): ConfigIssue {
  if (issue.line !== undefined) return issue;
  const loc = locateInToml(text, parseConfigPath(issue.path));
  return loc ? { ...issue, ...loc } : issue;
}

/** Validate an already-parsed document (the API receives TOML text; tests may use objects). */
export function validateRunConfigObject(raw: unknown): RunConfigValidation {
  const parsed = RunConfig.safeParse(raw);
  if (!parsed.success) {
    const issues = parsed.error.issues.flatMap((i) => issueFromZod(raw, i as unknown as ZodIssueLike));
    return { ok: false, issues, warnings: [] };
  }
  const issues = fileRules(parsed.data);
  if (issues.length > 0) return { ok: false, issues, warnings: [] };
  return { ok: true, config: parsed.data, issues: [], warnings: [] };
}

/**
 * Parse and validate a run config. Issues name the file, and the line and column where they
 * can be located; the messages say what to change.
 */
export function validateRunConfig(tomlText: string, fileName = 'config.toml'): RunConfigValidation {
  let raw: unknown;
  try {
    raw = parseToml(tomlText);
  } catch (error) {
    if (error instanceof TomlError) {
      // the first line only: the code block smol-toml appends would repeat the file's text
      const reason = error.message.split('\n')[0]!.replace(/^Invalid TOML document:\s*/, '');
      return {
        ok: false,
        issues: [
          {
            code: 'TOML_SYNTAX',
            path: '',
            line: error.line,
            column: error.column,
            message: `${fileName}:${error.line}:${error.column}: invalid TOML: ${reason}; fix the syntax at line ${error.line}, column ${error.column}`,
          },
        ],
        warnings: [],
      };
    }
    throw error;
  }
  const result = validateRunConfigObject(raw);
  if (result.ok) return result;
  return { ...result, issues: result.issues.map((i) => withLocation(tomlText, i)) };
}

/** Add line/column to issues found after parsing (e.g. by the benchmark-dependent rules). */
export function locateConfigIssues(tomlText: string, issues: readonly ConfigIssue[]): ConfigIssue[] {
  return issues.map((i) => withLocation(tomlText, i));
}

/** `file:line:column: message` (or `file: message` when the issue has no position). */
export function formatConfigIssue(fileName: string, issue: ConfigIssue): string {
  if (issue.code === 'TOML_SYNTAX') return issue.message;
  const pos =
    issue.line !== undefined ? `:${issue.line}${issue.column !== undefined ? `:${issue.column}` : ''}` : '';
  return `${fileName}${pos}: ${issue.message}${issue.path ? ` [${issue.code} at ${issue.path}]` : ` [${issue.code}]`}`;
}

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
