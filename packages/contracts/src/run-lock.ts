// A run's lock (`lock.json`): what the run was made of, recorded at submit and completed as its
// attempts resolve (image digests and harness/CLI versions are known only once attempts ran).
// Its identity is `fingerprint`, a SHA-256 over the canonical JSON of the fields that count
// (packages/core/src/lock/); docs/reproducibility.md lists them.
import { z } from 'zod';
import { TemplateSetKind } from './harness-info.ts';

export const RUN_LOCK_SCHEMA_VERSION = 1;

/** Where the benchmark's task files came from, as far as the platform knows it. */
export const RunLockSource = z.object({
  kind: z.enum(['git', 'archive', 'registry']),
  /** git: the repository URL without credentials; registry: the registry URL; archive: null */
  url: z.string().nullable(),
  /** git: the ref asked for; registry: `dataset@version` resolved at sync */
  ref: z.string().nullable(),
  /** git: the commit, when the ref is one (a 40-hex id) */
  commit: z.string().nullable(),
  /** archive: the storage key of the uploaded archive (its content's name) */
  archive: z.string().nullable(),
  path: z.string().nullable(),
});
export type RunLockSource = z.infer<typeof RunLockSource>;

export const RunLockTask = z.object({
  name: z.string(),
  /** content digest of the task folder */
  digest: z.string(),
  /** digest of environment/ alone (the built image's cache key) */
  env_digest: z.string(),
  /** docker_image as the task names it; null when the image is built from environment/ */
  image: z.string().nullable(),
});
export type RunLockTask = z.infer<typeof RunLockTask>;

/** A registry image the run pinned, and the manifest digest every attempt got. */
export const RunLockImage = z.object({
  reference: z.string(),
  digest: z.string(),
});
export type RunLockImage = z.infer<typeof RunLockImage>;

export const RunLockModel = z.object({
  type: z.enum(['provider', 'endpoint', 'hosted', 'none']),
  /** provider/model, the endpoint's model name, or base_model(+lora) */
  name: z.string().nullable(),
  /** the endpoint's URL (its host and port are volatile: not in the fingerprint) */
  base_url: z.string().nullable(),
  /** the record names the key is read from (never the value) */
  secret: z.string().nullable(),
  /** names of extra headers sent (their values are not kept) */
  header_names: z.array(z.string()),
});
export type RunLockModel = z.infer<typeof RunLockModel>;

/** What a harness ran with, from its attempts (empty until one ran). */
export const RunLockHarnessRun = z.object({
  version: z.string(),
  /** the behaviour it reproduces (terminus-2: Harbor version and commit), null for none */
  reference: z.string().nullable(),
  templates: z
    .object({ kind: TemplateSetKind, digest: z.string(), files: z.record(z.string(), z.string()) })
    .nullable(),
  /** the installed CLIs and tools, `name` → version as printed (null: printed none) */
  tools: z.record(z.string(), z.string().nullable()),
  max_turns: z.number().int().nullable(),
  summarize_threshold_tokens: z.number().int().nullable(),
});
export type RunLockHarnessRun = z.infer<typeof RunLockHarnessRun>;

export const RunLockAgent = z.object({
  index: z.number().int().nonnegative(),
  harness: z.string(),
  /** the platform's version of the harness at submit (terminus-2's own; the platform's for the others) */
  harness_version: z.string(),
  model: RunLockModel,
  params: z.record(z.string(), z.unknown()),
  /** literal env values as configured (run-wide env merged in) */
  env: z.record(z.string(), z.string()),
  /** names of the records the agent receives */
  secret_env: z.array(z.string()),
  harness_api_key_secret: z.string().nullable(),
  /** every distinct harness/CLI setup its attempts reported so far */
  runs: z.array(RunLockHarnessRun),
});
export type RunLockAgent = z.infer<typeof RunLockAgent>;

export const RunLockJudge = z.object({
  /** hle | gdpval; null when no model judges the benchmark */
  kind: z.string().nullable(),
  model: z.string().nullable(),
  secret: z.string().nullable(),
  /** the judge prompts' digests its attempts reported (`kind:sha256`) */
  template_digests: z.array(z.string()),
});
export type RunLockJudge = z.infer<typeof RunLockJudge>;

/** The effective execution config: timeouts, retries, overrides. Secrets by name only. */
export const RunLockExecution = z.object({
  attempts_per_task: z.number().int(),
  timeout_multiplier: z.number(),
  max_retries: z.number().int(),
  pass_threshold: z.number(),
  max_concurrent_attempts: z.number().int(),
  max_cost_usd: z.number().nullable(),
  /** the task selection as configured */
  selection: z.object({
    task_set: z.string().nullable(),
    task_names: z.array(z.string()).nullable(),
    categories: z.array(z.string()).nullable(),
  }),
  /** `[secrets] required` and `[verifier] required` names */
  secrets: z.array(z.string()),
  verifier_secrets: z.array(z.string()),
  /** the run this one took finished attempts over from, if any */
  reuse_from: z.string().nullable(),
});
export type RunLockExecution = z.infer<typeof RunLockExecution>;

export const RunLockPlatform = z.object({
  version: z.string(),
  /** the platform's git commit when the deployment says it (OSMOSIS_GIT_COMMIT) */
  commit: z.string().nullable(),
});
export type RunLockPlatform = z.infer<typeof RunLockPlatform>;

/** What is recorded at submit (runs.lock); the resolved parts are added when the lock is read. */
export const RunLockRecord = z.object({
  schema_version: z.literal(RUN_LOCK_SCHEMA_VERSION),
  platform: RunLockPlatform,
  benchmark: z.object({ key: z.string(), source: RunLockSource }),
  tasks: z.array(RunLockTask),
  agents: z.array(RunLockAgent),
  judge: RunLockJudge,
  execution: RunLockExecution,
});
export type RunLockRecord = z.infer<typeof RunLockRecord>;

export const RunLock = RunLockRecord.extend({
  /** SHA-256 (hex) of the canonical JSON of the fields that count */
  fingerprint: z.string(),
  run: z.object({ id: z.string(), name: z.string(), created_at: z.string(), status: z.string() }),
  images: z.array(RunLockImage),
  /** false while attempts are still to run: image digests and versions may still be added */
  complete: z.boolean(),
});
export type RunLock = z.infer<typeof RunLock>;

export const RunLockResponse = z.object({ data: RunLock });
export type RunLockResponse = z.infer<typeof RunLockResponse>;
