// Wire formats the fake model server speaks beyond plain chat completions and messages: tool
// calls, server-sent-event streams, the OpenAI Responses API and the Gemini API. Each function
// renders one scripted turn (text and/or tool calls, with the token numbers to report) the way
// the real provider sends it, so the real CLIs (Claude Code, Codex, Gemini CLI, opencode) can
// run against the fake. Sources: Anthropic's "Streaming Messages" reference, OpenAI's Chat
// Completions and Responses streaming references, Gemini's GenerateContentResponse reference.

/** A tool the scripted model calls, with its arguments. */
export interface FakeToolCall {
  name: string;
  input: Record<string, unknown>;
}

/** Token numbers of one scripted reply. `input` excludes cached tokens on every wire format. */
export interface FakeTurnUsage {
  input?: number;
  output?: number;
  cacheRead?: number;
  cacheWrite?: number;
  /** OpenAI-style: reasoning tokens, part of `output`. Gemini: thoughts, reported beside `output`. */
  reasoning?: number;
  /** Gemini only: toolUsePromptTokenCount. */
  tool?: number;
}

export interface FakeTurn {
  text?: string;
  toolCalls?: FakeToolCall[];
  usage: FakeTurnUsage;
  model: string;
  /** Serial number of the reply (ids are derived from it). */
  n: number;
  finishReason?: string;
}

const n0 = (v: number | undefined) => v ?? 0;
const sse = (event: string | null, data: unknown) =>
  `${event ? `event: ${event}\n` : ''}data: ${JSON.stringify(data)}\n\n`;
const toolId = (prefix: string, turn: FakeTurn, i: number) => `${prefix}_fake_${turn.n}_${i}`;

// ── Anthropic Messages ──────────────────────────────────────────────────────────────────────────

function anthropicUsage(u: FakeTurnUsage, output: number) {
  return {
    input_tokens: n0(u.input),
    cache_creation_input_tokens: n0(u.cacheWrite),
    cache_read_input_tokens: n0(u.cacheRead),
    output_tokens: output,
  };
}

function anthropicBlocks(turn: FakeTurn): Record<string, unknown>[] {
  const blocks: Record<string, unknown>[] = [];
  if (turn.text) blocks.push({ type: 'text', text: turn.text });
  for (const [i, call] of (turn.toolCalls ?? []).entries()) {
    blocks.push({ type: 'tool_use', id: toolId('toolu', turn, i), name: call.name, input: call.input });
  }
  return blocks;
}

const anthropicStop = (turn: FakeTurn) =>
  turn.finishReason ?? (turn.toolCalls?.length ? 'tool_use' : 'end_turn');

export function anthropicMessageJson(turn: FakeTurn): unknown {
  return {
    id: `msg_fake_${turn.n}`,
    type: 'message',
    role: 'assistant',
    model: turn.model,
    content: anthropicBlocks(turn),
    stop_reason: anthropicStop(turn),
    stop_sequence: null,
    usage: anthropicUsage(turn.usage, n0(turn.usage.output)),
  };
}

/** message_start, one content block per text/tool call (deltas), message_delta with the final usage, message_stop. */
export function anthropicMessageSse(turn: FakeTurn): string {
  const out: string[] = [];
  out.push(
    sse('message_start', {
      type: 'message_start',
      message: {
        id: `msg_fake_${turn.n}`,
        type: 'message',
        role: 'assistant',
        model: turn.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        // as the API does: the input side at the start, output_tokens final in message_delta
        usage: anthropicUsage(turn.usage, 1),
      },
    }),
  );
  for (const [index, block] of anthropicBlocks(turn).entries()) {
    if (block.type === 'text') {
      out.push(
        sse('content_block_start', {
          type: 'content_block_start',
          index,
          content_block: { type: 'text', text: '' },
        }),
      );
      out.push(
        sse('content_block_delta', {
          type: 'content_block_delta',
          index,
          delta: { type: 'text_delta', text: block.text },
        }),
      );
    } else {
      out.push(
        sse('content_block_start', {
          type: 'content_block_start',
          index,
          content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} },
        }),
      );
      out.push(
        sse('content_block_delta', {
          type: 'content_block_delta',
          index,
          delta: { type: 'input_json_delta', partial_json: JSON.stringify(block.input) },
        }),
      );
    }
    out.push(sse('content_block_stop', { type: 'content_block_stop', index }));
  }
  out.push(
    sse('message_delta', {
      type: 'message_delta',
      delta: { stop_reason: anthropicStop(turn), stop_sequence: null },
      usage: { output_tokens: n0(turn.usage.output) },
    }),
  );
  out.push(sse('message_stop', { type: 'message_stop' }));
  return out.join('');
}

// ── OpenAI chat completions ─────────────────────────────────────────────────────────────────────

function chatUsage(u: FakeTurnUsage) {
  const prompt = n0(u.input) + n0(u.cacheRead);
  return {
    // OpenAI counts cached prompt tokens inside prompt_tokens, reasoning inside completion_tokens.
    prompt_tokens: prompt,
    completion_tokens: n0(u.output),
    total_tokens: prompt + n0(u.output),
    prompt_tokens_details: { cached_tokens: n0(u.cacheRead) },
    completion_tokens_details: { reasoning_tokens: n0(u.reasoning) },
  };
}

const chatFinish = (turn: FakeTurn) => turn.finishReason ?? (turn.toolCalls?.length ? 'tool_calls' : 'stop');
const chatToolCalls = (turn: FakeTurn) =>
  (turn.toolCalls ?? []).map((call, i) => ({
    id: toolId('call', turn, i),
    type: 'function',
    function: { name: call.name, arguments: JSON.stringify(call.input) },
  }));

export function chatCompletionJson(turn: FakeTurn): unknown {
  const calls = chatToolCalls(turn);
  return {
    id: `chatcmpl-fake-${turn.n}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: turn.model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: turn.text ?? null,
          ...(calls.length ? { tool_calls: calls } : {}),
        },
        finish_reason: chatFinish(turn),
      },
    ],
    usage: chatUsage(turn.usage),
  };
}

/** Chunks with deltas, then (when asked with stream_options.include_usage) a usage chunk, then [DONE]. */
export function chatCompletionSse(turn: FakeTurn, includeUsage: boolean): string {
  const base = {
    id: `chatcmpl-fake-${turn.n}`,
    object: 'chat.completion.chunk',
    created: Math.floor(Date.now() / 1000),
    model: turn.model,
  };
  const chunk = (delta: unknown, finish: string | null) =>
    sse(null, { ...base, choices: [{ index: 0, delta, finish_reason: finish }] });
  const out: string[] = [chunk({ role: 'assistant', content: '' }, null)];
  if (turn.text) out.push(chunk({ content: turn.text }, null));
  for (const [index, call] of chatToolCalls(turn).entries()) {
    out.push(
      chunk(
        {
          tool_calls: [
            { index, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } },
          ],
        },
        null,
      ),
    );
    out.push(chunk({ tool_calls: [{ index, function: { arguments: call.function.arguments } }] }, null));
  }
  out.push(chunk({}, chatFinish(turn)));
  if (includeUsage) out.push(sse(null, { ...base, choices: [], usage: chatUsage(turn.usage) }));
  out.push('data: [DONE]\n\n');
  return out.join('');
}

// ── OpenAI Responses ────────────────────────────────────────────────────────────────────────────

function responsesUsage(u: FakeTurnUsage) {
  const input = n0(u.input) + n0(u.cacheRead);
  return {
    input_tokens: input,
    input_tokens_details: { cached_tokens: n0(u.cacheRead) },
    output_tokens: n0(u.output),
    output_tokens_details: { reasoning_tokens: n0(u.reasoning) },
    total_tokens: input + n0(u.output),
  };
}

function responsesOutput(turn: FakeTurn): Record<string, unknown>[] {
  const items: Record<string, unknown>[] = [];
  if (turn.text) {
    items.push({
      type: 'message',
      id: `msg_fake_${turn.n}`,
      status: 'completed',
      role: 'assistant',
      content: [{ type: 'output_text', text: turn.text, annotations: [] }],
    });
  }
  for (const [i, call] of (turn.toolCalls ?? []).entries()) {
    items.push({
      type: 'function_call',
      id: toolId('fc', turn, i),
      call_id: toolId('call', turn, i),
      name: call.name,
      arguments: JSON.stringify(call.input),
      status: 'completed',
    });
  }
  return items;
}

function responseObject(turn: FakeTurn, status: string, output: unknown[], usage: unknown) {
  return {
    id: `resp_fake_${turn.n}`,
    object: 'response',
    created_at: Math.floor(Date.now() / 1000),
    status,
    model: turn.model,
    output,
    usage,
  };
}

export function responsesJson(turn: FakeTurn): unknown {
  return responseObject(turn, 'completed', responsesOutput(turn), responsesUsage(turn.usage));
}

/** response.created, each output item added/done (text deltas), response.completed with usage. */
export function responsesEvents(turn: FakeTurn): Record<string, unknown>[] {
  let seq = 0;
  const ev = (type: string, data: Record<string, unknown>) => ({ type, sequence_number: seq++, ...data });
  const out = [ev('response.created', { response: responseObject(turn, 'in_progress', [], null) })];
  const items = responsesOutput(turn);
  for (const [output_index, item] of items.entries()) {
    if (item.type === 'message') {
      const text = turn.text ?? '';
      out.push(
        ev('response.output_item.added', {
          output_index,
          item: { ...item, status: 'in_progress', content: [] },
        }),
      );
      out.push(
        ev('response.content_part.added', {
          item_id: item.id,
          output_index,
          content_index: 0,
          part: { type: 'output_text', text: '', annotations: [] },
        }),
      );
      out.push(
        ev('response.output_text.delta', { item_id: item.id, output_index, content_index: 0, delta: text }),
      );
      out.push(ev('response.output_text.done', { item_id: item.id, output_index, content_index: 0, text }));
      out.push(
        ev('response.content_part.done', {
          item_id: item.id,
          output_index,
          content_index: 0,
          part: { type: 'output_text', text, annotations: [] },
        }),
      );
    } else {
      out.push(
        ev('response.output_item.added', {
          output_index,
          item: { ...item, status: 'in_progress', arguments: '' },
        }),
      );
      out.push(
        ev('response.function_call_arguments.delta', {
          item_id: item.id,
          output_index,
          delta: item.arguments,
        }),
      );
      out.push(
        ev('response.function_call_arguments.done', {
          item_id: item.id,
          output_index,
          arguments: item.arguments,
        }),
      );
    }
    out.push(ev('response.output_item.done', { output_index, item }));
  }
  out.push(
    ev('response.completed', {
      response: responseObject(turn, 'completed', items, responsesUsage(turn.usage)),
    }),
  );
  return out;
}

export function responsesSse(turn: FakeTurn): string {
  return responsesEvents(turn)
    .map((e) => sse(e.type as string, e))
    .join('');
}

// ── Gemini ──────────────────────────────────────────────────────────────────────────────────────

function geminiUsage(u: FakeTurnUsage) {
  const prompt = n0(u.input) + n0(u.cacheRead);
  return {
    // promptTokenCount includes the cached tokens; thoughts are reported beside the candidates.
    promptTokenCount: prompt,
    candidatesTokenCount: n0(u.output),
    ...(u.cacheRead ? { cachedContentTokenCount: u.cacheRead } : {}),
    ...(u.reasoning ? { thoughtsTokenCount: u.reasoning } : {}),
    ...(u.tool ? { toolUsePromptTokenCount: u.tool } : {}),
    totalTokenCount: prompt + n0(u.output) + n0(u.reasoning) + n0(u.tool),
  };
}

function geminiParts(turn: FakeTurn): Record<string, unknown>[] {
  const parts: Record<string, unknown>[] = [];
  if (turn.text) parts.push({ text: turn.text });
  for (const call of turn.toolCalls ?? [])
    parts.push({ functionCall: { name: call.name, args: call.input } });
  return parts;
}

export function geminiJson(turn: FakeTurn): unknown {
  return {
    candidates: [
      {
        content: { role: 'model', parts: geminiParts(turn) },
        finishReason: turn.finishReason ?? 'STOP',
        index: 0,
      },
    ],
    usageMetadata: geminiUsage(turn.usage),
    modelVersion: turn.model,
    responseId: `gemini-fake-${turn.n}`,
  };
}

/** `:streamGenerateContent?alt=sse`: one chunk per part, the last with finishReason and usage. */
export function geminiSse(turn: FakeTurn): string {
  const parts = geminiParts(turn);
  if (parts.length === 0) parts.push({ text: '' });
  return parts
    .map((part, i) => {
      const last = i === parts.length - 1;
      return sse(null, {
        candidates: [
          {
            content: { role: 'model', parts: [part] },
            ...(last ? { finishReason: turn.finishReason ?? 'STOP' } : {}),
            index: 0,
          },
        ],
        ...(last ? { usageMetadata: geminiUsage(turn.usage) } : {}),
        modelVersion: turn.model,
        responseId: `gemini-fake-${turn.n}`,
      });
    })
    .join('');
}
