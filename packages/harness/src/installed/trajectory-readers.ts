// biome-ignore-all lint/suspicious/noExplicitAny: trajectories are read defensively, field by field
// Readers of whole-file JSON trajectories (mini-swe-agent, OpenHands): the document is joined
// (bounded) and parsed at the end.
import type { TokenUsage } from '../models/types.ts';
import {
  addInto,
  cost,
  count,
  fromPromptTotal,
  int,
  isObject,
  type LineReader,
  type ParsedAgentOutput,
  zero,
} from './line-reader.ts';

const MAX_JSON_FILE_CHARS = 64 * 1024 * 1024;

/** Joins the lines of one JSON document (bounded) and parses it at the end. */
function jsonDocumentReader(parse: (doc: unknown) => ParsedAgentOutput): LineReader {
  const parts: string[] = [];
  let chars = 0;
  let over = false;
  return {
    line(text) {
      if (over) return;
      chars += text.length + 1;
      if (chars > MAX_JSON_FILE_CHARS) {
        over = true;
        return;
      }
      parts.push(text);
    },
    done() {
      if (over || parts.length === 0) return {};
      try {
        return parse(JSON.parse(parts.join('\n')));
      } catch {
        return {};
      }
    },
  };
}

/** One LiteLLM-style usage object (`prompt_tokens` includes cached and cache-creation tokens). */
function litellmUsage(u: Record<string, any>): TokenUsage | undefined {
  const prompt = count(u.prompt_tokens) ?? count(u.input_tokens);
  const output = count(u.completion_tokens) ?? count(u.output_tokens);
  if (prompt === undefined && output === undefined) return undefined;
  const details = isObject(u.prompt_tokens_details)
    ? u.prompt_tokens_details
    : isObject(u.input_tokens_details)
      ? u.input_tokens_details
      : {};
  const read = count(details.cached_tokens) ?? int(u.cache_read_input_tokens);
  return fromPromptTotal(prompt ?? 0, output ?? 0, read, int(u.cache_creation_input_tokens));
}

/**
 * mini-swe-agent's trajectory file (`--output`, JSON): `info.model_stats.instance_cost` and one
 * usage per model call — `messages[].extra.response.usage` (LiteLLM chat completions, v1 and v2)
 * or `usage` of a message that is itself a Responses-API object (`object: "response"`, v2).
 */
export function miniSweAgentTrajectoryReader(): LineReader {
  return jsonDocumentReader((traj) => {
    if (!isObject(traj)) return {};
    const total = zero();
    let seen = false;
    for (const m of Array.isArray(traj.messages) ? traj.messages : []) {
      if (!isObject(m)) continue;
      const response = isObject(m.extra) && isObject(m.extra.response) ? m.extra.response : undefined;
      const raw = isObject(response?.usage) ? response.usage : m.object === 'response' ? m.usage : undefined;
      const u = isObject(raw) ? litellmUsage(raw) : undefined;
      if (!u) continue;
      seen = true;
      addInto(total, u);
    }
    const stats = isObject(traj.info) && isObject(traj.info.model_stats) ? traj.info.model_stats : {};
    const reported = cost(stats.instance_cost);
    if (!seen) return {};
    return { usage: total, ...(reported !== undefined ? { reportedCostUsd: reported } : {}) };
  });
}

/**
 * OpenHands' saved trajectory (`SAVE_TRAJECTORY_PATH`, a JSON array of events): agent events
 * carry cumulative `llm_metrics {accumulated_cost, accumulated_token_usage {prompt_tokens,
 * completion_tokens, cache_read_tokens, cache_write_tokens}}`; the last one is the run's total.
 * `prompt_tokens` comes from LiteLLM and includes the cache counters.
 */
export function openHandsTrajectoryReader(): LineReader {
  return jsonDocumentReader((traj) => {
    const list: unknown[] = Array.isArray(traj)
      ? traj
      : isObject(traj) && Array.isArray(traj.history)
        ? traj.history
        : [];
    for (let i = list.length - 1; i >= 0; i--) {
      const metrics = (list[i] as any)?.llm_metrics;
      const acc = isObject(metrics) ? metrics.accumulated_token_usage : undefined;
      if (!isObject(acc)) continue;
      const prompt = count(acc.prompt_tokens);
      const output = count(acc.completion_tokens);
      if (prompt === undefined && output === undefined) continue;
      const reported = cost(metrics.accumulated_cost);
      return {
        usage: fromPromptTotal(
          prompt ?? 0,
          output ?? 0,
          int(acc.cache_read_tokens),
          int(acc.cache_write_tokens),
        ),
        ...(reported !== undefined ? { reportedCostUsd: reported } : {}),
      };
    }
    return {};
  });
}
