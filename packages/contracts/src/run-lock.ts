// A run's lock (`lock.json`): what the run was made of, recorded at submit and completed as its
// attempts resolve (image digests and harness/CLI versions are known only once attempts ran).
// Its identity is `fingerprint`, a SHA-256 over the canonical JSON of the fields that count
// (packages/core/src/lock/); docs/reproducibility.md lists them.
import { z } from 'zod';
import { TemplateSetKind } from './harness-info.ts';

export const RUN_LOCK_SCHEMA_VERSION = 1;

/** Where the benchmark's task files came from, as far as the platform knows it. */
export const RunLockSource = z.object({
  kind: z.enum(['git', 'archive', 'registry']).describe('How the benchmark was added'),
  url: z
    .string()
    .nullable()
    .describe(
      'git: the repository URL without credentials or query; registry: the registry URL; null for an archive',
    ),
  ref: z
    .string()
    .nullable()
    .describe(
      'git: the ref asked for (a branch, tag or commit; null: the remote HEAD); registry: `dataset@version` resolved at sync; null for an archive',
    ),
  commit: z
    .string()
    .nullable()
    .describe(
      "git: the commit (40 or 64 hex) the benchmark's sync checked out, whose tasks the run used (the ref when it is a commit id and no sync recorded one); null otherwise",
    ),
  archive: z
    .string()
    .nullable()
    .describe(
      'archive: the storage key of the uploaded archive; registry: that of an uploaded registry file; else null',
    ),
  path: z
    .string()
    .nullable()
    .describe('The folder within the source the tasks were read from; null for the root or a registry'),
});
export type RunLockSource = z.infer<typeof RunLockSource>;

export const RunLockTask = z.object({
  name: z.string().describe("The task's name"),
  digest: z.string().describe('Content digest of the task folder'),
  env_digest: z.string().describe("Digest of environment/ alone (the built image's cache key)"),
  image: z
    .string()
    .nullable()
    .describe('docker_image as the task names it; null when the image is built from environment/'),
});
export type RunLockTask = z.infer<typeof RunLockTask>;

/** A registry image the run pinned, and the manifest digest every attempt got. */
export const RunLockImage = z.object({
  reference: z.string().describe('The image reference as the task names it'),
  digest: z.string().describe('The `sha256:` manifest digest every attempt of the run got'),
});
export type RunLockImage = z.infer<typeof RunLockImage>;

export const RunLockModel = z.object({
  type: z
    .enum(['provider', 'endpoint', 'hosted', 'none'])
    .describe("The model's kind; `none` for a harness run without a model"),
  name: z
    .string()
    .nullable()
    .describe("provider/model, the endpoint's model name, or base_model(+lora); null for none"),
  base_url: z
    .string()
    .nullable()
    .describe(
      "The endpoint's URL without credentials or query (its host and port are not in the fingerprint); null for other kinds",
    ),
  secret: z
    .string()
    .nullable()
    .describe('The name of the record the key is read from (never the value); null when none'),
  header_names: z
    .array(z.string())
    .describe("An endpoint's extra header names, sorted (their values are not kept)"),
});
export type RunLockModel = z.infer<typeof RunLockModel>;

/** What a harness ran with, from its attempts (empty until one ran). */
export const RunLockHarnessRun = z.object({
  version: z.string().describe("The harness's version as the attempts reported it"),
  reference: z
    .string()
    .nullable()
    .describe('The behaviour it reproduces as `project@version:commit` (terminus-2: Harbor); null for none'),
  templates: z
    .object({
      kind: TemplateSetKind.describe('`default`, `custom` or `reference` prompt templates'),
      digest: z.string().describe('SHA-256 of the rendered set (ids and texts)'),
      files: z
        .record(z.string(), z.string())
        .describe('SHA-256 of each file the set was read from (relative path → hex)'),
    })
    .nullable()
    .describe('The prompt template set it used; null for a harness without templates'),
  tools: z
    .record(z.string(), z.string().nullable())
    .describe('The installed CLIs and tools, `name` → version as printed (null: printed none)'),
  max_turns: z.number().int().nullable().describe('The turn limit it ran with; null for none'),
  summarize_threshold_tokens: z
    .number()
    .int()
    .nullable()
    .describe('Context size in tokens at which it summarises; null for none'),
});
export type RunLockHarnessRun = z.infer<typeof RunLockHarnessRun>;

export const RunLockAgent = z.object({
  index: z.number().int().nonnegative().describe("The agent's position in the config, from 0"),
  harness: z.string().describe('The harness it runs'),
  harness_version: z
    .string()
    .describe("The harness's version at submit (terminus-2's own; the platform's for the others)"),
  model: RunLockModel.describe('The model it calls (secrets and headers by name only)'),
  params: z.record(z.string(), z.unknown()).describe('`[agents.params]` as configured'),
  env: z.record(z.string(), z.string()).describe('Literal env values as configured (run-wide env merged in)'),
  secret_env: z.array(z.string()).describe('Names of the records the agent receives'),
  harness_api_key_secret: z
    .string()
    .nullable()
    .describe("The record name of the harness's own API key; null when none is configured"),
  runs: z
    .array(RunLockHarnessRun)
    .describe('Every distinct harness/CLI setup its attempts reported so far (empty until one ran)'),
});
export type RunLockAgent = z.infer<typeof RunLockAgent>;

/** A judge prompt's identity as the lock lists it: `default` or `reference`, then its SHA-256. */
export const JUDGE_TEMPLATE_ID = /^(default|reference):[0-9a-f]{64}$/;

export const RunLockJudge = z.object({
  kind: z.string().nullable().describe('hle | gdpval; null when no model judges the benchmark'),
  model: z.string().nullable().describe('The judge model; null when no model judges'),
  secret: z
    .string()
    .nullable()
    .describe("The record name of the judge's key; null when there is no judge model or none is set"),
  template_digests: z
    .array(z.string())
    .describe(
      "Each judge prompt the run's attempts were graded with, as `kind:sha256hex` (kind `default` or `reference`), sorted; empty until one was judged or when no model judges",
    ),
});
export type RunLockJudge = z.infer<typeof RunLockJudge>;

/** The effective execution config: timeouts, retries, overrides. Secrets by name only. */
export const RunLockExecution = z.object({
  attempts_per_task: z.number().int().describe('Attempts of each task per agent'),
  timeout_multiplier: z.number().describe("Factor applied to each task's timeouts"),
  max_retries: z.number().int().describe('Retries of an attempt that errored'),
  pass_threshold: z.number().describe('The reward an attempt needs to pass'),
  max_concurrent_attempts: z.number().int().describe("The most of the run's attempts running at once"),
  max_cost_usd: z.number().nullable().describe("The run's budget in US dollars; null for no budget"),
  selection: z
    .object({
      task_set: z.string().nullable().describe('The task set named; null when none'),
      task_names: z.array(z.string()).nullable().describe('The task names listed; null when none'),
      categories: z.array(z.string()).nullable().describe('The categories listed; null when none'),
    })
    .describe('The task selection as configured'),
  secrets: z.array(z.string()).describe('`[secrets] required` names'),
  verifier_secrets: z.array(z.string()).describe('`[verifier] required` names'),
  reuse_from: z
    .string()
    .nullable()
    .describe('The run this one took finished attempts over from; null for none'),
});
export type RunLockExecution = z.infer<typeof RunLockExecution>;

export const RunLockPlatform = z.object({
  version: z.string().describe("The platform's version (`unknown` when it could not be read)"),
  commit: z
    .string()
    .nullable()
    .describe("The platform's git commit (OSMOSIS_GIT_COMMIT); null when the deployment does not set it"),
});
export type RunLockPlatform = z.infer<typeof RunLockPlatform>;

/** What is recorded at submit (runs.lock); the resolved parts are added when the lock is read. */
export const RunLockRecord = z.object({
  schema_version: z.literal(RUN_LOCK_SCHEMA_VERSION).describe("The lock format's version"),
  platform: RunLockPlatform.describe('The platform that took the submit'),
  benchmark: z
    .object({
      key: z.string().describe("The benchmark's key"),
      source: RunLockSource.describe("Where the benchmark's task files came from"),
    })
    .describe('The benchmark the run ran'),
  tasks: z.array(RunLockTask).describe('Each selected task with its digests, by name'),
  agents: z.array(RunLockAgent).describe('Each agent as configured, in config order'),
  judge: RunLockJudge.describe('The judge of the benchmark (secrets by name only)'),
  execution: RunLockExecution.describe('The effective execution config'),
});
export type RunLockRecord = z.infer<typeof RunLockRecord>;

export const RunLock = RunLockRecord.extend({
  fingerprint: z
    .string()
    .describe(
      'SHA-256 (hex) of the canonical JSON of the fields that count; changes while the run resolves images and versions',
    ),
  run: z
    .object({
      id: z.string().describe("The run's id"),
      name: z.string().describe("The run's name"),
      created_at: z.string().describe('When the run was submitted (ISO 8601)'),
      status: z.string().describe("The run's status when the lock was read"),
    })
    .describe('The run the lock is of'),
  images: z
    .array(RunLockImage)
    .describe('Each registry image the run pinned; images built from environment/ are not listed'),
  complete: z
    .boolean()
    .describe('False while attempts are still to run: image digests and versions may still be added'),
});
export type RunLock = z.infer<typeof RunLock>;

export const RunLockResponse = z.object({ data: RunLock.describe("The run's lock") });
export type RunLockResponse = z.infer<typeof RunLockResponse>;
