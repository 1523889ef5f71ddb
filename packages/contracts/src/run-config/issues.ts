// What a run config's validation reports: one issue per problem, with a code and a message.
import { z } from 'zod';
import type { RunConfig } from './schema.ts';

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
  // reuse_from
  'REUSE_NOT_MATCHING',
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
  /** a selected task needs more cpus, memory or GPUs than any live worker advertises */
  'NO_WORKER_FITS',
]);
export type ConfigIssueCode = z.infer<typeof ConfigIssueCode>;

export const ConfigIssue = z.object({
  code: ConfigIssueCode.describe('Stable code of the problem (e.g. UNKNOWN_KEY, UNKNOWN_TASK_SET)'),
  path: z
    .string()
    .describe("`execution.max_retries`, `agents[0].model.api_key_secret`, `env.HF_TOKEN`; '' for the file"),
  message: z.string().describe('what is wrong and how to fix it; names the table, the key and the agent'),
  line: z.number().int().optional().describe('1-based position in the file when it could be located'),
  column: z.number().int().optional().describe('1-based column when it could be located'),
});
export type ConfigIssue = z.infer<typeof ConfigIssue>;

export type RunConfigValidation =
  | { ok: true; config: RunConfig; issues: []; warnings: ConfigIssue[] }
  | { ok: false; config?: undefined; issues: ConfigIssue[]; warnings: ConfigIssue[] };
