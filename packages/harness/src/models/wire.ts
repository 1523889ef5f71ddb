// biome-ignore-all lint/suspicious/noExplicitAny: provider JSON is read defensively, field by field
// Request bodies and response parsing of the two wire formats.
import type { ChatMessage, TokenUsage } from './types.ts';

export interface WireRequestOptions {
  maxTokens?: number | undefined;
  temperature?: number | undefined;
  /** OpenAI's own API wants max_completion_tokens; compatible hosts take max_tokens. */
  useMaxCompletionTokens?: boolean;
  /** OpenAI-style `reasoning_effort` (not sent to Anthropic: see thinkingBudgetTokens). */
  reasoningEffort?: string | undefined;
  /** Anthropic extended thinking: `thinking: {type: enabled, budget_tokens}`. */
  thinkingBudgetTokens?: number | undefined;
  /** Mark the last N messages with `cache_control: {type: ephemeral}` (content as text blocks). */
  cacheLastMessages?: number | undefined;
  /** Structured output: OpenAI `response_format` json_schema, strict. */
  responseFormat?: { name: string; schema: Record<string, unknown> } | undefined;
}

type TextBlock = { type: 'text'; text: string; cache_control?: { type: 'ephemeral' } };

/** OpenAI chat content parts: the text, then images (image_url) and PDFs (file), as data URLs. */
function openaiParts(m: ChatMessage): unknown[] {
  return [
    { type: 'text', text: m.content },
    ...(m.attachments ?? []).map((a) =>
      a.kind === 'image'
        ? { type: 'image_url', image_url: { url: `data:${a.media_type};base64,${a.data_base64}` } }
        : {
            type: 'file',
            file: { filename: a.filename, file_data: `data:${a.media_type};base64,${a.data_base64}` },
          },
    ),
  ];
}

/** Anthropic content blocks: the text, then image and document blocks (base64). */
function anthropicParts(m: ChatMessage): unknown[] {
  return [
    { type: 'text', text: m.content },
    ...(m.attachments ?? []).map((a) => ({
      type: a.kind === 'image' ? 'image' : 'document',
      source: { type: 'base64', media_type: a.media_type, data: a.data_base64 },
    })),
  ];
}

/** Message content as text blocks, the last `cacheLast` messages marked for the prompt cache. */
function cachedContent(messages: ChatMessage[], cacheLast: number): Array<string | TextBlock[]> {
  return messages.map((m, i) =>
    i >= messages.length - cacheLast
      ? [{ type: 'text', text: m.content, cache_control: { type: 'ephemeral' } }]
      : m.content,
  );
}

export const ANTHROPIC_VERSION = '2023-06-01';
export const ANTHROPIC_DEFAULT_MAX_TOKENS = 8192;

export function openaiBody(
  model: string,
  messages: ChatMessage[],
  o: WireRequestOptions,
): Record<string, unknown> {
  const content = cachedContent(messages, o.cacheLastMessages ?? 0);
  const body: Record<string, unknown> = {
    model,
    messages: messages.map((m, i) => ({
      role: m.role,
      content: m.attachments?.length ? openaiParts(m) : content[i],
    })),
  };
  if (o.maxTokens !== undefined)
    body[o.useMaxCompletionTokens ? 'max_completion_tokens' : 'max_tokens'] = o.maxTokens;
  if (o.temperature !== undefined) body.temperature = o.temperature;
  if (o.reasoningEffort !== undefined) body.reasoning_effort = o.reasoningEffort;
  if (o.responseFormat) {
    body.response_format = {
      type: 'json_schema',
      json_schema: { name: o.responseFormat.name, schema: o.responseFormat.schema, strict: true },
    };
  }
  return body;
}

export function anthropicBody(
  model: string,
  messages: ChatMessage[],
  o: WireRequestOptions,
): Record<string, unknown> {
  const system = messages
    .filter((m) => m.role === 'system')
    .map((m) => m.content)
    .join('\n\n');
  // Anthropic wants alternating user/assistant turns starting with user: merge neighbours
  // (as LiteLLM does: text blocks side by side when the content is in blocks).
  const conversation = messages.filter((m) => m.role !== 'system');
  const content = cachedContent(conversation, o.cacheLastMessages ?? 0);
  const turns: Array<{ role: 'user' | 'assistant'; content: string | TextBlock[] }> = [];
  conversation.forEach((m, i) => {
    const c = m.attachments?.length ? (anthropicParts(m) as TextBlock[]) : content[i]!;
    const last = turns[turns.length - 1];
    if (last && last.role === m.role) {
      if (typeof last.content === 'string' && typeof c === 'string') last.content += `\n\n${c}`;
      else {
        const asBlocks = (x: string | TextBlock[]): TextBlock[] =>
          typeof x === 'string' ? [{ type: 'text', text: x }] : x;
        last.content = [...asBlocks(last.content), ...asBlocks(c)];
      }
    } else turns.push({ role: m.role as 'user' | 'assistant', content: c });
  });
  if (turns[0]?.role === 'assistant') turns.unshift({ role: 'user', content: '(continue)' });
  const body: Record<string, unknown> = {
    model,
    max_tokens: o.maxTokens ?? ANTHROPIC_DEFAULT_MAX_TOKENS,
    messages: turns,
  };
  if (system) body.system = system;
  if (o.temperature !== undefined) body.temperature = o.temperature;
  if (o.thinkingBudgetTokens !== undefined)
    body.thinking = { type: 'enabled', budget_tokens: o.thinkingBudgetTokens };
  return body;
}

export interface ParsedCompletion {
  text: string;
  usage: TokenUsage;
  model: string | undefined;
  finishReason: string | undefined;
}

const int = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? Math.round(v) : 0);

/** Throws when the JSON is not a completion. */
export function parseOpenai(json: any): ParsedCompletion {
  const choice = json?.choices?.[0];
  if (!choice || typeof choice !== 'object') throw new Error('response has no choices[0]');
  const content = choice.message?.content;
  const text =
    typeof content === 'string'
      ? content
      : Array.isArray(content)
        ? content.map((p: any) => (typeof p?.text === 'string' ? p.text : '')).join('')
        : content == null
          ? ''
          : (() => {
              throw new Error('choices[0].message.content is not text');
            })();
  const u = json.usage ?? {};
  const prompt = int(u.prompt_tokens);
  const cached = Math.min(prompt, int(u.prompt_tokens_details?.cached_tokens));
  return {
    text,
    usage: { input: prompt - cached, output: int(u.completion_tokens), cache_read: cached, cache_write: 0 },
    model: typeof json.model === 'string' ? json.model : undefined,
    finishReason: typeof choice.finish_reason === 'string' ? choice.finish_reason : undefined,
  };
}

export function parseAnthropic(json: any): ParsedCompletion {
  if (json?.type !== 'message' || !Array.isArray(json.content)) throw new Error('response is not a message');
  const text = json.content
    .filter((b: any) => b?.type === 'text' && typeof b.text === 'string')
    .map((b: any) => b.text)
    .join('');
  const u = json.usage ?? {};
  return {
    text,
    usage: {
      input: int(u.input_tokens),
      output: int(u.output_tokens),
      cache_read: int(u.cache_read_input_tokens),
      cache_write: int(u.cache_creation_input_tokens),
    },
    model: typeof json.model === 'string' ? json.model : undefined,
    finishReason: typeof json.stop_reason === 'string' ? json.stop_reason : undefined,
  };
}

/** The provider's error message from an error body (either format), else the raw text. */
export function providerErrorMessage(raw: string): string {
  try {
    const json = JSON.parse(raw);
    const m = json?.error?.message ?? json?.message;
    if (typeof m === 'string') return m;
  } catch {
    // not JSON
  }
  return raw.slice(0, 500);
}

export function errorCode(raw: string): string | undefined {
  try {
    const json = JSON.parse(raw);
    const c = json?.error?.code ?? json?.error?.type;
    return typeof c === 'string' ? c : undefined;
  } catch {
    return undefined;
  }
}

/** What LiteLLM itself maps to its context-window error, whatever the provider. */
const OVERFLOW =
  /context[_ ]length|context window|maximum context|too many (input )?tokens|reduce the length/i;
/** Anthropic's own API: LiteLLM's Anthropic provider maps this too. */
const ANTHROPIC_OVERFLOW = /prompt is too long/i;
/** Without a caller's phrases: the proxies' Anthropic and Bedrock messages count as well. */
const PROXIED_OVERFLOW = /prompt is too long|input is too long/i;

/** Harbor's own context-length phrases for a terminus-2 profile, and the model's API. */
export interface OverflowPhrases {
  api: string;
  /** Lower-case phrases looked for in the whole error body (Harbor's `_is_context_length_error`). */
  phrases: readonly string[];
}

export function isContextOverflow(status: number, raw: string, harbor?: OverflowPhrases): boolean {
  if (status === 413) return true;
  if (status !== 400 && status !== 422) return false;
  const code = errorCode(raw) ?? '';
  const message = providerErrorMessage(raw);
  if (OVERFLOW.test(code) || OVERFLOW.test(message)) return true;
  if (!harbor) return PROXIED_OVERFLOW.test(message);
  if (harbor.api === 'anthropic' && ANTHROPIC_OVERFLOW.test(message)) return true;
  const text = raw.toLowerCase();
  return harbor.phrases.some((p) => text.includes(p));
}
