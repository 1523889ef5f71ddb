// One attempt as Harbor 0.9's TrialResult (harbor/models/trial/result.py). The platform keeps
// each phase's duration, not its clock times, so the timing blocks are laid end to end from the
// attempt's start: environment setup, agent setup, agent execution, verifier (a multi-step task's
// steps each run their agent then their verifier, in order, after agent setup).
import type { AttemptStepResult } from '@osmosis/contracts';
import type { HarborTrialConfig } from './configs.ts';
import {
  type ExportAgent,
  type ExportAttempt,
  type ExportRun,
  harborModelInfo,
  harborModelName,
  iso,
} from './model.ts';

/** The exception Harbor records for each of the platform's error classes; others are named after the class. */
const EXCEPTION_TYPES: Record<string, string> = {
  agent_timeout: 'AgentTimeoutError',
  verifier_timeout: 'VerifierTimeoutError',
  verifier_missing_reward: 'RewardFileNotFoundError',
  verifier_crash: 'VerifierOutputParseError',
  harness_crash: 'NonZeroAgentExitCodeError',
  cancelled: 'CancelledError',
};

export function harborExceptionType(errorClass: string): string {
  const known = EXCEPTION_TYPES[errorClass];
  if (known) return known;
  const pascal = errorClass
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join('');
  const name = pascal || 'Platform';
  return name.endsWith('Error') ? name : `${name}Error`;
}

function exceptionInfo(errorClass: string | null, message: string | null, at: Date | null) {
  if (!errorClass) return null;
  return {
    exception_type: harborExceptionType(errorClass),
    exception_message: message ?? errorClass,
    // the platform records no traceback: the class and message are the whole story
    exception_traceback: '',
    occurred_at: (at ?? new Date(0)).toISOString(),
  };
}

type Timing = { started_at: string | null; finished_at: string | null } | null;

/** Consecutive blocks of the given durations from `start`; a null duration gives a null block. */
function laidOut(start: Date | null, durations: (number | null)[]): Timing[] {
  let at = start?.getTime() ?? null;
  return durations.map((ms) => {
    if (ms === null || at === null) return null;
    const block = { started_at: new Date(at).toISOString(), finished_at: new Date(at + ms).toISOString() };
    at += ms;
    return block;
  });
}

const rewardsOf = (reward: number | null, rewards: Record<string, number> | null) =>
  rewards && Object.keys(rewards).length > 0 ? { rewards } : reward === null ? null : { rewards: { reward } };

function stepResults(steps: AttemptStepResult[], start: Date | null, finishedAt: Date | null) {
  const blocks = laidOut(
    start,
    steps.flatMap((s) => [s.agent_ms, s.verifier_ms]),
  );
  return steps.map((s, i) => ({
    step_name: s.name,
    agent_result: null,
    verifier_result: rewardsOf(s.reward, s.rewards),
    exception_info: exceptionInfo(s.error_class, s.error_message, finishedAt),
    agent_execution: blocks[2 * i] ?? null,
    verifier: blocks[2 * i + 1] ?? null,
  }));
}

export function harborTrialResult(
  run: ExportRun,
  agent: ExportAgent,
  attempt: ExportAttempt,
  trialName: string,
  config: HarborTrialConfig,
) {
  const [env, setup, agentRun, verifier] = laidOut(attempt.startedAt, [
    attempt.envMs,
    attempt.agentSetupMs,
    attempt.agentMs,
    attempt.verifierMs,
  ]);
  const afterSetup = setup?.finished_at ?? env?.finished_at ?? iso(attempt.startedAt);
  const usage = [attempt.inputTokens, attempt.cacheTokens, attempt.outputTokens, attempt.costUsd];
  return {
    id: attempt.id,
    task_name: attempt.taskName,
    trial_name: trialName,
    trial_uri: `osmosis:runs/${run.name}/attempts/${attempt.id}`,
    task_id: { path: config.task.path },
    source: run.benchmarkKey,
    task_checksum: attempt.taskDigest.replace(/^sha256:/, ''),
    config,
    agent_info: {
      name: agent.harness,
      version: attempt.harnessVersion ?? 'unknown',
      model_info: harborModelInfo(harborModelName(agent)),
    },
    agent_result: usage.every((v) => v === null)
      ? null
      : {
          n_input_tokens: attempt.inputTokens,
          n_cache_tokens: attempt.cacheTokens,
          n_output_tokens: attempt.outputTokens,
          cost_usd: attempt.costUsd,
          rollout_details: null,
          metadata: null,
        },
    verifier_result: rewardsOf(attempt.reward, attempt.rewards),
    exception_info: exceptionInfo(attempt.errorClass, attempt.errorMessage, attempt.finishedAt),
    started_at: iso(attempt.startedAt),
    finished_at: iso(attempt.finishedAt),
    environment_setup: env ?? null,
    agent_setup: setup ?? null,
    agent_execution: attempt.steps ? null : (agentRun ?? null),
    verifier: attempt.steps ? null : (verifier ?? null),
    step_results: attempt.steps
      ? stepResults(attempt.steps, afterSetup ? new Date(afterSetup) : null, attempt.finishedAt)
      : null,
  };
}

export type HarborTrialResult = ReturnType<typeof harborTrialResult>;
