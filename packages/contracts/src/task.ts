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

export const TaskAuthor = z.object({
  name: z.string().describe("The author's name"),
  email: z.string().nullable().describe("The author's e-mail; null when not given"),
});
export type TaskAuthor = z.infer<typeof TaskAuthor>;

/** `[task]`: the package identity of a task (`org/name`). */
export const TaskPackageInfo = z.object({
  name: z.string().describe("The task's package name (`org/name`)"),
  description: z.string().describe('What the task is, in a sentence'),
  authors: z.array(TaskAuthor).describe('Who wrote it'),
  keywords: z.array(z.string()).describe('Search keywords'),
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
  timeout_sec: z
    .number()
    .positive()
    .nullable()
    .describe(
      "The agent's time limit, seconds (before the run's timeout_multiplier); null: the harness's default",
    ),
  user: TaskUser.describe("User the agent runs as (name or uid); null: the image's default"),
  network_mode: NetworkMode.nullable().describe(
    'public, no-network or allowlist; null: as `[environment]` says',
  ),
  allowed_hosts: z.array(z.string()).describe('Hosts the agent may reach when network_mode is allowlist'),
});
export type TaskAgentConfig = z.infer<typeof TaskAgentConfig>;

export const TaskSolutionConfig = z.object({
  env: z
    .record(z.string(), z.string())
    .describe('Environment variables of the reference solution (solution/solve.sh)'),
});
export type TaskSolutionConfig = z.infer<typeof TaskSolutionConfig>;

export const TaskHealthcheck = z.object({
  command: z.string().describe('Command run in the environment; exit 0 means healthy'),
  interval_sec: z.number().nonnegative().describe('Seconds between checks'),
  timeout_sec: z.number().positive().describe('Seconds one check may take'),
  start_period_sec: z
    .number()
    .nonnegative()
    .describe('Seconds after start during which failures do not count'),
  start_interval_sec: z.number().nonnegative().describe('Seconds between checks during the start period'),
  retries: z.number().int().nonnegative().describe('Failed checks in a row that make it unhealthy'),
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
  build_timeout_sec: z.number().positive().describe('Time limit of building the image, seconds'),
  docker_image: z
    .string()
    .nullable()
    .describe('Prebuilt image to run; null: built from environment/Dockerfile'),
  image_source: ImageSource.nullable()
    .default(null)
    .describe("the task's own choice of how its image is had (null: the operator's OSMOSIS_IMAGE_SOURCE)"),
  os: TaskOs.default(TASK_DEFAULTS.environment.os).describe(
    'linux, or windows (unsupported: such tasks are flagged)',
  ),
  cpus: z.number().positive().describe('CPUs the environment gets'),
  memory_mb: z.number().int().positive().describe('Memory limit, MiB'),
  storage_mb: z.number().int().positive().describe('Disk limit, MiB'),
  gpus: z.number().int().nonnegative().describe('GPUs it needs (0: none)'),
  gpu_types: z.array(z.string()).nullable().describe('GPU models it accepts; null: any'),
  allow_internet: z.boolean().describe('Whether the environment may reach the internet'),
  network_mode: NetworkMode.nullable().describe('public, no-network or allowlist; null: from allow_internet'),
  allowed_hosts: z.array(z.string()).describe('Hosts reachable when network_mode is allowlist'),
  env: z.record(z.string(), z.string()).describe('Environment variables set in the environment'),
  workdir: z.string().nullable().describe("Working directory of the agent; null: the image's"),
  skills_dir: z.string().nullable().describe('Folder of agent skills in the environment; null: none'),
  mcp_servers: z
    .array(z.record(z.string(), z.unknown()))
    .describe('MCP servers offered to the agent, as task.toml gives them'),
  healthcheck: TaskHealthcheck.nullable().describe(
    'Check the environment must pass before the agent starts; null: none',
  ),
});
export type TaskEnvironmentConfig = z.infer<typeof TaskEnvironmentConfig>;

export const TaskVerifierConfig = z.object({
  timeout_sec: z
    .number()
    .positive()
    .describe("The verifier's time limit, seconds (before timeout_multiplier)"),
  env: z.record(z.string(), z.string()).describe('Environment variables of the verifier (tests/test.sh)'),
  user: TaskUser.describe("User the verifier runs as; null: the image's default"),
  network_mode: NetworkMode.nullable().describe(
    'public, no-network or allowlist; null: as `[environment]` says',
  ),
  allowed_hosts: z.array(z.string()).describe('Hosts the verifier may reach when network_mode is allowlist'),
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
  exclude: z.array(z.string()).describe('Glob patterns left out of a folder'),
});
export type TaskArtifact = z.infer<typeof TaskArtifact>;

/** `min_reward` of a step: a number gates the `reward` key, a table each key it names. */
export const StepMinReward = z.union([z.number(), z.record(z.string(), z.number())]).nullable();
export type StepMinReward = z.infer<typeof StepMinReward>;

/** `[[steps]]`: one step of a multi-step task (files under `steps/<name>/`). */
export const TaskStep = z.object({
  name: z.string().describe("The step's name (its files are under steps/<name>/)"),
  agent: z
    .object({
      timeout_sec: z
        .number()
        .positive()
        .nullable()
        .describe("The agent's time limit in this step, seconds; null: the task's"),
      user: TaskUser.describe("User the agent runs as; null: the task's"),
    })
    .describe("The agent's settings for this step"),
  verifier: z
    .object({
      timeout_sec: z
        .number()
        .positive()
        .nullable()
        .describe("The verifier's time limit in this step, seconds; null: the task's"),
      env: z.record(z.string(), z.string()).describe("Environment variables of this step's verifier"),
      user: TaskUser.describe("User this step's verifier runs as; null: the task's"),
      environment_mode: VerifierEnvironmentMode.nullable().describe(
        "shared or separate; null: as the task's verifier",
      ),
      environment: TaskEnvironmentConfig.nullable().describe(
        "This step's separate verifier environment; null: none",
      ),
    })
    .describe("The verifier's settings for this step"),
  min_reward: StepMinReward.describe(
    'Reward the step must reach for later steps to run (a number, or a minimum per reward key); null: no gate',
  ),
  healthcheck: TaskHealthcheck.nullable().describe("This step's health check; null: the task's"),
  artifacts: z.array(TaskArtifact).describe('Files to keep after this step'),
});
export type TaskStep = z.infer<typeof TaskStep>;

/** How a multi-step task's reward is made from its steps' (Harbor's `multi_step_reward_strategy`). */
export const MultiStepRewardStrategy = z.enum(['mean', 'final']);
export type MultiStepRewardStrategy = z.infer<typeof MultiStepRewardStrategy>;

/** The normalised `task.toml`. `metadata` keeps every key the file had, known or not. */
export const TaskConfig = z.object({
  schema_version: z.string().describe('The task.toml format version'),
  task: TaskPackageInfo.nullable().describe('`[task]`: package identity; null when the file has none'),
  metadata: z
    .record(z.string(), z.unknown())
    .describe('`[metadata]`: every key the file had (difficulty, category, tags, others)'),
  verifier: TaskVerifierConfig.describe('`[verifier]`'),
  agent: TaskAgentConfig.describe('`[agent]`'),
  solution: TaskSolutionConfig.describe('`[solution]`'),
  environment: TaskEnvironmentConfig.describe('`[environment]`'),
  source: z.string().nullable().describe('Where the task comes from (a URL or note); null when not given'),
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

export const TaskFileEntry = z.object({
  path: z.string().describe('Path relative to the task folder'),
  size: z.number().int().nonnegative().describe('Size in bytes'),
});
export type TaskFileEntry = z.infer<typeof TaskFileEntry>;

/**
 * Everything the platform knows about one task folder. A task that cannot be parsed or run is
 * still listed: `parse_error` (file and line) or `unsupported_reason` says why.
 */
export const TaskManifest = z.object({
  name: z.string().describe("The task's name, unique in the benchmark"),
  category: z.string().nullable().describe('Its category; null when not given'),
  difficulty: TaskDifficulty.nullable().describe(
    'easy | medium | hard, or null when the source gives none (never inferred)',
  ),
  tags: z.array(z.string()).describe('Its tags'),
  instruction: z.string().describe('instruction.md: what the agent is asked to do'),
  config: TaskConfig.describe('The normalised task.toml'),
  digest: z.string().describe('sha256 over the sorted relative paths and bytes of every file of the task'),
  env_digest: z.string().describe('sha256 over environment/ and the image settings: the image cache key'),
  files: z.array(TaskFileEntry).describe('Every file of the task folder'),
  has_dockerfile: z.boolean().describe('Whether environment/Dockerfile exists'),
  has_solution: z.boolean().describe('Whether a reference solution (solution/solve.sh) exists'),
  unsupported_reason: z
    .string()
    .nullable()
    .describe('Why the platform cannot run it (e.g. a windows task); null when it can'),
  parse_error: z
    .string()
    .nullable()
    .describe('Why its files could not be read (file and line); null when they could'),
  warnings: z.array(z.string()).describe('Problems that do not stop it from running'),
});
export type TaskManifest = z.infer<typeof TaskManifest>;
