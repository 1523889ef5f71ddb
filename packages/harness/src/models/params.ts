// What terminus-2 puts in each model request, decided as its reference's transport (LiteLLM
// 1.83 with drop_params) decides it: the temperature (the profile's default unless configured:
// 0.7 for Harbor 0.6.4, none for 0.9; dropped for OpenAI reasoning models that only take 1), reasoning effort, Claude thinking budgets, the
// Anthropic output cap, and prompt caching for Claude models. docs/terminus-2.md, "Limits and
// model parameters".
import {
  type AgentParams,
  ANTHROPIC_EFFORT_BUDGETS,
  type EffectiveModelParams,
  MIN_THINKING_TOKENS,
  TERMINUS2_DEFAULT_TEMPERATURE,
} from '@osmosis/contracts';
import type { ResolvedModel } from './providers.ts';

/** LiteLLM's default max_tokens for Anthropic, and what it adds to a thinking budget. */
export const LITELLM_ANTHROPIC_MAX_TOKENS = 4096;

/** Request fields for the wire builders. */
export interface RequestParams {
  temperature?: number;
  maxTokens?: number;
  reasoningEffort?: string;
  thinkingBudgetTokens?: number;
  /** Mark the last N messages for the provider's prompt cache. */
  cacheLastMessages?: number;
}

const modelName = (m: ResolvedModel) => m.wireModel.split('/').pop() ?? m.wireModel;

/** OpenAI's reasoning models that take no temperature but 1 (LiteLLM o-series and gpt-5 configs). */
function dropsTemperature(m: ResolvedModel, temperature: number, effort: string | undefined): boolean {
  if (m.provider !== 'openai' || temperature === 1) return false;
  const name = modelName(m);
  if (/^o\d/.test(name)) return true;
  if (!name.includes('gpt-5') || name.includes('gpt-5-chat')) return false;
  // gpt-5.1, 5.2 and 5.4 take a temperature while reasoning effort is "none" (their default)
  const flexible = /^gpt-5\.(1|2|4)/.test(name);
  return !(flexible && (effort === undefined || effort === 'none'));
}

/** Prompt caching as the reference adds it: for Claude models (llms/utils.py L8–63). */
function cachesPrompt(m: ResolvedModel): boolean {
  const named = /anthropic|claude/i.test(`${m.displayName} ${m.wireModel}`);
  return named && (m.api === 'anthropic' || m.provider === 'openrouter');
}

/** `defaultTemperature`: sent when params set none; null sends none (Harbor 0.9). */
export function requestParams(
  m: ResolvedModel,
  params: AgentParams = {},
  defaultTemperature: number | null = TERMINUS2_DEFAULT_TEMPERATURE,
): { request: RequestParams; effective: EffectiveModelParams } {
  const temperature = params.temperature ?? defaultTemperature;
  const effort = params.reasoning_effort;
  const request: RequestParams = {};
  const sendTemperature = temperature !== null && !dropsTemperature(m, temperature, effort);
  if (sendTemperature) request.temperature = temperature;
  let thinking: number | undefined;
  if (m.api === 'anthropic') {
    if (params.max_thinking_tokens !== undefined)
      thinking = Math.max(MIN_THINKING_TOKENS, params.max_thinking_tokens);
    else if (effort !== undefined) thinking = ANTHROPIC_EFFORT_BUDGETS[effort];
    if (thinking !== undefined) request.thinkingBudgetTokens = thinking;
    request.maxTokens = (thinking ?? 0) + LITELLM_ANTHROPIC_MAX_TOKENS;
  } else if (effort !== undefined) {
    request.reasoningEffort = effort;
  }
  const caching = cachesPrompt(m);
  if (caching) request.cacheLastMessages = 3;
  return {
    request,
    effective: {
      temperature,
      temperature_sent: sendTemperature,
      reasoning_effort: effort ?? null,
      thinking_budget_tokens: thinking ?? null,
      max_tokens: request.maxTokens ?? null,
      prompt_caching: caching,
    },
  };
}
