// biome-ignore-all lint/suspicious/noExplicitAny: CLI output is read defensively, field by field
// What every installed agent's output reader is made of: the reader interface, the bounded tail
// of events, the JSON-lines reader and the token arithmetic they share.
import type { TokenUsage } from '../models/types.ts';

/** What an installed agent's output says about its run. */
export interface ParsedAgentOutput {
  usage?: TokenUsage;
  /** Cost the CLI itself reported (used when the platform's price table lacks the model). */
  reportedCostUsd?: number;
  /** Structured events the CLI printed (the last ones; stored in the trajectory). */
  events?: unknown[];
  /** Errors the CLI reported as events (opencode): the run failed for a reason that is not the model's work. */
  errors?: string[];
}

/** Fed every line of one or more files, in order; `file` announces each new file. */
export interface LineReader {
  file?(path: string): void;
  line(text: string): void;
  done(): ParsedAgentOutput;
}

export const MAX_EVENTS = 2000;
const MAX_EVENT_BYTES = 4 * 1024 * 1024;

/** A token count: a finite number ≥ 0 (rounded), else undefined (unknown). */
export const count = (v: unknown): number | undefined =>
  typeof v === 'number' && Number.isFinite(v) && v >= 0 ? Math.round(v) : undefined;
export const int = (v: unknown): number => count(v) ?? 0;
/** A cost the CLI reported: only a finite positive number (CLIs print 0 for unpriced models). */
export const cost = (v: unknown): number | undefined =>
  typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : undefined;
export const isObject = (v: unknown): v is Record<string, any> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Usage from a prompt total that includes cached tokens (OpenAI/LiteLLM/Gemini convention):
 * the plain input is what is left after the cache reads and writes.
 */
export function fromPromptTotal(
  prompt: number,
  output: number,
  cacheRead: number,
  cacheWrite: number,
): TokenUsage {
  const read = Math.min(cacheRead, prompt);
  const write = Math.min(cacheWrite, prompt - read);
  return { input: prompt - read - write, output, cache_read: read, cache_write: write };
}

export const zero = (): TokenUsage => ({ input: 0, output: 0, cache_read: 0, cache_write: 0 });
export function addInto(total: TokenUsage, u: TokenUsage): void {
  total.input += u.input;
  total.output += u.output;
  total.cache_read += u.cache_read;
  total.cache_write += u.cache_write;
}

export function jsonLine(text: string): any {
  const t = text.trim();
  if (!t.startsWith('{')) return undefined;
  try {
    return JSON.parse(t);
  } catch {
    return undefined;
  }
}

/** The last events of a stream, bounded in count and bytes. */
class EventTail {
  #events: { event: unknown; bytes: number }[] = [];
  #bytes = 0;
  push(event: unknown, bytes: number): void {
    this.#events.push({ event, bytes });
    this.#bytes += bytes;
    while (this.#events.length > MAX_EVENTS || (this.#bytes > MAX_EVENT_BYTES && this.#events.length > 1)) {
      this.#bytes -= this.#events.shift()!.bytes;
    }
  }
  get events(): unknown[] {
    return this.#events.map((e) => e.event);
  }
}

/** A reader of JSON lines: `onEvent` sees each parsed object; every object is kept as an event. */
export function jsonLinesReader(
  onEvent: (e: any) => void,
  finish: () => Omit<ParsedAgentOutput, 'events'>,
): LineReader {
  const tail = new EventTail();
  return {
    line(text) {
      const e = jsonLine(text);
      if (!isObject(e)) return;
      tail.push(e, text.length);
      onEvent(e);
    },
    done: () => ({ events: tail.events, ...finish() }),
  };
}

/** Feeds a whole text to a reader (tests, and files small enough to read at once). */
export function readAll(reader: LineReader, text: string | undefined): ParsedAgentOutput {
  if (text) for (const line of text.split('\n')) reader.line(line);
  return reader.done();
}
