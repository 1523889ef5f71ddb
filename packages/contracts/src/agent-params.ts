import { z } from 'zod';
import { Terminus2Profile } from './terminus2-profile.ts';

/** Reasoning effort levels terminus-2's reference accepts (Harbor 0.6.4, terminus_2.py L151–154). */
export const REASONING_EFFORTS = [
  'none',
  'minimal',
  'low',
  'medium',
  'high',
  'xhigh',
  'max',
  'default',
] as const;
export const ReasoningEffort = z.enum(REASONING_EFFORTS);
export type ReasoningEffort = z.infer<typeof ReasoningEffort>;

/** The reference's default sampling temperature at leaderboard time (docs/terminus-2.md). */
export const TERMINUS2_DEFAULT_TEMPERATURE = 0.7;
/** Anthropic's smallest thinking budget. */
export const MIN_THINKING_TOKENS = 1024;

/**
 * `[agents.params]`: model parameters of a model-driven harness (terminus-2), named as the
 * reference's agent kwargs. Omitted values take the reference's defaults.
 */
export const AgentParams = z.strictObject({
  temperature: z.number().min(0).max(2).optional(),
  reasoning_effort: ReasoningEffort.optional(),
  max_thinking_tokens: z.int().min(MIN_THINKING_TOKENS).max(128_000).optional(),
  /** claude-code's `--max-turns` (Harbor's max_turns kwarg). */
  max_turns: z.int().min(1).max(100_000).optional(),
  /** terminus-2's behaviour profile: the Harbor release it behaves as (terminus2-profile.ts). */
  reference: Terminus2Profile.optional(),
});
export type AgentParams = z.infer<typeof AgentParams>;

/** Reasoning efforts LiteLLM turns into a Claude thinking budget (tokens). */
export const ANTHROPIC_EFFORT_BUDGETS: Readonly<Record<string, number>> = {
  low: 1024,
  medium: 2048,
  high: 4096,
};

/** claude-code's `--effort` levels (Harbor claude_code.py CLI_FLAGS). */
export const CLAUDE_CODE_EFFORTS = ['low', 'medium', 'high', 'xhigh', 'max'] as const;

/** The keys each harness takes; terminus-2 takes the model parameters, claude-code two CLI flags. */
const PARAMS_OF: Readonly<Record<string, readonly (keyof AgentParams)[]>> = {
  'terminus-2': ['temperature', 'reasoning_effort', 'max_thinking_tokens', 'reference'],
  'claude-code': ['max_turns', 'reasoning_effort'],
};

interface ParamsIssue {
  code: 'PARAMS_NOT_ACCEPTED' | 'PARAMS_CONFLICT';
  path: string;
  message: string;
}

/**
 * `[agents.params]` rules that need the harness and model: only terminus-2 takes them; a thinking
 * budget is Anthropic's (which refuses a temperature other than 1 with thinking on).
 */
export function checkAgentParams(
  agent: { params?: AgentParams | undefined; model?: { type: string; model?: string } | undefined },
  index: number,
  harness: string,
  harnessNote: string,
): ParamsIssue[] {
  const params = agent.params;
  if (!params) return [];
  const label = `agent ${index + 1}`;
  const path = `agents[${index}].params`;
  const accepted = PARAMS_OF[harness];
  if (!accepted) {
    return [
      {
        code: 'PARAMS_NOT_ACCEPTED',
        path,
        message: `${label} uses ${harnessNote}, which sets its own model parameters; [agents.params] applies to terminus-2 and claude-code only: remove it from ${label}`,
      },
    ];
  }
  const refused = Object.keys(params).filter((k) => !accepted.includes(k as keyof AgentParams));
  if (refused.length) {
    return refused.map((k) => ({
      code: 'PARAMS_NOT_ACCEPTED' as const,
      path: `${path}.${k}`,
      message: `${k} in [agents.params] of ${label} does not apply to ${harness}, which takes ${accepted.join(', ')}: remove it`,
    }));
  }
  if (harness === 'claude-code') {
    const effort = params.reasoning_effort;
    if (effort !== undefined && !(CLAUDE_CODE_EFFORTS as readonly string[]).includes(effort)) {
      return [
        {
          code: 'PARAMS_CONFLICT',
          path: `${path}.reasoning_effort`,
          message: `reasoning_effort = "${effort}" of ${label}: claude-code's --effort takes ${CLAUDE_CODE_EFFORTS.join(', ')}`,
        },
      ];
    }
    return [];
  }
  const issues: ParamsIssue[] = [];
  const anthropic = agent.model?.type === 'provider' && /^anthropic\//i.test(agent.model.model ?? '');
  if (params.max_thinking_tokens !== undefined && !anthropic) {
    issues.push({
      code: 'PARAMS_CONFLICT',
      path: `${path}.max_thinking_tokens`,
      message: `max_thinking_tokens of ${label} is a Claude thinking budget, sent only to Anthropic's API (model = "anthropic/…"): remove it, or use reasoning_effort`,
    });
  }
  const effort = params.reasoning_effort;
  if (anthropic && effort !== undefined && !(effort in ANTHROPIC_EFFORT_BUDGETS)) {
    issues.push({
      code: 'PARAMS_CONFLICT',
      path: `${path}.reasoning_effort`,
      message: `reasoning_effort = "${effort}" of ${label}: for Claude models only low, medium and high exist (thinking budgets of 1024, 2048 and 4096 tokens): use one of them, or max_thinking_tokens`,
    });
  }
  const thinking =
    anthropic &&
    (params.max_thinking_tokens !== undefined ||
      (effort !== undefined && effort in ANTHROPIC_EFFORT_BUDGETS));
  // harbor-0.9 sends no temperature unless one is configured
  const sendsTemperature = params.temperature !== undefined || params.reference !== 'harbor-0.9';
  if (thinking && sendsTemperature && params.temperature !== 1) {
    issues.push({
      code: 'PARAMS_CONFLICT',
      path: `${path}.temperature`,
      message: `${label} turns Claude's thinking on, and Anthropic then accepts only temperature 1 (terminus-2's default is ${TERMINUS2_DEFAULT_TEMPERATURE}): add temperature = 1 to [agents.params] of ${label}, or reference = "harbor-0.9" (which sends no temperature unless one is set)`,
    });
  }
  return issues;
}
