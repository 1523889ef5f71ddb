// The shape of a task as the trial runs it: its steps (one implicit step for a single-step task),
// where each step's files are, and where its verifier runs. One set of rules for the sync (what
// must exist) and the worker (what to run), following Harbor 0.9's resolution order.
import type {
  StepMinReward,
  TaskArtifact,
  TaskConfig,
  TaskEnvironmentConfig,
  TaskHealthcheck,
  TaskStep,
  VerifierEnvironmentMode,
} from '@osmosis/contracts';

/** One step of a trial: a multi-step task's `[[steps]]` entry, or the whole single-step task. */
export interface TrialStepSpec {
  /** the step's name, null for a single-step task */
  name: string | null;
  /** task-relative folder holding instruction.md, tests/, solution/ (and workdir/): '' or `steps/<name>` */
  dir: string;
  agentTimeoutSec: number | null;
  agentUser: string | number | null;
  verifierTimeoutSec: number;
  verifierEnv: Record<string, string>;
  verifierUser: string | number | null;
  verifierMode: VerifierEnvironmentMode;
  /** the separate verifier's environment settings (null in shared mode) */
  verifierEnvironment: TaskEnvironmentConfig | null;
  minReward: StepMinReward;
  healthcheck: TaskHealthcheck | null;
  /** task-level then step-level artifacts */
  artifacts: TaskArtifact[];
}

function explicitMode(v: { environment_mode: VerifierEnvironmentMode | null; environment: unknown }) {
  if (v.environment_mode) return v.environment_mode;
  return v.environment ? ('separate' as const) : null;
}

/** Harbor's order: the step's explicit mode, a step environment implies separate, the task's, shared. */
export function resolveVerifierMode(config: TaskConfig, step: TaskStep | null): VerifierEnvironmentMode {
  return (step ? explicitMode(step.verifier) : null) ?? explicitMode(config.verifier) ?? 'shared';
}

/** The separate verifier's environment: the step's, the task's `[verifier.environment]`, or a copy of `[environment]`. */
export function verifierEnvironmentOf(
  config: TaskConfig,
  step: TaskStep | null,
): TaskEnvironmentConfig | null {
  if (resolveVerifierMode(config, step) !== 'separate') return null;
  return step?.verifier.environment ?? config.verifier.environment ?? structuredClone(config.environment);
}

export function isMultiStep(config: TaskConfig): boolean {
  return Array.isArray(config.steps) && config.steps.length > 0;
}

/** The steps the trial runs, in order. */
export function trialSteps(config: TaskConfig): TrialStepSpec[] {
  if (!isMultiStep(config)) {
    return [
      {
        name: null,
        dir: '',
        agentTimeoutSec: config.agent.timeout_sec,
        agentUser: config.agent.user,
        verifierTimeoutSec: config.verifier.timeout_sec,
        verifierEnv: { ...config.verifier.env },
        verifierUser: config.verifier.user,
        verifierMode: resolveVerifierMode(config, null),
        verifierEnvironment: verifierEnvironmentOf(config, null),
        minReward: null,
        healthcheck: null,
        artifacts: [...(config.artifacts ?? [])],
      },
    ];
  }
  return (config.steps ?? []).map((step) => ({
    name: step.name,
    dir: `steps/${step.name}`,
    agentTimeoutSec: step.agent.timeout_sec ?? config.agent.timeout_sec,
    agentUser: step.agent.user ?? config.agent.user,
    verifierTimeoutSec: step.verifier.timeout_sec ?? config.verifier.timeout_sec,
    verifierEnv: { ...config.verifier.env, ...step.verifier.env },
    verifierUser: step.verifier.user ?? config.verifier.user,
    verifierMode: resolveVerifierMode(config, step),
    verifierEnvironment: verifierEnvironmentOf(config, step),
    minReward: step.min_reward,
    healthcheck: step.healthcheck,
    artifacts: [...(config.artifacts ?? []), ...step.artifacts],
  }));
}

/**
 * The folder a step's separate verifier image is built from (Harbor: the step's tests/ when it
 * exists, else tests/), or null when the environment names a prebuilt image.
 */
export function separateVerifierContext(
  step: TrialStepSpec,
  has: (taskRelativePath: string) => boolean,
): string | null {
  if (step.verifierEnvironment?.docker_image) return null;
  if (step.name && has(`${step.dir}/tests/Dockerfile`)) return `${step.dir}/tests`;
  return 'tests';
}

/**
 * The test script of a step run in shared mode: the step's own tests/test.sh, else tests/test.sh
 * (both folders are uploaded to /tests, the step's last). Null when neither exists.
 */
export function sharedTestScript(
  step: TrialStepSpec,
  has: (taskRelativePath: string) => boolean,
): string | null {
  if (step.name && has(`${step.dir}/tests/test.sh`)) return `${step.dir}/tests/test.sh`;
  return has('tests/test.sh') ? 'tests/test.sh' : null;
}
