// biome-ignore-all lint/suspicious/noExplicitAny: CLI output is read defensively, field by field
// Token/cost readers for the installed CLI agents. Each is a line reader: the harness feeds it the
// CLI's output file (or the session files the CLI writes) line by line, as read from the sandbox,
// so a whole transcript never has to sit in memory and a run cut off by its timeout still reports
// what it spent up to there. None throws: missing, partial or malformed output gives no usage (the
// attempt records null tokens), never zeros; a counter the format lacks (cache writes on OpenAI)
// counts 0. `parseX(text)` feeds a whole text (tests, small files).

import type { TokenUsage } from '../models/types.ts';
import {
  addInto,
  cost,
  count,
  fromPromptTotal,
  int,
  isObject,
  jsonLine,
  jsonLinesReader,
  type LineReader,
  type ParsedAgentOutput,
  readAll,
  zero,
} from './line-reader.ts';
import { miniSweAgentTrajectoryReader, openHandsTrajectoryReader } from './trajectory-readers.ts';

export { type LineReader, MAX_EVENTS, type ParsedAgentOutput, readAll } from './line-reader.ts';
export { miniSweAgentTrajectoryReader, openHandsTrajectoryReader } from './trajectory-readers.ts';

// ── claude-code ─────────────────────────────────────────────────────────────────────────────────

/**
 * `claude --output-format=stream-json`: the final `{"type":"result", usage, total_cost_usd}` holds
 * the run's totals (every model it called). Assistant events carry a message's usage before its
 * output is complete (output_tokens 1), so they are not summed: a run without a result line is
 * read from its session files instead (claudeCodeSessionReader).
 */
export function claudeCodeReader(): LineReader {
  let result: any;
  return jsonLinesReader(
    (e) => {
      if (e.type === 'result') result = e;
    },
    () => {
      const u = result?.usage;
      if (!isObject(u) || (count(u.input_tokens) === undefined && count(u.output_tokens) === undefined))
        return {};
      const reported = cost(result.total_cost_usd);
      return {
        usage: {
          input: int(u.input_tokens),
          output: int(u.output_tokens),
          cache_read: int(u.cache_read_input_tokens),
          cache_write: int(u.cache_creation_input_tokens),
        },
        ...(reported !== undefined ? { reportedCostUsd: reported } : {}),
      };
    },
  );
}

/**
 * Claude Code's session files (`$CLAUDE_CONFIG_DIR/projects/…/*.jsonl`, subagents included),
 * written as the run goes: each assistant message's final usage, repeated once per content block
 * (same message id), counted once.
 */
export function claudeCodeSessionReader(): LineReader {
  const byMessage = new Map<string, TokenUsage>();
  let anonymous = 0;
  return {
    line(text) {
      const e = jsonLine(text);
      const m = e?.type === 'assistant' && isObject(e.message) ? e.message : undefined;
      const u = m?.usage;
      if (!isObject(u) || (count(u.input_tokens) === undefined && count(u.output_tokens) === undefined))
        return;
      const id = typeof m.id === 'string' ? m.id : `#${anonymous++}`;
      byMessage.set(id, {
        input: int(u.input_tokens),
        output: int(u.output_tokens),
        cache_read: int(u.cache_read_input_tokens),
        cache_write: int(u.cache_creation_input_tokens),
      });
    },
    done() {
      if (byMessage.size === 0) return {};
      const total = zero();
      for (const u of byMessage.values()) addInto(total, u);
      return { usage: total };
    },
  };
}

// ── codex ───────────────────────────────────────────────────────────────────────────────────────

/** codex `exec --json`: each `turn.completed` carries the turn's usage (input includes the cached tokens). */
export function codexReader(): LineReader {
  const total = { input: 0, cached: 0, written: 0, output: 0 };
  let seen = false;
  return jsonLinesReader(
    (e) => {
      const u = e.type === 'turn.completed' ? e.usage : undefined;
      if (!isObject(u) || (count(u.input_tokens) === undefined && count(u.output_tokens) === undefined))
        return;
      seen = true;
      total.input += int(u.input_tokens);
      total.cached += int(u.cached_input_tokens);
      total.written += int(u.cache_write_input_tokens);
      total.output += int(u.output_tokens);
    },
    () => (seen ? { usage: fromPromptTotal(total.input, total.output, total.cached, total.written) } : {}),
  );
}

/**
 * Codex's session rollouts (`$CODEX_HOME/sessions/…/rollout-*.jsonl`, copied to /logs/agent/sessions),
 * written as the run goes: the last `token_count` event of each file holds its running total.
 */
export function codexSessionReader(): LineReader {
  const perFile: TokenUsage[] = [];
  let current: TokenUsage | undefined;
  const flush = () => {
    if (current) perFile.push(current);
    current = undefined;
  };
  return {
    file: flush,
    line(text) {
      const e = jsonLine(text);
      const info = e?.type === 'event_msg' && e.payload?.type === 'token_count' ? e.payload.info : undefined;
      const u = isObject(info) ? info.total_token_usage : undefined;
      if (!isObject(u) || (count(u.input_tokens) === undefined && count(u.output_tokens) === undefined))
        return;
      current = fromPromptTotal(
        int(u.input_tokens),
        int(u.output_tokens),
        int(u.cached_input_tokens),
        int(u.cache_write_input_tokens),
      );
    },
    done() {
      flush();
      if (perFile.length === 0) return {};
      const total = zero();
      for (const u of perFile) addInto(total, u);
      return { usage: total };
    },
  };
}

// ── gemini-cli ──────────────────────────────────────────────────────────────────────────────────

/**
 * gemini-cli output: `--output-format stream-json`'s final `{"type":"result", stats: {input_tokens,
 * cached, total_tokens}}` (input_tokens includes the cached ones; total adds candidates, thoughts
 * and tool-use tokens, all of which count as output as Harbor counts them), or `--output-format
 * json`'s `stats.models.<name>.tokens {prompt, candidates, cached, thoughts, tool}` on one line.
 */
export function geminiCliReader(): LineReader {
  let usage: TokenUsage | undefined;
  return jsonLinesReader(
    (e) => {
      const stats = e.stats;
      if (!isObject(stats)) return;
      if (e.type === 'result') {
        const input = count(stats.input_tokens);
        const total = count(stats.total_tokens);
        if (input === undefined || total === undefined) return;
        usage = fromPromptTotal(input, Math.max(0, total - input), int(stats.cached), 0);
        return;
      }
      if (!isObject(stats.models)) return;
      let prompt = 0;
      let cached = 0;
      let output = 0;
      let seen = false;
      for (const m of Object.values<any>(stats.models)) {
        const t = m?.tokens;
        if (!isObject(t) || (count(t.prompt) === undefined && count(t.candidates) === undefined)) continue;
        seen = true;
        prompt += int(t.prompt);
        cached += int(t.cached);
        output += int(t.candidates) + int(t.thoughts) + int(t.tool);
      }
      if (seen) usage = fromPromptTotal(prompt, output, cached, 0);
    },
    () => (usage ? { usage } : {}),
  );
}

/**
 * gemini-cli's session file (`~/.gemini/tmp/…/chats/session-*.jsonl`, copied to
 * /logs/agent/gemini-cli.trajectory.jsonl as Harbor does), written as the run goes: a record per
 * message, rewritten under the same id as it grows; `gemini` messages carry `tokens {input (with
 * the cached ones), output, cached, thoughts, tool}`.
 */
export function geminiSessionReader(): LineReader {
  const byId = new Map<string, TokenUsage>();
  return {
    line(text) {
      const e = jsonLine(text);
      if (!isObject(e) || typeof e.id !== 'string') return;
      const t = e.type === 'gemini' ? e.tokens : undefined;
      if (!isObject(t) || (count(t.input) === undefined && count(t.output) === undefined)) {
        byId.delete(e.id);
        return;
      }
      byId.set(
        e.id,
        fromPromptTotal(int(t.input), int(t.output) + int(t.thoughts) + int(t.tool), int(t.cached), 0),
      );
    },
    done() {
      if (byId.size === 0) return {};
      const total = zero();
      for (const u of byId.values()) addInto(total, u);
      return { usage: total };
    },
  };
}

// ── cursor-cli ──────────────────────────────────────────────────────────────────────────────────

/**
 * cursor-agent `--print --output-format stream-json`: `{"type":"result", usage: {inputTokens,
 * outputTokens, cacheReadTokens, cacheWriteTokens}}` (disjoint counters), one per session part,
 * summed as Harbor does. Cursor reports no cost (a `totalCost`/`cost` field is read if present).
 */
export function cursorCliReader(): LineReader {
  const total = zero();
  let costSum = 0;
  let seen = false;
  return jsonLinesReader(
    (e) => {
      const u = e.type === 'result' ? e.usage : undefined;
      if (!isObject(u) || (count(u.inputTokens) === undefined && count(u.outputTokens) === undefined)) return;
      seen = true;
      addInto(total, {
        input: int(u.inputTokens),
        output: int(u.outputTokens),
        cache_read: int(u.cacheReadTokens),
        cache_write: int(u.cacheWriteTokens),
      });
      costSum += cost(u.totalCost) ?? cost(u.cost) ?? 0;
    },
    () => (seen ? { usage: total, ...(costSum > 0 ? { reportedCostUsd: costSum } : {}) } : {}),
  );
}

// ── opencode ────────────────────────────────────────────────────────────────────────────────────

/** Harbor's message for an opencode error event: error.data.message, else its name, else the value. */
function opencodeErrorMessage(error: unknown): string {
  if (isObject(error)) {
    const data = isObject(error.data) ? error.data.message : undefined;
    return String(data || error.name || JSON.stringify(error));
  }
  return String(error);
}

/**
 * opencode `run --format json`: each `step_finish` event carries the step's `part.tokens {input,
 * output, reasoning, cache: {read, write}}` (input excludes the cache counters) and `part.cost`
 * (0 when opencode has no price for the model). Summed over steps; a part seen twice (same
 * `part.id`) counts once. `error` events are collected: the attempt is an agent error.
 */
export function opencodeReader(): LineReader {
  const steps = new Map<string, any>();
  const errors: string[] = [];
  let anonymous = 0;
  return jsonLinesReader(
    (e) => {
      if (e.type === 'error') {
        // kept long: the harness scrubs each message before cutting it to 2000 characters (cut
        // first, a secret across the cut kept its first part)
        if (errors.length < 20) errors.push(opencodeErrorMessage(e.error).slice(0, 65_536));
        return;
      }
      if (e.type !== 'step_finish' || !isObject(e.part)) return;
      const id = typeof e.part.id === 'string' ? e.part.id : `#${anonymous++}`;
      steps.set(id, e.part);
    },
    () => {
      const total = zero();
      let costSum = 0;
      let seen = false;
      for (const part of steps.values()) {
        const t = part.tokens;
        if (!isObject(t) || (count(t.input) === undefined && count(t.output) === undefined)) continue;
        seen = true;
        const cache = isObject(t.cache) ? t.cache : {};
        addInto(total, {
          input: int(t.input),
          output: int(t.output),
          cache_read: int(cache.read),
          cache_write: int(cache.write),
        });
        costSum += cost(part.cost) ?? 0;
      }
      return {
        ...(seen ? { usage: total, ...(costSum > 0 ? { reportedCostUsd: costSum } : {}) } : {}),
        ...(errors.length ? { errors } : {}),
      };
    },
  );
}

/** Events of a plain log (one JSON object per line where there is one). */
export function eventsReader(): LineReader {
  return jsonLinesReader(
    () => {},
    () => ({}),
  );
}

// ── whole-text forms ────────────────────────────────────────────────────────────────────────────

export const parseClaudeCode = (stdout: string) => readAll(claudeCodeReader(), stdout);
export const parseCodex = (stdout: string) => readAll(codexReader(), stdout);
export const parseGeminiCli = (stdout: string) => readAll(geminiCliReader(), stdout);
export const parseCursorCli = (stdout: string) => readAll(cursorCliReader(), stdout);
export const parseOpencode = (stdout: string) => readAll(opencodeReader(), stdout);
/** The stdout's events, the usage from the trajectory file. */
export function parseMiniSweAgent(stdout: string, trajectoryFile?: string): ParsedAgentOutput {
  const { usage, reportedCostUsd } = readAll(miniSweAgentTrajectoryReader(), trajectoryFile);
  return {
    events: readAll(eventsReader(), stdout).events ?? [],
    ...(usage ? { usage } : {}),
    ...(reportedCostUsd !== undefined ? { reportedCostUsd } : {}),
  };
}
export function parseOpenHands(stdout: string, trajectoryFile?: string): ParsedAgentOutput {
  const { usage, reportedCostUsd } = readAll(openHandsTrajectoryReader(), trajectoryFile);
  return {
    events: readAll(eventsReader(), stdout).events ?? [],
    ...(usage ? { usage } : {}),
    ...(reportedCostUsd !== undefined ? { reportedCostUsd } : {}),
  };
}
