// A Harbor trial's result.json as one of our attempts: its rewards and the outcome they give
// against the benchmark's pass threshold (the `reward` key or the only value, as the worker
// reads a verifier's rewards), its phase timings, tokens and cost, and its exception. A trial
// with no reward (no verifier result, an exception before the verifier, a NaN reward Harbor
// stored as null) is errored, with Harbor's exception type as the error class.
import type { HarborTrialResult } from '@osmosis/contracts';

type Timing = HarborTrialResult['agent_execution'];

export interface ImportedAttempt {
  outcome: 'passed' | 'failed' | 'errored';
  reward: number | null;
  rewards: Record<string, number> | null;
  errorClass: string | null;
  errorMessage: string | null;
  costUsd: number | null;
  inputTokens: number | null;
  outputTokens: number | null;
  cacheTokens: number | null;
  envMs: number | null;
  agentSetupMs: number | null;
  agentMs: number | null;
  verifierMs: number | null;
  agentTimedOut: boolean | null;
  startedAt: Date | null;
  finishedAt: Date | null;
}

const MAX_INT4 = 2_147_483_647;

function spanMs(timing: Timing): number | null {
  if (!timing?.started_at || !timing.finished_at) return null;
  const ms = Date.parse(timing.finished_at) - Date.parse(timing.started_at);
  return Number.isFinite(ms) && ms >= 0 && ms <= MAX_INT4 ? Math.round(ms) : null;
}

const date = (s: string | null | undefined): Date | null => (s ? new Date(s) : null);
const int4 = (n: number | null | undefined): number | null => (n == null || n > MAX_INT4 ? null : n);

/** The reward of a rewards map: its `reward` key or its only value (null: none, or not a number). */
function pickReward(rewards: Record<string, number | null>): { reward: number | null; why: string } {
  const keys = Object.keys(rewards);
  const key = Object.hasOwn(rewards, 'reward') ? 'reward' : keys.length === 1 ? keys[0]! : null;
  if (key === null)
    return {
      reward: null,
      why: keys.length
        ? `verifier_result.rewards has several values (${keys.join(', ')}) and no "reward" key`
        : 'verifier_result.rewards is empty',
    };
  const value = rewards[key];
  if (value === null || value === undefined)
    return {
      reward: null,
      why: `verifier_result.rewards.${key} is null (Harbor writes NaN and inf as null)`,
    };
  return { reward: value, why: '' };
}

export function trialAttempt(result: HarborTrialResult, passThreshold: number): ImportedAttempt {
  const usage = result.agent_result ?? null;
  const exception = result.exception_info ?? null;
  const rewards = result.verifier_result?.rewards ?? null;
  const picked = rewards ? pickReward(rewards) : { reward: null, why: 'no verifier result' };
  const scored = picked.reward !== null;
  const finite = rewards
    ? Object.fromEntries(Object.entries(rewards).filter((e): e is [string, number] => e[1] !== null))
    : null;
  return {
    outcome: scored ? ((picked.reward as number) >= passThreshold ? 'passed' : 'failed') : 'errored',
    reward: picked.reward,
    rewards: finite,
    errorClass: scored ? null : (exception?.exception_type ?? 'verifier_missing_reward'),
    errorMessage: scored
      ? null
      : exception
        ? `${exception.exception_type}: ${exception.exception_message}`.slice(0, 4000)
        : `imported trial has no reward: ${picked.why}`,
    costUsd: usage?.cost_usd ?? null,
    inputTokens: int4(usage?.n_input_tokens),
    outputTokens: int4(usage?.n_output_tokens),
    cacheTokens: int4(usage?.n_cache_tokens),
    envMs: spanMs(result.environment_setup),
    agentSetupMs: spanMs(result.agent_setup),
    agentMs: spanMs(result.agent_execution),
    verifierMs: spanMs(result.verifier),
    agentTimedOut: exception ? exception.exception_type === 'AgentTimeoutError' : null,
    startedAt: date(result.started_at),
    finishedAt: date(result.finished_at),
  };
}

/** The agent of a trial as a run agent: Harbor's agent name as the harness, provider/model as the model. */
export function trialAgent(result: HarborTrialResult): { harness: string; model: string } {
  const info = result.agent_info.model_info;
  const model = info ? (info.provider ? `${info.provider}/${info.name}` : info.name) : 'none';
  return { harness: result.agent_info.name, model };
}
