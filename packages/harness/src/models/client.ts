import { errorMessage } from '@osmosis/contracts';
import { createScrubber, parseJsonAt } from '@osmosis/core';
import { EgressError, type EgressPolicy, guardedFetch } from '@osmosis/egress';
import { modelEgressPolicy } from './egress.ts';
import { ModelError } from './errors.ts';
import { DEFAULT_PROVIDER_CONCURRENCY, providerLimiter, type Semaphore } from './limiter.ts';
import { CostMeter, costUnits, loadPrices, unitsToUsd } from './prices.ts';
import { providerConcurrencyEnv, type ResolvedModel, resolveModel } from './providers.ts';
import {
  backoffDelay,
  DEFAULT_RETRY_POLICY,
  isRetryableStatus,
  parseRetryAfter,
  type RetryPolicy,
  sleep,
} from './retry.ts';
import {
  addUsage,
  type ChatMessage,
  type ModelPrice,
  type ModelSpec,
  type TokenUsage,
  ZERO_USAGE,
} from './types.ts';
import {
  ANTHROPIC_VERSION,
  anthropicBody,
  isContextOverflow,
  type OverflowPhrases,
  openaiBody,
  type ParsedCompletion,
  parseAnthropic,
  parseOpenai,
  providerErrorMessage,
  type WireRequestOptions,
} from './wire.ts';

export interface ChatOptions {
  maxTokens?: number;
  temperature?: number;
  /** Aborts the call (and any backoff wait); the call then fails with class `aborted`. */
  signal?: AbortSignal;
  /** Further request fields (reasoning effort, thinking, prompt caching, structured output): wire.ts. */
  request?: Omit<WireRequestOptions, 'useMaxCompletionTokens'>;
}

export interface ChatResult {
  text: string;
  usage: TokenUsage;
  /** USD, or null when the model's price is unknown. */
  cost_usd: number | null;
  /** Model name the provider reported (or the requested one). */
  model: string;
  finish_reason: string | undefined;
  latency_ms: number;
  /** HTTP calls made, retries included. */
  attempts: number;
}

export interface ModelTotals {
  calls: number;
  usage: TokenUsage;
  cost_usd: number | null;
}

export interface ModelClientOptions {
  apiKey?: string | undefined;
  env?: NodeJS.ProcessEnv;
  retry?: Partial<RetryPolicy>;
  /** Per HTTP call (default 10 minutes); a timed-out call is retried like a connection error. */
  requestTimeoutMs?: number;
  /** In-flight calls per provider + base URL in this process (else env, else 16). */
  concurrency?: number;
  /** Price table (default: shipped + OSMOSIS_PRICES_FILE). */
  prices?: Map<string, ModelPrice>;
  random?: () => number;
  /** Harbor's context-length phrases of a terminus-2 profile (default: the proxies' messages too). */
  contextOverflowPhrases?: readonly string[];
  /** Called before each backoff wait (tests, logs). Never receives secrets. */
  onRetry?: (info: { attempt: number; delayMs: number; reason: string }) => void;
}

/** Error text kept from a provider (stored with the attempt): scrubbed first, then cut to this. */
export const MAX_PROVIDER_ERROR_CHARS = 500;
/** Largest response body read; a bigger one is refused (a hostile endpoint must not fill the worker's memory). */
export const MAX_RESPONSE_BYTES = 32 * 1024 * 1024;

function cut(text: string): string {
  return text.length > MAX_PROVIDER_ERROR_CHARS ? `${text.slice(0, MAX_PROVIDER_ERROR_CHARS)}… (cut)` : text;
}

/** The body as text, or null when it is larger than MAX_RESPONSE_BYTES (the rest is not read). */
async function readBody(response: { body: ReadableStream<Uint8Array> | null }): Promise<string | null> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_RESPONSE_BYTES) {
      await reader.cancel().catch(() => undefined);
      return null;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * One model, with retries, a shared concurrency limit, and running token/cost totals. Calls go
 * through @osmosis/egress: an endpoint on a loopback, private or link-local address is refused
 * unless the operator allow-listed it, and a redirect to another host (or port) is not followed,
 * so the key is never replayed anywhere else.
 */
export class ModelClient {
  readonly resolved: ResolvedModel;
  readonly price: ModelPrice | undefined;
  readonly #policy: RetryPolicy;
  readonly #limiter: Semaphore;
  readonly #timeoutMs: number;
  readonly #random: () => number;
  readonly #onRetry: ModelClientOptions['onRetry'];
  readonly #egress: EgressPolicy;
  readonly #overflowPhrases: OverflowPhrases | undefined;
  #calls = 0;
  #usage: TokenUsage = ZERO_USAGE;
  readonly #cost = new CostMeter();

  constructor(resolved: ResolvedModel, options: ModelClientOptions = {}) {
    const env = options.env ?? process.env;
    this.resolved = resolved;
    this.price = (options.prices ?? loadPrices(env)).get(resolved.priceKey);
    this.#policy = { ...DEFAULT_RETRY_POLICY, ...options.retry };
    const envLimit = Number(env[providerConcurrencyEnv(resolved.provider)]);
    const limit =
      options.concurrency ??
      (Number.isInteger(envLimit) && envLimit > 0 ? envLimit : DEFAULT_PROVIDER_CONCURRENCY);
    this.#limiter = providerLimiter(resolved.limiterKey, limit);
    this.#timeoutMs = options.requestTimeoutMs ?? 600_000;
    this.#random = options.random ?? Math.random;
    const phrases = options.contextOverflowPhrases;
    this.#overflowPhrases = phrases ? { api: this.resolved.api, phrases } : undefined;
    this.#onRetry = options.onRetry;
    this.#egress = modelEgressPolicy(resolved, env);
  }

  /** The name stored with results: `openai/gpt-5.2`, an endpoint's model, `hosted/…`. */
  get modelName(): string {
    return this.resolved.displayName;
  }

  totals(): ModelTotals {
    return { calls: this.#calls, usage: { ...this.#usage }, cost_usd: this.#cost.usd };
  }

  #secrets(): string[] {
    return [this.resolved.apiKey ?? '', ...Object.values(this.resolved.extraHeaders)];
  }

  #request(
    messages: ChatMessage[],
    options: ChatOptions,
  ): { url: string; init: { method: 'POST'; headers: Record<string, string>; body: string } } {
    const r = this.resolved;
    const wireOptions = {
      maxTokens: options.maxTokens,
      temperature: options.temperature,
      useMaxCompletionTokens: r.provider === 'openai',
      ...options.request,
    };
    if (r.api === 'anthropic') {
      const headers: Record<string, string> = {
        'content-type': 'application/json',
        'anthropic-version': ANTHROPIC_VERSION,
        ...r.extraHeaders,
      };
      if (r.apiKey) headers['x-api-key'] = r.apiKey;
      return {
        url: `${r.baseUrl}/v1/messages`,
        init: {
          method: 'POST',
          headers,
          body: JSON.stringify(anthropicBody(r.wireModel, messages, wireOptions)),
        },
      };
    }
    const headers: Record<string, string> = { 'content-type': 'application/json', ...r.extraHeaders };
    if (r.apiKey) headers.authorization = `Bearer ${r.apiKey}`;
    return {
      url: `${r.baseUrl}/chat/completions`,
      init: { method: 'POST', headers, body: JSON.stringify(openaiBody(r.wireModel, messages, wireOptions)) },
    };
  }

  async chat(messages: ChatMessage[], options: ChatOptions = {}): Promise<ChatResult> {
    const { url, init } = this.#request(messages, options);
    const started = Date.now();
    const scrubber = createScrubber(this.#secrets());
    const scrub = (s: string) => cut(scrubber.text(s));
    const signal = options.signal;
    let lastReason = '';
    for (let attempt = 1; ; attempt++) {
      if (signal?.aborted) throw new ModelError('aborted', 'model call aborted', { attempts: attempt - 1 });
      let retryAfterMs: number | undefined;
      const release = await this.#limiter.acquire(signal).catch(() => {
        throw new ModelError('aborted', 'model call aborted', { attempts: attempt - 1 });
      });
      try {
        const timeout = AbortSignal.timeout(this.#timeoutMs);
        const callSignal = signal ? AbortSignal.any([signal, timeout]) : timeout;
        let response: Awaited<ReturnType<typeof guardedFetch>>;
        let raw: string;
        try {
          response = await guardedFetch(
            url,
            { ...init, signal: callSignal },
            { policy: this.#egress, redirects: 'same-host' },
          );
          const body = await readBody(response);
          if (body === null)
            throw new ModelError(
              'provider_bad_response',
              `${this.modelName}: the response is larger than ${MAX_RESPONSE_BYTES} bytes; not read`,
              { status: response.status, attempts: attempt },
            );
          raw = body;
        } catch (error) {
          if (signal?.aborted) throw new ModelError('aborted', 'model call aborted', { attempts: attempt });
          if (error instanceof ModelError) throw error;
          // a destination the platform refuses (a private address, a redirect to another host):
          // the endpoint is misconfigured or hostile, and asking again cannot change that
          if (error instanceof EgressError)
            throw new ModelError('provider_config', `${this.modelName}: ${scrub(error.message)}`, {
              attempts: attempt,
            });
          lastReason = timeout.aborted
            ? `no answer within ${this.#timeoutMs} ms`
            : `connection error: ${scrub(String((error as Error)?.cause ?? error))}`;
          response = undefined as never;
          raw = '';
        }
        if (response) {
          if (response.ok) {
            let parsed: ParsedCompletion | undefined;
            try {
              // its error names a position: V8's quotes a piece of the reply, a key cut short
              const json = parseJsonAt(raw);
              parsed = this.resolved.api === 'anthropic' ? parseAnthropic(json) : parseOpenai(json);
            } catch (error) {
              lastReason = `malformed response (${scrub(errorMessage(error))})`;
            }
            if (parsed) return this.#record(parsed, started, attempt);
          } else {
            // scrubbed before providerErrorMessage takes its first characters (a key cut in two there would
            // escape the scrubber) and again after JSON unescaping
            const message = scrub(providerErrorMessage(scrubber.text(raw)));
            const status = response.status;
            if (status === 401 || status === 402 || status === 403) {
              throw new ModelError(
                'provider_auth',
                `${this.modelName}: HTTP ${status} (credentials rejected): ${message}`,
                {
                  status,
                  attempts: attempt,
                },
              );
            }
            if (isContextOverflow(status, raw, this.#overflowPhrases)) {
              throw new ModelError(
                'provider_context_overflow',
                `${this.modelName}: context too long: ${message}`,
                {
                  status,
                  attempts: attempt,
                },
              );
            }
            if (!isRetryableStatus(status)) {
              throw new ModelError('provider_bad_request', `${this.modelName}: HTTP ${status}: ${message}`, {
                status,
                attempts: attempt,
              });
            }
            lastReason = `HTTP ${status}: ${message}`;
            retryAfterMs = parseRetryAfter(response.headers as unknown as Headers);
          }
        }
      } finally {
        release();
      }
      if (attempt > this.#policy.maxRetries) {
        const cls = lastReason.startsWith('malformed') ? 'provider_bad_response' : 'provider_unavailable';
        throw new ModelError(cls, `${this.modelName}: gave up after ${attempt} tries: ${lastReason}`, {
          attempts: attempt,
        });
      }
      const delayMs =
        retryAfterMs !== undefined
          ? Math.min(retryAfterMs, this.#policy.maxRetryAfterMs)
          : backoffDelay(attempt - 1, this.#policy, this.#random);
      this.#onRetry?.({ attempt, delayMs, reason: lastReason });
      try {
        await sleep(delayMs, signal);
      } catch {
        throw new ModelError('aborted', 'model call aborted', { attempts: attempt });
      }
    }
  }

  #record(parsed: ParsedCompletion, started: number, attempts: number): ChatResult {
    this.#calls += 1;
    this.#usage = addUsage(this.#usage, parsed.usage);
    this.#cost.add(parsed.usage, this.price);
    return {
      text: parsed.text,
      usage: parsed.usage,
      cost_usd: this.price ? unitsToUsd(costUnits(parsed.usage, this.price)) : null,
      model: parsed.model ?? this.resolved.wireModel,
      finish_reason: parsed.finishReason,
      latency_ms: Date.now() - started,
      attempts,
    };
  }
}

/** Resolves a model spec (with the decrypted key) and returns its client. */
export function createModelClient(spec: ModelSpec, options: ModelClientOptions = {}): ModelClient {
  return new ModelClient(
    resolveModel(spec, { apiKey: options.apiKey, env: options.env ?? process.env }),
    options,
  );
}
