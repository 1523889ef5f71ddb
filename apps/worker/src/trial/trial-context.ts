// The state one trial carries through its steps: the scrubbed event sink, the abort and storage
// races, the timed phases, the result being filled and the files to store. Each step of the trial
// (environments/prepare.ts, steps.ts, verifiers/, collect.ts) is a function of this context.
import type { AttemptErrorClass, TaskConfig } from '@osmosis/contracts';
import { createScrubber, type Scrubber } from '@osmosis/core';
import type { PreparedTools } from '@osmosis/harness';
import {
  type AttemptTimeouts,
  attemptTimeouts,
  DEFAULT_TASK_LIMITS,
  type TrialStepSpec,
} from '@osmosis/tasks';
import type { EnvironmentBackend, TrialEnvironment } from './environments/backend.ts';
import {
  createEnvironmentFactory,
  dockerEnvironmentRows,
  type EnvironmentFactory,
} from './environments/factory.ts';
import { scrubEvent, storableText } from './output-scrub.ts';
import { storageBreachRejection } from './sandbox-guards.ts';
import type {
  AttemptEvent,
  AttemptInput,
  AttemptPhase,
  Emit,
  PipelineDeps,
  TrialResult,
} from './trial-types.ts';

export class Cancelled extends Error {}

/** A failure of one part of the trial, classified where it happened (classes: contracts). */
export class PhaseError extends Error {
  readonly errorClass: AttemptErrorClass;
  /** a moment's failure (a registry's timeout or 5xx): the attempt re-runs without using a retry */
  readonly transient: boolean;
  constructor(errorClass: AttemptErrorClass, message: string, options: { transient?: boolean } = {}) {
    super(message);
    this.errorClass = errorClass;
    this.transient = options.transient ?? false;
  }
}

export function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not finish within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

export interface TrialContext {
  input: AttemptInput;
  deps: PipelineDeps;
  config: TaskConfig;
  scrubber: Scrubber;
  scrub(text: string): string;
  emit: Emit;
  signal: AbortSignal;
  result: TrialResult;
  /** absolute host folder of the artifact files */
  artifactsDir: string;
  /** files the platform writes (build log, harness files, test output), keyed by artifact path */
  extraFiles: { path: string; content: string | Buffer }[];
  /** the task-level timeouts (a step's are timeoutsOf(step)) */
  timeouts: AttemptTimeouts;
  timeoutsOf(step: TrialStepSpec): AttemptTimeouts;
  /** the backends this trial may start environments with (factory.ts) */
  environments: EnvironmentFactory;
  /** the backend of the agent's environment, once chosen */
  backend: EnvironmentBackend | undefined;
  /** the agent's environment, once prepared */
  env: TrialEnvironment | undefined;
  /** an environment being started (removed as soon as it exists after a cancel) */
  pendingEnv: Promise<TrialEnvironment> | undefined;
  /** the agent tools mounted in `main` and whether main reaches the internet (HarnessContext's) */
  agentTools: { tools: PreparedTools['tools']; internet: boolean } | undefined;
  currentPhase: AttemptPhase;
  /** the prefix of a step whose /logs were not downloaded from main yet (collected at teardown) */
  uncollected: string | null;
  /** races a promise against the abort and main's storage watchdog */
  guard<T>(promise: Promise<T>): Promise<T>;
  /** ms spent per part of the trial (image, sandbox_create, copy_in, …), summed over steps */
  timings: Record<string, number>;
  /** runs `run`, adding its time to timings[name] (reported with the attempt's last event) */
  timed<T>(name: string, run: () => Promise<T>): Promise<T>;
  /** runs a timed phase (agent and verifier time add up over steps) */
  phase<T>(name: AttemptPhase, run: () => Promise<T>): Promise<T>;
  /** from now on, main's storage breach ends whatever is awaited */
  watchStorage(env: TrialEnvironment): void;
  /** stops reporting (the result is final) and detaches from the signal */
  finish(): void;
  /** throws Cancelled when the trial was stopped */
  checkCancelled(): void;
}

export function emptyResult(): TrialResult {
  return {
    outcome: 'errored',
    reward: null,
    rewards: null,
    errorClass: null,
    errorMessage: null,
    envMs: null,
    agentSetupMs: null,
    agentMs: null,
    verifierMs: null,
    totalMs: 0,
    agentCommandMs: null,
    verifierCommandMs: null,
    agentExitCode: null,
    agentTimedOut: null,
    inputTokens: null,
    outputTokens: null,
    cacheTokens: null,
    costUsd: null,
    judgeInputTokens: null,
    judgeOutputTokens: null,
    judgeCostUsd: null,
    judgeTemplate: null,
    harnessInfo: null,
    steps: null,
    image: null,
    imageInfo: null,
    imageBuilt: false,
    buildLog: null,
    verifierExitCode: null,
    artifacts: [],
    events: [],
    notes: [],
  };
}

const PHASE_FIELD: Partial<Record<AttemptPhase, 'envMs' | 'agentSetupMs' | 'agentMs' | 'verifierMs'>> = {
  environment: 'envMs',
  agent_setup: 'agentSetupMs',
  agent: 'agentMs',
  verifier: 'verifierMs',
};

export function createTrialContext(
  input: AttemptInput,
  deps: PipelineDeps,
  artifactsDir: string,
): TrialContext {
  const scrubber = createScrubber([...input.secrets], { minLength: input.scrubMinLength });
  const multiplier = input.timeoutMultiplier > 0 ? input.timeoutMultiplier : 1;
  const config = input.task.config;
  const limits = deps.taskLimits ?? DEFAULT_TASK_LIMITS;
  const defaults = {
    agentSec: (deps.defaultAgentTimeoutMs ?? 600_000) / 1000,
    setupSec: (deps.agentSetupTimeoutMs ?? 600_000) / 1000,
  };
  const result = emptyResult();
  let finished = false;
  const emit: Emit = (event) => {
    // A harness abandoned by a cancel may still log: nothing is reported after the result.
    if (finished) return;
    const clean: AttemptEvent = { timestamp: new Date(), ...scrubEvent(event, scrubber) };
    result.events.push(clean);
    try {
      input.onEvent?.(clean);
    } catch {
      // a broken sink must not break the attempt
    }
  };
  const signal = input.signal ?? new AbortController().signal;
  let rejectAborted: (error: Error) => void = () => {};
  const aborted = new Promise<never>((_, reject) => {
    rejectAborted = reject;
  });
  aborted.catch(() => undefined);
  let storageBreach: Promise<never> = new Promise<never>(() => {});
  const ctx: TrialContext = {
    input,
    deps,
    config,
    scrubber,
    // an error message may quote what a sandbox wrote (a reward's name): stored, it must hold no NUL
    scrub: (text) => storableText(scrubber.text(text)),
    emit,
    signal,
    result,
    artifactsDir,
    extraFiles: [],
    timeouts: attemptTimeouts(config, multiplier, limits, defaults),
    timeoutsOf: (step) => attemptTimeouts(config, multiplier, limits, defaults, step),
    environments: deps.environments ?? createEnvironmentFactory(dockerEnvironmentRows(deps)),
    backend: undefined,
    env: undefined,
    pendingEnv: undefined,
    agentTools: undefined,
    currentPhase: 'environment',
    uncollected: null,
    guard: (promise) => Promise.race([promise, aborted, storageBreach]),
    timings: {},
    async timed(name, run) {
      const t0 = Date.now();
      try {
        return await run();
      } finally {
        ctx.timings[name] = (ctx.timings[name] ?? 0) + (Date.now() - t0);
      }
    },
    async phase(name, run) {
      const t0 = Date.now();
      ctx.currentPhase = name;
      emit({ level: 'info', step: name, message: `${name} started` });
      try {
        return await ctx.guard(run());
      } finally {
        const field = PHASE_FIELD[name];
        if (field)
          result[field] =
            (name === 'agent' || name === 'verifier' ? (result[field] ?? 0) : 0) + (Date.now() - t0);
      }
    },
    watchStorage(env) {
      storageBreach = storageBreachRejection(env.main);
    },
    finish() {
      finished = true;
      signal.removeEventListener('abort', onAbort);
    },
    checkCancelled() {
      if (signal.aborted) throw new Cancelled('the attempt was cancelled');
    },
  };
  // Abort: kill the environment at once; every guarded await rejects.
  const onAbort = (): void => {
    rejectAborted(new Cancelled('the attempt was cancelled'));
    ctx.env?.destroy().catch(() => undefined);
  };
  if (signal.aborted) onAbort();
  else signal.addEventListener('abort', onAbort, { once: true });
  return ctx;
}
