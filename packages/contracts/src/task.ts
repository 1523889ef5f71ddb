import { z } from 'zod';

/**
 * A task in the Harbor task format, as the platform stores it (Task.config) and returns it in
 * `benchmark info --json`. Field names follow Harbor's `task.toml`; defaults are Harbor's.
 * Legacy forms are normalised at parse time (`version` → `schema_version`, `memory = "2G"` →
 * `memory_mb = 2048`, `storage = "10G"` → `storage_mb`).
 */

/** Harbor's defaults for what a task.toml leaves out; the task parser fills them in. */
export const TASK_DEFAULTS = {
  schema_version: '1.1',
  verifier: { timeout_sec: 600 },
  environment: {
    build_timeout_sec: 600,
    os: 'linux',
    cpus: 1,
    memory_mb: 2048,
    storage_mb: 10240,
    gpus: 0,
    allow_internet: true,
  },
  healthcheck: {
    interval_sec: 5,
    timeout_sec: 30,
    start_period_sec: 0,
    start_interval_sec: 5,
    retries: 3,
  },
} as const;

export const TaskDifficulty = z.enum(['easy', 'medium', 'hard']);
export type TaskDifficulty = z.infer<typeof TaskDifficulty>;

export const TaskAuthor = z.object({ name: z.string(), email: z.string().nullable() });
export type TaskAuthor = z.infer<typeof TaskAuthor>;

/** `[task]`: the package identity of a task (`org/name`). */
export const TaskPackageInfo = z.object({
  name: z.string(),
  description: z.string(),
  authors: z.array(TaskAuthor),
  keywords: z.array(z.string()),
});
export type TaskPackageInfo = z.infer<typeof TaskPackageInfo>;

export const NetworkMode = z.enum(['public', 'no-network', 'allowlist']);
export type NetworkMode = z.infer<typeof NetworkMode>;

export const TaskUser = z.union([z.string(), z.number().int()]).nullable();

/** `[environment].os`: tasks run in Linux containers; `windows` tasks are flagged unsupported. */
export const TaskOs = z.enum(['linux', 'windows']);
export type TaskOs = z.infer<typeof TaskOs>;

/**
 * Where the verifier runs: in the agent's environment (`shared`, Harbor's default) or in a
 * separate one built from `tests/` or `[verifier.environment]`, which sees only the artifacts.
 */
export const VerifierEnvironmentMode = z.enum(['shared', 'separate']);
export type VerifierEnvironmentMode = z.infer<typeof VerifierEnvironmentMode>;

export const TaskAgentConfig = z.object({
  timeout_sec: z.number().positive().nullable(),
  user: TaskUser,
  network_mode: NetworkMode.nullable(),
  allowed_hosts: z.array(z.string()),
});
export type TaskAgentConfig = z.infer<typeof TaskAgentConfig>;

export const TaskSolutionConfig = z.object({ env: z.record(z.string(), z.string()) });
export type TaskSolutionConfig = z.infer<typeof TaskSolutionConfig>;

export const TaskHealthcheck = z.object({
  command: z.string(),
  interval_sec: z.number().nonnegative(),
  timeout_sec: z.number().positive(),
  start_period_sec: z.number().nonnegative(),
  start_interval_sec: z.number().nonnegative(),
  retries: z.number().int().nonnegative(),
});
export type TaskHealthcheck = z.infer<typeof TaskHealthcheck>;

/**
 * How a task's image is had when it names `docker_image` (the operator's OSMOSIS_IMAGE_SOURCE,
 * or `[environment] image_source`): `pull` it; `build` environment/Dockerfile instead;
 * `pull-then-build`: pull, and build environment/Dockerfile when the image cannot be had.
 */
export const ImageSource = z.enum(['pull', 'build', 'pull-then-build']);
export type ImageSource = z.infer<typeof ImageSource>;

export const TaskEnvironmentConfig = z.object({
  build_timeout_sec: z.number().positive(),
  docker_image: z.string().nullable(),
  image_source: ImageSource.nullable()
    .default(null)
    .describe("the task's own choice of how its image is had (null: the operator's OSMOSIS_IMAGE_SOURCE)"),
  os: TaskOs.default(TASK_DEFAULTS.environment.os),
  cpus: z.number().positive(),
  memory_mb: z.number().int().positive(),
  storage_mb: z.number().int().positive(),
  gpus: z.number().int().nonnegative(),
  gpu_types: z.array(z.string()).nullable(),
  allow_internet: z.boolean(),
  network_mode: NetworkMode.nullable(),
  allowed_hosts: z.array(z.string()),
  env: z.record(z.string(), z.string()),
  workdir: z.string().nullable(),
  skills_dir: z.string().nullable(),
  mcp_servers: z.array(z.record(z.string(), z.unknown())),
  healthcheck: TaskHealthcheck.nullable(),
});
export type TaskEnvironmentConfig = z.infer<typeof TaskEnvironmentConfig>;

export const TaskVerifierConfig = z.object({
  timeout_sec: z.number().positive(),
  env: z.record(z.string(), z.string()),
  user: TaskUser,
  network_mode: NetworkMode.nullable(),
  allowed_hosts: z.array(z.string()),
  environment_mode: VerifierEnvironmentMode.nullable()
    .default(null)
    .describe('null: `separate` when `environment` is set, else `shared` (resolveVerifierMode)'),
  environment: TaskEnvironmentConfig.nullable()
    .default(null)
    .describe("`[verifier.environment]`: the separate verifier's environment (same keys as `[environment]`)"),
});
export type TaskVerifierConfig = z.infer<typeof TaskVerifierConfig>;

/**
 * A file or folder of the agent's environment to keep (`artifacts = [...]`, task or step level):
 * collected as `artifacts/<destination or base name>`, and the only things (with /logs/artifacts)
 * a separate verifier receives, at the same path.
 */
export const TaskArtifact = z.object({
  source: z.string().describe("absolute path in the agent's environment"),
  destination: z
    .string()
    .nullable()
    .describe("relative path under the attempt's `artifacts/`; null: the source's base name"),
  exclude: z.array(z.string()),
});
export type TaskArtifact = z.infer<typeof TaskArtifact>;

/** `min_reward` of a step: a number gates the `reward` key, a table each key it names. */
export const StepMinReward = z.union([z.number(), z.record(z.string(), z.number())]).nullable();
export type StepMinReward = z.infer<typeof StepMinReward>;

/** `[[steps]]`: one step of a multi-step task (files under `steps/<name>/`). */
export const TaskStep = z.object({
  name: z.string(),
  agent: z.object({ timeout_sec: z.number().positive().nullable(), user: TaskUser }),
  verifier: z.object({
    timeout_sec: z.number().positive().nullable(),
    env: z.record(z.string(), z.string()),
    user: TaskUser,
    environment_mode: VerifierEnvironmentMode.nullable(),
    environment: TaskEnvironmentConfig.nullable(),
  }),
  min_reward: StepMinReward,
  healthcheck: TaskHealthcheck.nullable(),
  artifacts: z.array(TaskArtifact),
});
export type TaskStep = z.infer<typeof TaskStep>;

/** How a multi-step task's reward is made from its steps' (Harbor's `multi_step_reward_strategy`). */
export const MultiStepRewardStrategy = z.enum(['mean', 'final']);
export type MultiStepRewardStrategy = z.infer<typeof MultiStepRewardStrategy>;

/** The normalised `task.toml`. `metadata` keeps every key the file had, known or not. */
export const TaskConfig = z.object({
  schema_version: z.string(),
  task: TaskPackageInfo.nullable(),
  metadata: z.record(z.string(), z.unknown()),
  verifier: TaskVerifierConfig,
  agent: TaskAgentConfig,
  solution: TaskSolutionConfig,
  environment: TaskEnvironmentConfig,
  source: z.string().nullable(),
  artifacts: z
    .array(TaskArtifact)
    .default([])
    .describe("task-level artifacts, collected after the agent (every step's, in a multi-step task)"),
  steps: z.array(TaskStep).nullable().default(null).describe('`[[steps]]`; null for a single-step task'),
  multi_step_reward_strategy: MultiStepRewardStrategy.nullable()
    .default(null)
    .describe('multi-step only; null means `mean`'),
});
export type TaskConfig = z.infer<typeof TaskConfig>;

export const TaskFileEntry = z.object({ path: z.string(), size: z.number().int().nonnegative() });
export type TaskFileEntry = z.infer<typeof TaskFileEntry>;

/**
 * Everything the platform knows about one task folder. A task that cannot be parsed or run is
 * still listed: `parse_error` (file and line) or `unsupported_reason` says why.
 */
export const TaskManifest = z.object({
  name: z.string(),
  category: z.string().nullable(),
  difficulty: TaskDifficulty.nullable().describe(
    'easy | medium | hard, or null when the source gives none (never inferred)',
  ),
  tags: z.array(z.string()),
  instruction: z.string(),
  config: TaskConfig,
  digest: z.string().describe('sha256 over the sorted relative paths and bytes of every file of the task'),
  env_digest: z.string().describe('sha256 over environment/ and the image settings: the image cache key'),
  files: z.array(TaskFileEntry),
  has_dockerfile: z.boolean(),
  has_solution: z.boolean(),
  unsupported_reason: z.string().nullable(),
  parse_error: z.string().nullable(),
  warnings: z.array(z.string()),
});
export type TaskManifest = z.infer<typeof TaskManifest>;
