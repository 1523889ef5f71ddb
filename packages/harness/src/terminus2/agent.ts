// The terminus-2 agent loop, behaving as its reference does (Harbor 331dcba,
// src/harbor/agents/terminus_2/terminus_2.py — file and lines for each behaviour in
// docs/terminus-2.md): one conversation, a parsed JSON reply per turn, keystrokes into tmux, the
// two-step completion and the output-limit retry. The conversation and its model calls are in
// conversation.ts, the hand-off and the overflow fallbacks in summarize.ts.
import {
  type AgentParams,
  type AtifTrajectory,
  DEFAULT_TERMINUS2_PROFILE,
  type EffectiveModelParams,
  type HarnessInfo,
  TERMINUS2_HARNESS_VERSION,
  TERMINUS2_PROFILE_REFERENCES,
  type Terminus2Profile,
} from '@osmosis/contracts';
import { createScrubber } from '@osmosis/core';
import type { ChatResult, ModelClient } from '../models/client.ts';
import { isModelError, type ModelError } from '../models/errors.ts';
import { contextLimit, type ModelLimits } from '../models/limits.ts';
import { requestParams } from '../models/params.ts';
import { sleep } from '../models/retry.ts';
import type { TokenUsage } from '../models/types.ts';
import { nextCompletion } from './completion.ts';
import { Conversation, isOverflow, OutputTooLong } from './conversation.ts';
import { feedbackOf, parseReply } from './parser.ts';
import { PROFILE_BEHAVIOUR } from './profile.ts';
import { runSignal } from './run-signal.ts';
import { handOff, recoverFromOverflow, type SummarizeContext } from './summarize.ts';
import { defaultTemplates, formatTemplate, type LoadedTemplates } from './templates.ts';
import { type ExecHost, limitOutput, type TmuxOptions, TmuxTerminal } from './tmux.ts';
import { type StopReason, terminus2Trajectory } from './trajectory.ts';

/** The reference's constants (terminus_2.py L150–286, L1030, L1205; tmux_session.py). */
export const TERMINUS2_DEFAULTS = Object.freeze({
  maxTurns: 1_000_000,
  summarizeThresholdTokens: 8000,
  unwindTargetFreeTokens: 4000,
  maxOutputBytes: 10_000,
  maxCommandDurationSec: 60,
  turnTries: 3,
  screenTailChars: 1000,
});

export interface Terminus2Options {
  /** Where the terminal runs (a Sandbox). */
  host: ExecHost;
  /** The agent's model (one client per attempt: its totals are the attempt's). */
  model: ModelClient;
  instruction: string;
  /** The agent timeout (task timeout × multiplier). */
  timeoutMs: number;
  /** Aborts the run (attempt cancelled). */
  signal?: AbortSignal;
  /** Texts sent to the model (default: the platform's own). */
  templates?: LoadedTemplates;
  /** `[agents.params]`: temperature, reasoning effort, thinking budget. */
  params?: AgentParams;
  /** The Harbor release it behaves as (default harbor-0.6.4); the model client takes its phrases. */
  profile?: Terminus2Profile;
  /** A completion left pending by the previous step (Harbor 0.6.4 keeps it across a multi-step trial). */
  pendingCompletion?: boolean;
  /** The model's token limits (context for summarization, output for the too-long message); no context: no proactive hand-off. */
  limits?: ModelLimits;
  maxTurns?: number;
  /** Free context tokens below which the conversation is handed off (8,000). */
  summarizeThresholdTokens?: number;
  /** False: no summarization at all (an overflow ends the run). */
  enableSummarize?: boolean;
  /** Every secret value of the attempt: scrubbed from the trajectory. */
  secrets?: readonly string[];
  /** The shortest value scrubbed (OSMOSIS_SCRUB_MIN_LENGTH); default 4. */
  scrubMinLength?: number;
  tmux?: TmuxOptions;
}

export interface Terminus2Result {
  stopReason: StopReason;
  timedOut: boolean;
  /** 0 when the agent finished on its own, null on timeout or error. */
  exitCode: number | null;
  usage: TokenUsage;
  cost_usd: number | null;
  /** ATIF (trajectory.ts), scrubbed of the attempt's secrets. */
  trajectory: AtifTrajectory;
  /** Turns taken (model replies acted on). */
  turns: number;
  harnessInfo: HarnessInfo;
  /** A completion was pending when the run stopped (true after a confirmed one). */
  pendingCompletion: boolean;
  /** The model failure that ended the run (auth, bad request, provider unavailable). */
  error?: ModelError | Error;
}

/** What one run's turns share: the conversation, the terminal, the texts, the limits. */
interface TurnContext extends SummarizeContext {
  enableSummarize: boolean;
  /** Free context tokens below which the conversation is handed off before a turn. */
  threshold: number;
  /** The model's context size is known: without it there is no hand-off before an overflow. */
  contextKnown: boolean;
  maxTurns: number;
  /** The model's maximum output tokens, named in the too-long message. */
  outputLimit: number | undefined;
  /** The agent deadline (ms since the epoch): no wait goes past it. */
  deadline: number;
  /** Turns the model answered (a cut-off reply and its retry are one turn). */
  turns: number;
  pending: boolean;
}

interface Queried {
  text: string;
  reply?: ChatResult;
  /** The prompt the reply answers (after an overflow: the one sent on the unwound conversation). */
  prompt: string;
}

const limitOf = (ctx: TurnContext, text: string) =>
  limitOutput(text, ctx.templates, TERMINUS2_DEFAULTS.maxOutputBytes);

/**
 * A reply cut off by the output limit is not a turn (L1098–1170): it is recorded, kept in the
 * conversation with its prompt, and the model is asked again with this prompt.
 */
function outputTooLongPrompt(ctx: TurnContext, prompt: string, reply: ChatResult, at: Date): string {
  const t = ctx.templates;
  ctx.conversation.record({ kind: 'turn', prompt, output_too_long: true }, at, reply);
  const warnings = parseReply(reply.text, t).warning;
  const limitText =
    ctx.outputLimit !== undefined
      ? formatTemplate(t['output-limit-tokens'], { n: ctx.outputLimit })
      : formatTemplate(t['output-limit-unknown'], {});
  let next = formatTemplate(t['output-too-long'], { limit: limitText });
  if (warnings) next += formatTemplate(t['output-too-long-warnings'], { warnings });
  ctx.conversation.messages.push(
    { role: 'user', content: prompt },
    { role: 'assistant', content: reply.text },
  );
  return next;
}

/** One model turn with its handlers (`_query_llm`, L991–1173); records the calls it made. */
async function queryOnce(ctx: TurnContext, prompt: string): Promise<Queried> {
  const at = new Date();
  try {
    const reply = await ctx.conversation.send(prompt);
    return { text: reply.text, reply, prompt };
  } catch (error) {
    if (isOverflow(error)) {
      if (!ctx.enableSummarize) throw error;
      const recovered = await recoverFromOverflow(ctx);
      if (!recovered.reply) return { text: recovered.text, prompt };
      const messages = ctx.conversation.messages;
      return { text: recovered.text, reply: recovered.reply, prompt: messages[messages.length - 2]!.content };
    }
    if (!(error instanceof OutputTooLong)) throw error;
    return queryModel(ctx, outputTooLongPrompt(ctx, prompt, error.reply, at));
  }
}

/** `_query_llm`'s tenacity decorator: 3 tries, never after a context overflow (L979–990). */
async function queryModel(ctx: TurnContext, prompt: string): Promise<Queried> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await queryOnce(ctx, prompt);
    } catch (error) {
      if (ctx.signal.aborted || isOverflow(error) || attempt >= TERMINUS2_DEFAULTS.turnTries) throw error;
    }
  }
}

/** Types each command, then waits its duration less the time the send took, never past the deadline. */
async function typeCommands(
  ctx: TurnContext,
  commands: readonly { keystrokes: string; duration_sec: number }[],
) {
  for (const command of commands) {
    const sentAt = Date.now();
    await ctx.terminal.send(command.keystrokes, ctx.signal);
    const wait = Math.min(command.duration_sec * 1000 - (Date.now() - sentAt), ctx.deadline - Date.now());
    if (wait > 0) await sleep(wait, ctx.signal);
  }
}

interface TurnOutcome {
  /** The next prompt. */
  prompt: string;
  /** A completion waits for confirmation. */
  pending: boolean;
  /** The run ends after this turn. */
  done: boolean;
}

/** One turn: ask the model, parse its reply, type its commands, and say what comes next. */
async function playTurn(ctx: TurnContext, prompt: string, pending: boolean): Promise<TurnOutcome> {
  const t = ctx.templates;
  const at = new Date();
  const { text, reply, prompt: sent } = await queryModel(ctx, prompt);
  ctx.turns += 1;
  const parsed = parseReply(text, t);
  const feedback = feedbackOf(parsed, t);
  const base = { kind: 'turn' as const, prompt: sent, analysis: parsed.analysis, plan: parsed.plan };
  const warnings = parsed.warning ? { warnings: [parsed.warning] } : {};
  if (parsed.error) {
    ctx.conversation.record({ ...base, parse_error: parsed.error, ...warnings }, at, reply);
    if (!reply) ctx.conversation.steps[ctx.conversation.steps.length - 1]!.reply = text;
    return { prompt: formatTemplate(t['parse-error'], { feedback }), pending, done: false };
  }
  const commands = parsed.commands.map((c) => ({
    keystrokes: c.keystrokes,
    duration_sec: Math.min(c.duration, TERMINUS2_DEFAULTS.maxCommandDurationSec),
  }));
  await typeCommands(ctx, commands);
  const output = limitOf(ctx, await ctx.terminal.incremental(ctx.signal));
  const state = nextCompletion(pending, parsed.isTaskComplete);
  let observation: string;
  if (parsed.isTaskComplete) {
    observation = state.done ? output : formatTemplate(t['confirm-completion'], { terminal_output: output });
  } else if (parsed.warning) {
    observation = formatTemplate(t.warnings, { feedback, output: limitOf(ctx, output) });
  } else observation = limitOf(ctx, output);
  ctx.conversation.record(
    { ...base, commands, task_complete: parsed.isTaskComplete, ...warnings, observation },
    at,
    reply,
  );
  return { prompt: observation, pending: state.pending, done: state.done };
}

/** The episodes of the run (`run`, L1572–1595, and `_run_agent_loop`); returns why they stopped. */
async function runEpisodes(ctx: TurnContext): Promise<StopReason> {
  const { terminal, signal, conversation } = ctx;
  await terminal.start(signal);
  const terminalState = limitOf(ctx, await terminal.incremental(signal));
  let prompt = formatTemplate(ctx.templates.system, {
    instruction: ctx.instruction,
    terminal_state: terminalState,
  });
  for (let episode = 0; episode < ctx.maxTurns; episode++) {
    if (signal.aborted) throw signal.reason;
    if (!(await terminal.isAlive(signal))) return 'session_ended';
    if (ctx.enableSummarize && ctx.contextKnown && conversation.freeTokens(ctx.limitTokens) < ctx.threshold) {
      try {
        prompt = await handOff(ctx);
      } catch (error) {
        if (signal.aborted) throw error;
        // the reference logs the failure and goes on with the prompt it had (L972–975)
      }
    }
    const outcome = await playTurn(ctx, prompt, ctx.pending);
    ctx.pending = outcome.pending;
    if (outcome.done) return 'task_complete';
    prompt = outcome.prompt;
  }
  return 'max_turns';
}

/** Why the run stopped, given what ended it (an error or none) and whether it was aborted. */
function stopOf(
  outcome: { stopReason: StopReason } | { error: unknown },
  aborted: boolean,
  timedOut: boolean,
): { stopReason: StopReason; failure?: Error } {
  if ('stopReason' in outcome) return { stopReason: outcome.stopReason };
  // whatever failed once the run was stopped failed because it was stopped
  if (aborted) return { stopReason: timedOut ? 'timeout' : 'aborted' };
  const error = outcome.error;
  if (!isModelError(error)) return { stopReason: 'harness_error', failure: error as Error };
  return { stopReason: error.errorClass === 'aborted' ? 'aborted' : 'model_error', failure: error };
}

function harnessInfoOf(options: Terminus2Options, loaded: LoadedTemplates, effective: EffectiveModelParams) {
  const enableSummarize = options.enableSummarize ?? true;
  const info: HarnessInfo = {
    harness: 'terminus-2',
    version: TERMINUS2_HARNESS_VERSION,
    reference: { ...TERMINUS2_PROFILE_REFERENCES[options.profile ?? DEFAULT_TERMINUS2_PROFILE] },
    templates: loaded.info,
    model_params: effective,
    max_turns: options.maxTurns ?? TERMINUS2_DEFAULTS.maxTurns,
    summarize_threshold_tokens: enableSummarize
      ? (options.summarizeThresholdTokens ?? TERMINUS2_DEFAULTS.summarizeThresholdTokens)
      : null,
  };
  return info;
}

export async function runTerminus2(options: Terminus2Options): Promise<Terminus2Result> {
  const started = new Date();
  const model = options.model;
  const loaded = options.templates ?? defaultTemplates();
  const behaviour = PROFILE_BEHAVIOUR[options.profile ?? DEFAULT_TERMINUS2_PROFILE];
  const { request, effective } = requestParams(model.resolved, options.params, behaviour.defaultTemperature);
  const harnessInfo = harnessInfoOf(options, loaded, effective);
  const run = runSignal(options);
  const conversation = new Conversation(model, request, run.signal);
  const ctx: TurnContext = {
    conversation,
    terminal: new TmuxTerminal(options.host, loaded.templates, {
      ...options.tmux,
      sendKeys: { endOfOptions: behaviour.sendKeysEndOfOptions, length: behaviour.sendKeysLength },
    }),
    templates: loaded.templates,
    instruction: options.instruction,
    signal: run.signal,
    limitTokens: contextLimit(options.limits),
    unwindTargetFreeTokens: TERMINUS2_DEFAULTS.unwindTargetFreeTokens,
    screenTailChars: TERMINUS2_DEFAULTS.screenTailChars,
    enableSummarize: options.enableSummarize ?? true,
    threshold: options.summarizeThresholdTokens ?? TERMINUS2_DEFAULTS.summarizeThresholdTokens,
    contextKnown: (options.limits?.max_input_tokens ?? options.limits?.max_tokens) !== undefined,
    maxTurns: options.maxTurns ?? TERMINUS2_DEFAULTS.maxTurns,
    outputLimit: options.limits?.max_output_tokens,
    deadline: started.getTime() + options.timeoutMs,
    turns: 0,
    pending: options.pendingCompletion ?? false,
  };
  let outcome: { stopReason: StopReason } | { error: unknown };
  try {
    outcome = { stopReason: await runEpisodes(ctx) };
  } catch (error) {
    outcome = { error };
  } finally {
    run.dispose();
  }
  const { stopReason, failure } = stopOf(outcome, run.signal.aborted, run.timedOut());
  const result = resultOf(options, {
    started,
    stopReason,
    failure,
    turns: ctx.turns,
    conversation,
    harnessInfo,
  });
  return { ...result, pendingCompletion: ctx.pending };
}

/** The result, its trajectory scrubbed of every secret of the attempt and of the model key. */
function resultOf(
  options: Terminus2Options,
  run: {
    started: Date;
    stopReason: StopReason;
    failure: Error | undefined;
    turns: number;
    conversation: Conversation;
    harnessInfo: HarnessInfo;
  },
): Omit<Terminus2Result, 'pendingCompletion'> {
  const { model } = options;
  const { stopReason, conversation } = run;
  let failure = run.failure;
  const scrubber = createScrubber(
    [...(options.secrets ?? []), model.resolved.apiKey, ...Object.values(model.resolved.extraHeaders)],
    { minLength: options.scrubMinLength },
  );
  const costUsd = conversation.cost.usd;
  const trajectory = scrubber.deep(
    terminus2Trajectory({
      model: model.modelName,
      harnessInfo: run.harnessInfo,
      startedAt: run.started,
      finishedAt: new Date(),
      stopReason,
      ...(failure ? { error: failure.message } : {}),
      turns: run.turns,
      modelCalls: conversation.modelCalls,
      summarizations: conversation.summarizations,
      usage: conversation.usage,
      costUsd,
      calls: conversation.steps,
    }),
  );
  if (failure && !isModelError(failure)) failure = new Error(scrubber.text(failure.message));
  return {
    stopReason,
    timedOut: stopReason === 'timeout',
    exitCode: ['task_complete', 'max_turns', 'session_ended'].includes(stopReason) ? 0 : null,
    usage: conversation.usage,
    cost_usd: costUsd,
    trajectory,
    turns: run.turns,
    harnessInfo: run.harnessInfo,
    ...(failure ? { error: failure } : {}),
  };
}
