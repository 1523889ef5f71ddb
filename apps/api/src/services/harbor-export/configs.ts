// Harbor 0.9's TrialConfig and JobConfig (harbor/models/{trial,job}/config.py) of a run, as
// `model_dump_json` writes them: every field present, defaults where the platform has no
// counterpart. The platform has one timeout knob (`[execution] timeout_multiplier`) and no agent,
// verifier or resource overrides, so those fields are always null: what the leaderboard rules
// (leaderboard-rules.ts) read.
import type { ExportAgent, ExportRun } from './model.ts';
import { harborModelName } from './model.ts';

/** Harbor's RetryConfig default exclusions: the platform never retries these either. */
const RETRY_EXCLUDED = [
  'AgentTimeoutError',
  'RewardFileEmptyError',
  'RewardFileNotFoundError',
  'VerifierOutputParseError',
  'VerifierTimeoutError',
];

export function harborAgentConfig(agent: ExportAgent) {
  return {
    name: agent.harness,
    import_path: null,
    model_name: harborModelName(agent),
    skills: [],
    override_timeout_sec: null,
    override_setup_timeout_sec: null,
    max_timeout_sec: null,
    kwargs: agent.params,
    env: {},
    mcp_servers: [],
  };
}

export function harborEnvironmentConfig() {
  return {
    type: 'docker',
    import_path: null,
    force_build: false,
    delete: true,
    cpu_enforcement_policy: 'auto',
    memory_enforcement_policy: 'auto',
    override_cpus: null,
    override_memory_mb: null,
    override_storage_mb: null,
    override_gpus: null,
    override_tpu: null,
    mounts: null,
    extra_docker_compose: [],
    env: {},
    kwargs: {},
  };
}

/** VerifierConfig as dumped: `import_path` (None) and `kwargs` (empty) are left out, as Harbor's exclude_if does. */
export function harborVerifierConfig() {
  return { override_timeout_sec: null, max_timeout_sec: null, env: {}, disable: false };
}

/** A task as Harbor's TaskConfig: its path under the benchmark, the benchmark as its source (dataset). */
export function harborTaskConfig(run: ExportRun, taskName: string) {
  return {
    path: `${run.benchmarkKey}/${taskName}`,
    git_url: null,
    git_commit_id: null,
    name: null,
    ref: null,
    overwrite: false,
    download_dir: null,
    source: run.benchmarkKey,
  };
}

const multipliers = (run: ExportRun) => ({
  timeout_multiplier: run.timeoutMultiplier,
  agent_timeout_multiplier: null,
  verifier_timeout_multiplier: null,
  agent_setup_timeout_multiplier: null,
  environment_build_timeout_multiplier: null,
});

export function harborTrialConfig(run: ExportRun, agent: ExportAgent, taskName: string, trialName: string) {
  return {
    task: harborTaskConfig(run, taskName),
    trial_name: trialName,
    trials_dir: `jobs/${run.name}`,
    ...multipliers(run),
    agent: harborAgentConfig(agent),
    environment: harborEnvironmentConfig(),
    verifier: harborVerifierConfig(),
    artifacts: [],
    extra_instruction_paths: [],
    job_id: run.id,
  };
}

export type HarborTrialConfig = ReturnType<typeof harborTrialConfig>;

export function harborJobConfig(run: ExportRun) {
  return {
    job_name: run.name,
    jobs_dir: 'jobs',
    n_attempts: run.attemptsPerTask,
    ...multipliers(run),
    debug: false,
    n_concurrent_trials: run.maxConcurrentAttempts,
    quiet: false,
    retry: {
      max_retries: run.maxRetries,
      include_exceptions: null,
      exclude_exceptions: RETRY_EXCLUDED,
      wait_multiplier: 1.0,
      min_wait_sec: 1.0,
      max_wait_sec: 60.0,
    },
    environment: harborEnvironmentConfig(),
    verifier: harborVerifierConfig(),
    metrics: [],
    agents: run.agents.map(harborAgentConfig),
    datasets: [],
    tasks: run.taskNames.map((t) => harborTaskConfig(run, t)),
    artifacts: [],
    extra_instruction_paths: [],
  };
}
