// HTTP requests to destinations a member named (registry documents and archives, model endpoints).
// Every connection goes through guardedLookup, and redirects are followed by hand so each hop is
// checked: `redirects: 'same-host'` (model endpoints: a key sent to one origin is never replayed to
// another), `'checked'` (public downloads: any hop the policy allows), or `'none'`; no hop drops
// from https to http (redirect-rule.ts). Under 'checked', a hop that leaves the first URL's origin
// goes without the caller's credential headers (credential-headers.ts).
import { Agent, type Dispatcher, type RequestInit, type Response, fetch as undiciFetch } from 'undici';
import { withoutCredentials } from './credential-headers.ts';
import {
  checkUrl,
  EgressError,
  type EgressPolicy,
  guardedLookup,
  hostOf,
  type ResolveAll,
} from './policy.ts';
import { redirectRefusal } from './redirect-rule.ts';

export type RedirectPolicy = 'none' | 'same-host' | 'checked';

export interface GuardedFetchOptions {
  policy: EgressPolicy;
  /** allowed schemes (default http, https) */
  schemes?: readonly string[];
  redirects?: RedirectPolicy;
  /** default 5 */
  maxRedirects?: number;
  /** injectable DNS for tests */
  resolve?: ResolveAll;
  /** reuse one dispatcher across calls (keep-alive); default: one per policy object */
  dispatcher?: Dispatcher;
}

const dispatchers = new WeakMap<EgressPolicy, Dispatcher>();

/** A keep-alive connection pool whose every connection is checked against `policy`. */
export function guardedDispatcher(policy: EgressPolicy, resolve?: ResolveAll): Dispatcher {
  if (!resolve) {
    const known = dispatchers.get(policy);
    if (known) return known;
  }
  const agent = new Agent({ connect: { lookup: guardedLookup(policy, resolve) } });
  if (!resolve) dispatchers.set(policy, agent);
  return agent;
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/** undici's fetch under the egress policy; the Response is undici's (WHATWG-compatible). */
export async function guardedFetch(
  url: string | URL,
  init: RequestInit,
  options: GuardedFetchOptions,
): Promise<Response> {
  const schemes = options.schemes ?? ['http', 'https'];
  const redirects = options.redirects ?? 'none';
  const maxRedirects = options.maxRedirects ?? 5;
  const dispatcher = options.dispatcher ?? guardedDispatcher(options.policy, options.resolve);
  let current = await checkUrl(
    String(url),
    options.policy,
    options.resolve ? { schemes, resolve: options.resolve } : { schemes },
  );
  // fetch would refuse user:pass@ with a TypeError quoting the whole URL, password included, and
  // callers store and log that message: refuse it here, naming the host only
  if (current.username || current.password) {
    throw new EgressError(
      'EGRESS_URL',
      `the URL for ${hostOf(current)} carries a user name or password (user:pass@host), which is not sent; pass the credential in a header`,
      hostOf(current),
    );
  }
  const first = current;
  let requestInit: RequestInit = init;
  for (let hop = 0; ; hop++) {
    let response: Response;
    try {
      response = await undiciFetch(current, { ...requestInit, redirect: 'manual', dispatcher });
    } catch (error) {
      // the connection's own lookup refused the address: surface the policy's message
      const cause = (error as { cause?: unknown }).cause;
      if (cause instanceof EgressError) throw cause;
      throw error;
    }
    if (!REDIRECT_STATUSES.has(response.status)) return response;
    const location = response.headers.get('location');
    if (!location) return response;
    await response.body?.cancel().catch(() => undefined);
    if (redirects === 'none') {
      throw new EgressError(
        'EGRESS_REDIRECT',
        `${hostOf(current)} answered with a redirect, which is not followed`,
      );
    }
    if (hop >= maxRedirects) {
      throw new EgressError('EGRESS_REDIRECT', `more than ${maxRedirects} redirects from ${hostOf(current)}`);
    }
    let next: URL;
    try {
      next = new URL(location, current);
    } catch {
      throw new EgressError('EGRESS_REDIRECT', `${hostOf(current)} redirected to an invalid URL`);
    }
    const refusal = redirectRefusal(first, current, next, redirects === 'same-host');
    if (refusal) throw new EgressError('EGRESS_REDIRECT', refusal, hostOf(next));
    current = await checkUrl(
      next.href,
      options.policy,
      options.resolve ? { schemes, resolve: options.resolve } : { schemes },
    );
    // 303, and 301/302 after a POST, become GET without a body (as browsers and fetch do)
    const method = (requestInit.method ?? 'GET').toUpperCase();
    if (
      response.status === 303 ||
      ((response.status === 301 || response.status === 302) && method === 'POST')
    ) {
      const { body: _body, ...rest } = requestInit;
      requestInit = { ...rest, method: 'GET' };
    }
    // once off the first origin, credentials stay off (a later hop back does not regain them)
    if (current.origin !== first.origin) requestInit = withoutCredentials(requestInit);
  }
}
