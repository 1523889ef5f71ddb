// One try of one webhook delivery: a signed POST through the egress guard. The receiver is a
// member-named destination: its address is checked before the connection and in the socket's own
// DNS lookup (loopback, private and link-local only with OSMOSIS_PRIVATE_NETWORK_ALLOWLIST), a
// redirect is never followed (its target could be anywhere), the answer's headers must come within
// the timeout, and its body is never read (a huge or endless body costs nothing). What is kept of a
// failure is the platform's own sentence: the HTTP status or the connection error's code, never a
// header, a body or the secret.
import { WEBHOOK_HEADERS } from '@osmosis/contracts';
import { webhookSignature } from '@osmosis/core';
import { EgressError, type EgressPolicy, guardedFetch, type ResolveAll } from '@osmosis/egress';

export interface WebhookRequest {
  url: string;
  /** the HMAC key (decrypted for this try only) */
  secret: string;
  event: string;
  deliveryId: string;
  /** the JSON document, sent byte for byte on every try */
  body: string;
}

export interface SendOptions {
  policy: EgressPolicy;
  timeoutMs: number;
  resolve?: ResolveAll;
}

export type WebhookTry = { ok: true; status: number } | { ok: false; status: number | null; error: string };

const MAX_ERROR_LENGTH = 500;

function hostOf(raw: string): string {
  try {
    return new URL(raw).host;
  } catch {
    return 'the receiver';
  }
}

function failure(error: unknown, request: WebhookRequest, timeoutMs: number): string {
  if (error instanceof EgressError) return error.message;
  const name = (error as { name?: string }).name;
  if (name === 'TimeoutError' || name === 'AbortError')
    return `${hostOf(request.url)} did not answer within ${timeoutMs} ms (OSMOSIS_WEBHOOK_TIMEOUT_MS)`;
  const cause = (error as { cause?: { code?: string; message?: string; name?: string } }).cause;
  if (cause?.name === 'TimeoutError' || cause?.name === 'AbortError')
    return `${hostOf(request.url)} did not answer within ${timeoutMs} ms (OSMOSIS_WEBHOOK_TIMEOUT_MS)`;
  const code = cause?.code ?? (error as { code?: string }).code;
  return `could not deliver to ${hostOf(request.url)}: ${code ?? cause?.message ?? (error as Error).message ?? 'connection failed'}`;
}

/** A 2xx is a delivery; anything else (another status, a refusal, a timeout) is a failed try. */
export async function sendWebhook(request: WebhookRequest, options: SendOptions): Promise<WebhookTry> {
  const timestamp = String(Math.floor(Date.now() / 1000));
  try {
    const response = await guardedFetch(
      request.url,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'user-agent': 'osmosis-webhooks/1',
          [WEBHOOK_HEADERS.event]: request.event,
          [WEBHOOK_HEADERS.delivery]: request.deliveryId,
          [WEBHOOK_HEADERS.timestamp]: timestamp,
          [WEBHOOK_HEADERS.signature]: webhookSignature(request.secret, timestamp, request.body),
        },
        body: request.body,
        signal: AbortSignal.timeout(options.timeoutMs),
      },
      { policy: options.policy, redirects: 'none', ...(options.resolve ? { resolve: options.resolve } : {}) },
    );
    // the status is all a delivery needs: the body is dropped unread
    await response.body?.cancel().catch(() => undefined);
    if (response.status >= 200 && response.status < 300) return { ok: true, status: response.status };
    return {
      ok: false,
      status: response.status,
      error: `${hostOf(request.url)} answered HTTP ${response.status}`,
    };
  } catch (error) {
    const message = failure(error, request, options.timeoutMs).split(request.secret).join('***');
    return { ok: false, status: null, error: message.slice(0, MAX_ERROR_LENGTH) };
  }
}
