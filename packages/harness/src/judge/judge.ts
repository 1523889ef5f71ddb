// The LLM judge of benchmarks whose answers can't be checked by a script: HLE (a structured
// verdict on a short answer) and GDPVal (rubric scoring of a deliverable). Judge calls are
// accounted separately from the agent's: every result carries its own usage and cost.

import { errorMessage } from '@osmosis/contracts';
import { parseJsonAt } from '@osmosis/core';
import { z } from 'zod';
import {
  type ChatResult,
  createModelClient,
  type ModelClient,
  type ModelClientOptions,
} from '../models/client.ts';
import { CostMeter } from '../models/prices.ts';
import { sleep } from '../models/retry.ts';
import {
  addUsage,
  type ChatAttachment,
  type ChatMessage,
  type ModelSpec,
  TokenUsage,
  ZERO_USAGE,
} from '../models/types.ts';
import { formatTemplate } from '../terminus2/templates.ts';
import { defaultHleJudgeTemplate, type HleJudgeTemplate } from './hle-template.ts';
import { type RubricFileInput, RubricItem, rubricJudgePrompt, rubricJudgeTemplate } from './rubric-prompt.ts';
import { JudgeTemplate } from './template-id.ts';

export class JudgeError extends Error {
  readonly errorClass = 'judge_bad_response';
  constructor(message: string) {
    super(message);
    this.name = 'JudgeError';
  }
}

export const JudgeAccounting = z.object({
  model: z.string(),
  calls: z.number().int().nonnegative(),
  usage: TokenUsage,
  cost_usd: z.number().nullable(),
});
export type JudgeAccounting = z.infer<typeof JudgeAccounting>;

/**
 * HLE's structured verdict: the schema of Harbor's HLE adapter (test_judge.py L43–50,
 * `ExtractedAnswer`), sent as a strict JSON schema.
 */
export const HleVerdict = z.object({
  extracted_final_answer: z.string(),
  reasoning: z.string(),
  correct: z.enum(['yes', 'no']),
  confidence: z.number().int(),
  strict: z.literal(true).optional(),
});
export type HleVerdict = z.infer<typeof HleVerdict>;

/** The strict JSON schema of the verdict (the adapter's pydantic model as OpenAI receives it). */
export const HLE_VERDICT_SCHEMA = Object.freeze({
  type: 'object',
  title: 'ExtractedAnswer',
  properties: {
    extracted_final_answer: { type: 'string', title: 'Extracted Final Answer' },
    reasoning: { type: 'string', title: 'Reasoning' },
    correct: { type: 'string', enum: ['yes', 'no'], title: 'Correct' },
    confidence: { type: 'integer', title: 'Confidence' },
    strict: { type: 'boolean', enum: [true], title: 'Strict' },
  },
  required: ['extracted_final_answer', 'reasoning', 'correct', 'confidence', 'strict'],
  additionalProperties: false,
});

export const HleJudgement = z.object({
  extracted_answer: z.string(),
  reasoning: z.string(),
  correct: z.boolean(),
  /** The confidence (0–100) the graded response stated; 100 when it stated none. */
  confidence: z.number(),
  reward: z.union([z.literal(0), z.literal(1)]),
  /** Which judge prompt graded it: the platform's wording or the adapter's (reference). */
  template: JudgeTemplate,
  judge: JudgeAccounting,
});
export type HleJudgement = z.infer<typeof HleJudgement>;

/** The adapter's budget (test_judge.py L88–96, L131–137): 20 tries, 2^n s apart (at most 16), 16,384 tokens. */
export const HLE_JUDGE_TRIES = 20;
export const HLE_JUDGE_MAX_COMPLETION_TOKENS = 16_384;
export const hleRetryDelayMs = (attempt: number) => Math.min(2 ** attempt, 16) * 1000;

export interface HleJudgeOptions {
  client: ModelClient;
  question: string;
  correctAnswer: string;
  response: string;
  /** The judge prompt (default: the platform's wording; hleJudgeTemplateFromEnv for the adapter's). */
  template?: HleJudgeTemplate;
  signal?: AbortSignal;
  /** Tries before the verifier errors (default 20). */
  tries?: number;
  /** Wait between tries (tests shorten it). */
  delayMs?: (attempt: number) => number;
}

/**
 * Grades one response as Harbor's HLE adapter does: the prompt filled in once, structured output
 * with the strict schema, any failure (transport, refusal, unusable verdict) tried again up to
 * 20 times before the verifier errors (JudgeError).
 */
export async function judgeHle(input: HleJudgeOptions): Promise<HleJudgement> {
  const template = input.template ?? defaultHleJudgeTemplate();
  const meter = newMeter();
  let prompt = formatTemplate(template.text, {
    question: input.question,
    response: input.response,
    correct_answer: input.correctAnswer,
  });
  const structured = input.client.resolved.api !== 'anthropic';
  // Without OpenAI's response_format the schema goes into the prompt (LiteLLM's fallback, lite_llm.py L287–295).
  if (!structured)
    prompt = `${prompt}\n\nAnswer with one JSON object matching this JSON schema:\n${JSON.stringify(HLE_VERDICT_SCHEMA, null, 2)}`;
  const tries = input.tries ?? HLE_JUDGE_TRIES;
  const delay = input.delayMs ?? hleRetryDelayMs;
  let lastError = '';
  for (let attempt = 1; attempt <= tries; attempt++) {
    try {
      const reply = await input.client.chat([{ role: 'user', content: prompt }], {
        ...(input.signal ? { signal: input.signal } : {}),
        maxTokens: HLE_JUDGE_MAX_COMPLETION_TOKENS,
        ...(structured
          ? { request: { responseFormat: { name: 'ExtractedAnswer', schema: { ...HLE_VERDICT_SCHEMA } } } }
          : {}),
      });
      meter.calls += 1;
      meter.usage = addUsage(meter.usage, reply.usage);
      meter.cost.add(reply.usage, input.client.price);
      const verdict = HleVerdict.parse(extractJson(reply.text));
      const correct = verdict.correct === 'yes';
      return {
        extracted_answer: verdict.extracted_final_answer,
        reasoning: verdict.reasoning,
        correct,
        confidence: verdict.confidence,
        reward: correct ? 1 : 0,
        template: { kind: template.kind, digest: template.digest },
        judge: accounting(input.client, meter),
      };
    } catch (error) {
      if (input.signal?.aborted) throw error;
      lastError =
        error instanceof z.ZodError
          ? error.issues.map((x) => `${x.path.join('.') || '(root)'}: ${x.message}`).join('; ')
          : errorMessage(error);
      if (attempt < tries) await sleep(delay(attempt), input.signal);
    }
  }
  throw new JudgeError(`the judge gave no usable verdict in ${tries} tries; last error: ${lastError}`);
}

export const RubricScore = z.object({
  index: z.number().int().nonnegative(),
  awarded: z.number().min(0),
  justification: z.string(),
});

export const RubricJudgement = z.object({
  scores: z.array(
    z.object({ criterion: z.string(), points: z.number(), awarded: z.number(), justification: z.string() }),
  ),
  total_awarded: z.number(),
  total_points: z.number(),
  /** total_awarded / total_points, in [0, 1]. */
  reward: z.number().min(0).max(1),
  /** The prompt's identity (rubric-prompt.ts: the platform's wording, rendered with placeholders). */
  template: JudgeTemplate,
  judge: JudgeAccounting,
});
export type RubricJudgement = z.infer<typeof RubricJudgement>;

function extractJson(text: string): unknown {
  const start = text.indexOf('{');
  const end = text.lastIndexOf('}');
  if (start < 0 || end <= start) throw new Error('no JSON object in the reply');
  // the reply may quote the deliverable: its error names a position, never the text
  return parseJsonAt(text.slice(start, end + 1));
}

/** Asks, parses with the schema, and asks once more with the error when the reply is unusable. */
async function askStructured<T>(
  client: ModelClient,
  prompt: string,
  schema: z.ZodType<T>,
  meter: { usage: TokenUsage; cost: CostMeter; calls: number },
  signal: AbortSignal | undefined,
  maxAttempts = 2,
  attachments: ChatAttachment[] = [],
): Promise<T> {
  const messages: ChatMessage[] = [
    { role: 'user', content: prompt, ...(attachments.length ? { attachments } : {}) },
  ];
  let lastError = '';
  for (let i = 0; i < maxAttempts; i++) {
    const reply: ChatResult = await client.chat(messages, signal ? { signal } : {});
    meter.calls += 1;
    meter.usage = addUsage(meter.usage, reply.usage);
    meter.cost.add(reply.usage, client.price);
    try {
      return schema.parse(extractJson(reply.text));
    } catch (error) {
      lastError =
        error instanceof z.ZodError
          ? error.issues.map((x) => `${x.path.join('.') || '(root)'}: ${x.message}`).join('; ')
          : errorMessage(error);
      messages.push(
        { role: 'assistant', content: reply.text },
        {
          role: 'user',
          content: `That reply could not be used (${lastError}). Answer again with only the JSON object in the requested format.`,
        },
      );
    }
  }
  throw new JudgeError(`the judge model did not return a usable verdict: ${lastError}`);
}

const newMeter = () => ({ usage: ZERO_USAGE as TokenUsage, cost: new CostMeter(), calls: 0 });
const accounting = (client: ModelClient, m: ReturnType<typeof newMeter>): JudgeAccounting => ({
  model: client.modelName,
  calls: m.calls,
  usage: m.usage,
  cost_usd: m.cost.usd,
});

/** GDPVal-style rubric grading: reward = awarded points / total points, in [0, 1]. */
export async function judgeRubric(input: {
  client: ModelClient;
  task: string;
  rubric: RubricItem[];
  deliverable: string;
  /** Files under /logs/artifacts: text inline, images/PDFs attached for models that read them. */
  files?: readonly RubricFileInput[];
  signal?: AbortSignal;
}): Promise<RubricJudgement> {
  const rubric = z.array(RubricItem).min(1).parse(input.rubric);
  const Reply = z
    .object({ scores: z.array(RubricScore) })
    .refine(
      (r) => rubric.every((_, i) => r.scores.some((s) => s.index === i)),
      `scores must contain one entry for each index 0..${rubric.length - 1}`,
    );
  const meter = newMeter();
  const reply = await askStructured(
    input.client,
    rubricJudgePrompt(input.task, rubric, input.deliverable, input.files ?? []),
    Reply,
    meter,
    input.signal,
    2,
    (input.files ?? []).flatMap((f) => (f.attachment ? [f.attachment] : [])),
  );
  const scores = rubric.map((item, i) => {
    const s = reply.scores.find((x) => x.index === i)!;
    return {
      criterion: item.criterion,
      points: item.points,
      awarded: Math.min(item.points, Math.max(0, s.awarded)),
      justification: s.justification,
    };
  });
  const totalPoints = rubric.reduce((a, r) => a + r.points, 0);
  const totalAwarded = scores.reduce((a, s) => a + s.awarded, 0);
  return {
    scores,
    total_awarded: totalAwarded,
    total_points: totalPoints,
    reward: Math.min(1, Math.max(0, totalAwarded / totalPoints)),
    template: rubricJudgeTemplate(),
    judge: accounting(input.client, meter),
  };
}

/** The judge's client from `judge_model` (`provider/model`) and the judge key (`judge_api_key_secret`'s value). */
export function createJudgeClient(
  judgeModel: string | ModelSpec,
  apiKey: string | undefined,
  options: Omit<ModelClientOptions, 'apiKey'> = {},
): ModelClient {
  const spec: ModelSpec =
    typeof judgeModel === 'string' ? { type: 'provider', model: judgeModel } : judgeModel;
  return createModelClient(spec, { ...options, apiKey });
}
