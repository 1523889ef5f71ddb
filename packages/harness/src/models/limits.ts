// Token limits per model (max input, max output), the facts terminus-2's reference reads from
// LiteLLM's model table: when to summarize, and which limit the too-long message names. Looked up
// in our table (model-limits.json), then in LiteLLM's (litellm-context-windows.json, by the name
// without its provider), then the operator's setting for models still unknown.

import { readFileSync } from 'node:fs';
import { errorMessage } from '@osmosis/contracts';
import { z } from 'zod';

export const MODEL_LIMITS_FILE_ENV = 'OSMOSIS_MODEL_LIMITS_FILE';
/** Context size in tokens for models no table knows (else they never summarize before an overflow). */
export const UNKNOWN_MODEL_CONTEXT_ENV = 'OSMOSIS_UNKNOWN_MODEL_CONTEXT_TOKENS';

export const ModelLimits = z.object({
  max_input_tokens: z.number().int().positive().optional(),
  /** LiteLLM's older field: the context size when max_input_tokens is absent. */
  max_tokens: z.number().int().positive().optional(),
  max_output_tokens: z.number().int().positive().optional(),
});
export type ModelLimits = z.infer<typeof ModelLimits>;

const LimitsTable = z.looseObject({ models: z.record(z.string(), ModelLimits) });

/**
 * The reference's context limit when the model is unknown (lite_llm.py L157): used here only to
 * unwind after an overflow, never to decide a proactive hand-off.
 */
export const FALLBACK_CONTEXT_LIMIT = 1_000_000;

const SHIPPED = new URL('../../model-limits.json', import.meta.url);
const LITELLM = new URL('../../litellm-context-windows.json', import.meta.url);

/** Limits by model key (as prices.json): the shipped table with the operator's file laid over it. */
export function loadModelLimits(env: NodeJS.ProcessEnv = process.env): Map<string, ModelLimits> {
  const read = (p: string | URL) => LimitsTable.parse(JSON.parse(readFileSync(p, 'utf8')));
  const limits = new Map(Object.entries(read(LITELLM).models));
  for (const [key, value] of Object.entries(read(SHIPPED).models)) limits.set(key, value);
  const file = env[MODEL_LIMITS_FILE_ENV];
  if (file) {
    let table: z.infer<typeof LimitsTable>;
    try {
      table = read(file);
    } catch (error) {
      throw new Error(
        `${MODEL_LIMITS_FILE_ENV}=${file}: not a valid model limits file (${errorMessage(error)})`,
      );
    }
    for (const [key, value] of Object.entries(table.models)) limits.set(key, value);
  }
  return limits;
}

/** Where a model's limits came from; `unknown`: no table and no setting has them. */
export interface LimitsLookup {
  limits: ModelLimits | undefined;
  source: 'table' | 'setting' | 'unknown';
}

/** The limits of a model key (`openai/gpt-5.2`): as given, else by LiteLLM's name (after the last `/`). */
export function lookupModelLimits(
  table: ReadonlyMap<string, ModelLimits>,
  key: string,
  env: NodeJS.ProcessEnv = process.env,
): LimitsLookup {
  const found = table.get(key) ?? table.get(key.slice(key.lastIndexOf('/') + 1));
  if (found && (found.max_input_tokens ?? found.max_tokens)) return { limits: found, source: 'table' };
  const setting = env[UNKNOWN_MODEL_CONTEXT_ENV];
  if (setting) {
    const tokens = Number(setting);
    if (!Number.isInteger(tokens) || tokens <= 0)
      throw new Error(
        `${UNKNOWN_MODEL_CONTEXT_ENV}=${setting}: not a number of tokens; set a positive integer such as 128000`,
      );
    return { limits: { ...found, max_input_tokens: tokens }, source: 'setting' };
  }
  return { limits: found, source: 'unknown' };
}

/** Context limit in tokens: max_input_tokens, else max_tokens, else 1,000,000. */
export function contextLimit(limits: ModelLimits | undefined): number {
  return limits?.max_input_tokens ?? limits?.max_tokens ?? FALLBACK_CONTEXT_LIMIT;
}
