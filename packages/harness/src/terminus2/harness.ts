// terminus-2 as a Harness: the agent loop runs in the worker process; only the terminal (tmux)
// lives in the sandbox, so the model key never enters the sandbox.
import {
  AgentParams,
  errorMessage,
  type Terminus2Profile,
  type ToolUse,
  terminus2ProfileOf,
} from '@osmosis/contracts';
import { z } from 'zod';
import type { Harness, HarnessContext, HarnessRunResult } from '../harness.ts';
import { createModelClient, type ModelClient, type ModelClientOptions } from '../models/client.ts';
import {
  type LimitsLookup,
  loadModelLimits,
  lookupModelLimits,
  MODEL_LIMITS_FILE_ENV,
  type ModelLimits,
  UNKNOWN_MODEL_CONTEXT_ENV,
} from '../models/limits.ts';
import { ModelSpec } from '../models/types.ts';
import { rememberToolChoice, toolChoiceOf } from '../tools/choice.ts';
import { runTerminus2, type Terminus2Options, type Terminus2Result } from './agent.ts';
import { PROFILE_BEHAVIOUR } from './profile.ts';
import { templatesFromEnv } from './reference-templates.ts';
import type { LoadedTemplates } from './templates.ts';
import { chooseTmux, tmuxProgram } from './tmux-setup.ts';

/** The `[[agents]]` entry as terminus-2 reads it (other keys are ignored). */
export const Terminus2AgentConfig = z.object({
  model: z.looseObject({
    type: z.enum(['provider', 'endpoint', 'hosted']),
    /** Secret record name; the pipeline injects its value into the agent env under this name. */
    api_key_secret: z.string().optional(),
  }),
  params: AgentParams.optional(),
});

export interface Terminus2HarnessOptions {
  /** Model client options (retry policy, concurrency, prices, operator env). */
  client?: Omit<ModelClientOptions, 'apiKey'>;
  /** Loop options (turn cap, summarization threshold, …) — the defaults are the reference's. */
  loop?: Partial<Pick<Terminus2Options, 'maxTurns' | 'summarizeThresholdTokens' | 'enableSummarize'>>;
  /** Template set (default: OSMOSIS_TERMINUS2_TEMPLATES, else the platform's own). */
  templates?: LoadedTemplates;
  /** Model limits table (default: shipped + OSMOSIS_MODEL_LIMITS_FILE). */
  limits?: Map<string, ModelLimits>;
  env?: NodeJS.ProcessEnv;
}

/**
 * The completion a step of a multi-step task left pending, per sandbox: Harbor 0.6.4 runs every
 * step on one agent and never resets it, so after a confirmed completion the next step's first
 * `task_complete` ends that step; 0.9 resets it per run (`_reset_per_run_state`).
 */
const pendingAfterStep = new WeakMap<object, boolean>();

export function createTerminus2Harness(options: Terminus2HarnessOptions = {}): Harness {
  let templates = options.templates;
  let limits = options.limits;
  const failed = (errorClass: 'provider' | 'harness_crash', message: string): HarnessRunResult => ({
    exitCode: null,
    timedOut: false,
    error: { errorClass, message },
  });
  return {
    name: 'terminus-2',

    // tmux: the image's, else the worker's bundle, else installed when the sandbox has internet (tmux-setup.ts)
    async setup(ctx: HarnessContext): Promise<void> {
      const choice = await chooseTmux(ctx);
      rememberToolChoice(ctx.sandbox, 'tmux', choice);
      ctx.log({
        level: 'info',
        step: 'agent_setup',
        message: `terminus-2: ${choice.use.version ?? 'tmux'} (${choice.use.source === 'bundle' ? `the worker's bundle, ${choice.tool!.dir}` : choice.use.source === 'image' ? 'the image’s' : 'installed now'})`,
      });
    },

    async run(ctx: HarnessContext, instruction: string): Promise<HarnessRunResult> {
      const parsed = Terminus2AgentConfig.safeParse(ctx.agent.config);
      if (!parsed.success) {
        const params = parsed.error.issues.some((i) => i.path[0] === 'params');
        return failed(
          'harness_crash',
          params
            ? `terminus-2: [agents.params] is not valid: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`
            : 'terminus-2: the agent has no valid [agents.model] table',
        );
      }
      let profile: Terminus2Profile;
      try {
        profile = terminus2ProfileOf(parsed.data.params?.reference, options.env ?? process.env);
        templates ??= templatesFromEnv(options.env ?? process.env);
        limits ??= loadModelLimits(options.env ?? process.env);
      } catch (error) {
        return failed('harness_crash', `terminus-2: ${errorMessage(error)}`);
      }
      const keyName = parsed.data.model.api_key_secret;
      const apiKey = keyName ? ctx.env[keyName] : undefined;
      if (keyName && !apiKey) {
        return failed('provider', `terminus-2: the secret ${keyName} was not provided to the agent`);
      }
      let client: ReturnType<typeof createModelClient>;
      try {
        client = createModelClient(ModelSpec.parse(parsed.data.model), {
          ...options.client,
          apiKey,
          contextOverflowPhrases: PROFILE_BEHAVIOUR[profile].contextOverflowPhrases,
        });
      } catch (error) {
        return failed('provider', errorMessage(error));
      }
      let lookup: LimitsLookup;
      try {
        lookup = lookupModelLimits(limits, client.resolved.priceKey, options.env ?? process.env);
      } catch (error) {
        return failed('harness_crash', `terminus-2: ${errorMessage(error)}`);
      }
      const notes = notesOf(client, lookup);
      for (const message of notes.warnings) ctx.log({ level: 'warn', step: 'agent', message });
      // The shell sees the agent's env, minus the model key (the loop runs outside the sandbox).
      const shellEnv = { ...ctx.env };
      if (keyName) delete shellEnv[keyName];
      ctx.log({
        level: 'info',
        step: 'agent',
        message: `terminus-2 starting with ${client.modelName}, behaving as ${profile}`,
      });
      const tmux = toolChoiceOf(ctx.sandbox, 'tmux');
      const started = Date.now();
      const result = await runTerminus2({
        ...options.loop,
        host: ctx.sandbox,
        model: client,
        instruction,
        timeoutMs: ctx.timeouts.agentMs,
        signal: ctx.signal,
        secrets: ctx.secrets,
        ...(ctx.scrubMinLength ? { scrubMinLength: ctx.scrubMinLength } : {}),
        templates,
        ...(parsed.data.params ? { params: parsed.data.params } : {}),
        profile,
        ...(profile === 'harbor-0.6.4' && pendingAfterStep.get(ctx.sandbox)
          ? { pendingCompletion: true }
          : {}),
        ...(lookup.limits ? { limits: lookup.limits } : {}),
        tmux: {
          ...tmuxProgram(tmux),
          env: shellEnv,
          ...(ctx.task.agentUser ? { user: ctx.task.agentUser } : {}),
          ...(ctx.task.workdir ? { workdir: ctx.task.workdir } : {}),
        },
      });
      pendingAfterStep.set(ctx.sandbox, result.pendingCompletion);
      return harnessResultOf(ctx, result, { tool: tmux?.use, notes, started });
    },
  };
}

/** The attempt's result from the loop's: usage in Harbor's convention, the harness info with its tool and notes. */
function harnessResultOf(
  ctx: HarnessContext,
  result: Terminus2Result,
  extra: { tool: ToolUse | undefined; notes: ReturnType<typeof notesOf>; started: number },
): HarnessRunResult {
  const { tool, notes, started } = extra;
  const u = result.usage;
  ctx.log({
    level: result.error ? 'error' : 'info',
    step: 'agent',
    message: `terminus-2 stopped: ${result.stopReason} after ${result.turns} turns`,
    details: {
      stop_reason: result.stopReason,
      turns: result.turns,
      templates: result.harnessInfo.templates?.kind ?? null,
    },
  });
  return {
    exitCode: result.exitCode,
    timedOut: result.timedOut,
    usage: {
      // Harbor's convention: input counts every prompt token, cache tokens are a part of it.
      inputTokens: u.input + u.cache_read + u.cache_write,
      outputTokens: u.output,
      cacheTokens: u.cache_read + u.cache_write,
      costUsd: result.cost_usd,
    },
    trajectory: result.trajectory,
    harnessInfo: {
      ...result.harnessInfo,
      ...(tool ? { tools: [tool] } : {}),
      ...(notes.differences.length ? { differences: notes.differences } : {}),
      ...(notes.warnings.length ? { warnings: notes.warnings } : {}),
    },
    commandMs: Date.now() - started,
    ...(result.error
      ? {
          error: {
            errorClass:
              result.stopReason === 'model_error' ? ('provider' as const) : ('harness_crash' as const),
            message: result.error.message,
          },
        }
      : {}),
  };
}

/** What sets the attempt apart from Harbor (Gemini's route) and what the operator should know (an unknown context size). */
function notesOf(client: ModelClient, lookup: LimitsLookup) {
  const differences: string[] = [];
  const warnings: string[] = [];
  if (client.resolved.provider === 'gemini')
    differences.push(
      "not comparable with Harbor: Gemini through Google's OpenAI-compatible endpoint (Harbor calls LiteLLM's native Gemini provider)",
    );
  if (lookup.source === 'unknown')
    warnings.push(
      `terminus-2: the context size of ${client.modelName} is unknown, so the conversation is not summarized before the provider reports an overflow: add the model to ${MODEL_LIMITS_FILE_ENV} or set ${UNKNOWN_MODEL_CONTEXT_ENV}`,
    );
  return { differences, warnings };
}

export const terminus2Harness: Harness = createTerminus2Harness();
