// The operator's maximums for what a task.toml may ask of a sandbox. task.toml is written by a
// benchmark author nobody on the platform vetted, so every size and timeout in it is checked
// against these before the task can be selected (at sync: `unsupported_reason`) and again when an
// attempt starts (a row synced before the operator lowered a limit must not run over it).
//
// GPUs have no maximum here: what limits them is the workers that advertise them (a task
// asking for more than any live worker has waits at dispatch, with the run saying why).
import type { TaskConfig, TaskHealthcheck, TaskManifest } from '@osmosis/contracts';
import { z } from 'zod';

const positive = z.coerce.number({ error: 'must be a number' }).positive('must be greater than 0');
const positiveInt = z.coerce.number({ error: 'must be a number' }).int('must be a whole number').positive();

/** The maximums, as the worker's config holds them (one environment variable each). */
export const TaskLimitsShape = {
  taskMaxCpus: positive,
  taskMaxMemoryMb: positiveInt,
  taskMaxStorageMb: positiveInt,
  taskMaxAgentTimeoutSec: positive,
  taskMaxVerifierTimeoutSec: positive,
  taskMaxBuildTimeoutSec: positive,
  taskMaxAgentSetupTimeoutSec: positive,
  taskMaxHealthcheckSec: positive,
};
export const TaskLimits = z.object(TaskLimitsShape);
export type TaskLimits = z.infer<typeof TaskLimits>;

export const TASK_LIMIT_ENV_NAMES: Record<keyof TaskLimits, string> = {
  taskMaxCpus: 'OSMOSIS_TASK_MAX_CPUS',
  taskMaxMemoryMb: 'OSMOSIS_TASK_MAX_MEMORY_MB',
  taskMaxStorageMb: 'OSMOSIS_TASK_MAX_STORAGE_MB',
  taskMaxAgentTimeoutSec: 'OSMOSIS_TASK_MAX_AGENT_TIMEOUT_SEC',
  taskMaxVerifierTimeoutSec: 'OSMOSIS_TASK_MAX_VERIFIER_TIMEOUT_SEC',
  taskMaxBuildTimeoutSec: 'OSMOSIS_TASK_MAX_BUILD_TIMEOUT_SEC',
  taskMaxAgentSetupTimeoutSec: 'OSMOSIS_TASK_MAX_AGENT_SETUP_TIMEOUT_SEC',
  taskMaxHealthcheckSec: 'OSMOSIS_TASK_MAX_HEALTHCHECK_SEC',
};

/**
 * Fixed (not derived from the host) so that a sync gives the same answer on every worker.
 * Harbor's defaults are 1 CPU, 2 GiB, 10 GiB, 600 s timeouts; these leave room above them.
 */
export const DEFAULT_TASK_LIMITS: TaskLimits = {
  taskMaxCpus: 8,
  taskMaxMemoryMb: 16_384,
  taskMaxStorageMb: 20_480,
  taskMaxAgentTimeoutSec: 14_400,
  taskMaxVerifierTimeoutSec: 3_600,
  taskMaxBuildTimeoutSec: 3_600,
  taskMaxAgentSetupTimeoutSec: 1_800,
  taskMaxHealthcheckSec: 600,
};

/** The limits among a config's keys (the worker's config spreads TaskLimitsShape into its own). */
export function taskLimitsOf(config: Partial<TaskLimits>): TaskLimits {
  const limits = { ...DEFAULT_TASK_LIMITS };
  for (const key of Object.keys(DEFAULT_TASK_LIMITS) as (keyof TaskLimits)[]) {
    const value = config[key];
    if (typeof value === 'number') limits[key] = value;
  }
  return limits;
}

/** What one try of a healthcheck costs at least: a command run in the sandbox is never free. */
const MIN_HEALTHCHECK_TRY_SEC = 1;

/**
 * The longest `[environment.healthcheck]` can keep an attempt waiting before it gives up: the
 * start period, then `retries + 1` counted failures, each a check (up to timeout_sec) and a wait,
 * at least MIN_HEALTHCHECK_TRY_SEC a try (a 1e-12 s timeout and no wait would let 1e12 retries
 * pass as "1 s" and run for ever).
 */
export function healthcheckWorstCaseSec(hc: TaskHealthcheck): number {
  const perTry = Math.max(hc.timeout_sec + hc.interval_sec, MIN_HEALTHCHECK_TRY_SEC);
  return hc.start_period_sec + (hc.retries + 1) * perTry;
}

const above = (what: string, value: number, max: number, limit: keyof TaskLimits): string =>
  `${what} = ${value} is above this platform's maximum of ${max} (${TASK_LIMIT_ENV_NAMES[limit]})`;

/**
 * Everything in a task.toml that asks for more than the operator allows, one sentence each
 * naming the key, the value, the maximum and the setting. Empty when the task fits.
 */
export function taskLimitViolations(config: TaskConfig, limits: TaskLimits): string[] {
  const out: string[] = [];
  const env = config.environment;
  const check = (what: string, value: number, limit: keyof TaskLimits): void => {
    // `!(value <= max)` also refuses NaN
    if (!(value <= limits[limit])) out.push(above(what, value, limits[limit], limit));
  };
  check('environment.cpus', env.cpus, 'taskMaxCpus');
  check('environment.memory_mb', env.memory_mb, 'taskMaxMemoryMb');
  check('environment.storage_mb', env.storage_mb, 'taskMaxStorageMb');
  check('environment.build_timeout_sec', env.build_timeout_sec, 'taskMaxBuildTimeoutSec');
  if (config.agent.timeout_sec !== null) {
    check('agent.timeout_sec', config.agent.timeout_sec, 'taskMaxAgentTimeoutSec');
  }
  check('verifier.timeout_sec', config.verifier.timeout_sec, 'taskMaxVerifierTimeoutSec');
  const checkHealthcheck = (what: string, hc: TaskHealthcheck | null) => {
    if (!hc) return;
    const worst = healthcheckWorstCaseSec(hc);
    if (!(worst <= limits.taskMaxHealthcheckSec)) {
      out.push(
        `${what} may wait up to ${worst} s (start_period_sec + (retries + 1) × ` +
          `(timeout_sec + interval_sec, at least ${MIN_HEALTHCHECK_TRY_SEC} s a try)), above this platform's maximum of ${limits.taskMaxHealthcheckSec} ` +
          `(${TASK_LIMIT_ENV_NAMES.taskMaxHealthcheckSec})`,
      );
    }
  };
  checkHealthcheck('environment.healthcheck', env.healthcheck);
  // the separate verifiers' environments and every step's own timeouts and healthcheck
  const verifierEnvs: [string, TaskConfig['environment'] | null][] = [
    ['verifier.environment', config.verifier.environment ?? null],
  ];
  for (const step of config.steps ?? []) {
    const at = `steps[${step.name}]`;
    if (step.agent.timeout_sec !== null)
      check(`${at}.agent.timeout_sec`, step.agent.timeout_sec, 'taskMaxAgentTimeoutSec');
    if (step.verifier.timeout_sec !== null) {
      check(`${at}.verifier.timeout_sec`, step.verifier.timeout_sec, 'taskMaxVerifierTimeoutSec');
    }
    checkHealthcheck(`${at}.healthcheck`, step.healthcheck);
    verifierEnvs.push([`${at}.verifier.environment`, step.verifier.environment]);
  }
  for (const [what, venv] of verifierEnvs) {
    if (!venv) continue;
    check(`${what}.cpus`, venv.cpus, 'taskMaxCpus');
    check(`${what}.memory_mb`, venv.memory_mb, 'taskMaxMemoryMb');
    check(`${what}.storage_mb`, venv.storage_mb, 'taskMaxStorageMb');
    check(`${what}.build_timeout_sec`, venv.build_timeout_sec, 'taskMaxBuildTimeoutSec');
  }
  return out;
}

/**
 * The manifest with the limit violations added to its `unsupported_reason`, as benchmark sync
 * stores it. A task whose task.toml did not parse keeps its parse error and nothing else.
 */
export function withTaskLimits(manifest: TaskManifest, limits: TaskLimits): TaskManifest {
  if (manifest.parse_error) return manifest;
  const violations = taskLimitViolations(manifest.config, limits);
  if (violations.length === 0) return manifest;
  const reasons = [manifest.unsupported_reason, ...violations].filter(Boolean);
  return { ...manifest, unsupported_reason: reasons.join('; ') };
}

/** A step's own agent and verifier timeouts (seconds, before the multiplier) over the task's. */
export interface StepTimeoutSource {
  agentTimeoutSec: number | null;
  verifierTimeoutSec: number;
}

export interface AttemptTimeouts {
  agentMs: number;
  setupMs: number;
  verifierMs: number;
  buildMs: number;
  /** One sentence per timeout the multiplier pushed above its maximum (for the event log). */
  capped: string[];
}

/**
 * The timeouts an attempt runs with: the task's (or the platform's default) × the run's
 * `timeout_multiplier`, each capped at the operator's maximum. A task over a maximum on its own
 * is refused by taskLimitViolations; the cap is for the multiplier, which the member chooses.
 */
export function attemptTimeouts(
  config: TaskConfig,
  multiplier: number,
  limits: TaskLimits,
  defaults: { agentSec: number; setupSec: number },
  step?: StepTimeoutSource,
): AttemptTimeouts {
  const m = multiplier > 0 && Number.isFinite(multiplier) ? multiplier : 1;
  const capped: string[] = [];
  const capMs = (what: string, baseSec: number, multiplied: boolean, limit: keyof TaskLimits): number => {
    const wanted = multiplied ? baseSec * m : baseSec;
    const max = limits[limit];
    if (wanted <= max) return Math.round(wanted * 1000);
    capped.push(
      `${what} ${wanted} s${multiplied && m !== 1 ? ` (${baseSec} s × timeout_multiplier ${m})` : ''} ` +
        `capped at this platform's maximum of ${max} s (${TASK_LIMIT_ENV_NAMES[limit]})`,
    );
    return Math.round(max * 1000);
  };
  return {
    agentMs: capMs(
      'agent timeout',
      (step ? step.agentTimeoutSec : config.agent.timeout_sec) ?? defaults.agentSec,
      true,
      'taskMaxAgentTimeoutSec',
    ),
    setupMs: capMs('agent setup timeout', defaults.setupSec, true, 'taskMaxAgentSetupTimeoutSec'),
    verifierMs: capMs(
      'verifier timeout',
      step ? step.verifierTimeoutSec : config.verifier.timeout_sec,
      true,
      'taskMaxVerifierTimeoutSec',
    ),
    buildMs: capMs('build timeout', config.environment.build_timeout_sec, false, 'taskMaxBuildTimeoutSec'),
    capped,
  };
}
