// Where the platform may connect on behalf of a member: a URL's scheme must be allowed, and every
// address its host resolves to must be public or allow-listed by the operator. The check runs
// before a connection (to give a clear error) and again inside the connection's own DNS lookup
// (guardedLookup), so a name that resolves to a public address at the check and to a private one
// a moment later (DNS rebinding) is still refused.
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { type AddressKind, classifyAddress } from './address.ts';
import { ALLOWLIST_ENV, type AllowList, addressAllowed, hostAllowed } from './allowlist.ts';

export type EgressErrorCode =
  | 'EGRESS_URL'
  | 'EGRESS_SCHEME'
  | 'EGRESS_ADDRESS'
  | 'EGRESS_DNS'
  | 'EGRESS_REDIRECT';

/**
 * A destination the platform refuses. The message is safe to show the member who named it: it
 * names the host and the fix, never the address a name resolved to (that would let a member map
 * the operator's private DNS). `detail` holds the address for the operator's logs.
 */
export class EgressError extends Error {
  readonly code: EgressErrorCode;
  readonly host: string | null;
  readonly detail: string | null;
  constructor(
    code: EgressErrorCode,
    message: string,
    host: string | null = null,
    detail: string | null = null,
  ) {
    super(message);
    this.name = 'EgressError';
    this.code = code;
    this.host = host;
    this.detail = detail;
  }
}

/** What may be reached: the operator's allowlist for non-public hosts. */
export interface EgressPolicy {
  allow: AllowList;
}

/** Resolves a host name to all its addresses (injectable for tests). */
export type ResolveAll = (host: string) => Promise<LookupAddress[]>;

export const resolveAll: ResolveAll = (host) =>
  new Promise((resolve, reject) =>
    dnsLookup(host, { all: true, verbatim: true }, (error, addresses) =>
      error ? reject(error) : resolve(addresses),
    ),
  );

/** The URL's host as used for DNS and allowlists (brackets of IPv6 literals removed). */
export function hostOf(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
}

function refusal(host: string, kind: AddressKind, address: string): EgressError {
  return new EgressError(
    'EGRESS_ADDRESS',
    `"${host}" is not a public internet address, so the platform will not connect to it; ` +
      `an operator can allow it with ${ALLOWLIST_ENV}=${host} (see docs/security.md)`,
    host,
    `${address} (${kind})`,
  );
}

/** Throws unless `address` (an IP that `host` resolved to, or the host itself) may be reached. */
export function assertAddressAllowed(policy: EgressPolicy, host: string, address: string): void {
  const kind = classifyAddress(address);
  if (kind === 'public') return;
  if (hostAllowed(policy.allow, host) || addressAllowed(policy.allow, address)) return;
  throw refusal(host, kind, address);
}

export interface CheckUrlOptions {
  /** allowed schemes, without the colon (`https`, `git`, …) */
  schemes: readonly string[];
  resolve?: ResolveAll;
}

/**
 * Parses `raw` and checks its scheme and every address its host resolves to. Returns the URL.
 * Refuses URLs with credentials-like tricks only as far as the scheme and host go: the caller
 * decides what else a URL may carry.
 */
export async function checkUrl(raw: string, policy: EgressPolicy, options: CheckUrlOptions): Promise<URL> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    // never quote `raw`: a URL can carry a credential (user:key@, ?key=, a webhook token), and
    // this message reaches responses, a delivery's last_error and logs
    throw new EgressError(
      'EGRESS_URL',
      'the URL given is not a valid URL (check its host, port and characters; it is not repeated here as it may hold a credential)',
    );
  }
  const scheme = url.protocol.replace(/:$/, '');
  if (!options.schemes.includes(scheme)) {
    throw new EgressError(
      'EGRESS_SCHEME',
      `the URL scheme "${scheme}" is not allowed here; use ${options.schemes.join(', ')}`,
      hostOf(url),
    );
  }
  const host = hostOf(url);
  if (!host) throw new EgressError('EGRESS_URL', `the ${scheme} URL given has no host`);
  if (isIP(host)) {
    assertAddressAllowed(policy, host, host);
    return url;
  }
  if (hostAllowed(policy.allow, host)) return url;
  let addresses: LookupAddress[];
  try {
    addresses = await (options.resolve ?? resolveAll)(host);
  } catch (error) {
    throw new EgressError(
      'EGRESS_DNS',
      `the host "${host}" could not be resolved (${(error as NodeJS.ErrnoException).code ?? 'DNS error'})`,
      host,
    );
  }
  if (addresses.length === 0) throw new EgressError('EGRESS_DNS', `the host "${host}" has no address`, host);
  for (const a of addresses) assertAddressAllowed(policy, host, a.address);
  return url;
}

/**
 * A `dns.lookup`-compatible function for sockets (net/tls `lookup`, undici's `connect.lookup`)
 * that fails the connection when the name resolves to an address the policy refuses.
 */
export function guardedLookup(policy: EgressPolicy, resolve: ResolveAll = resolveAll): LookupFunction {
  return ((hostname: string, options: unknown, callback: unknown) => {
    const cb = (typeof options === 'function' ? options : callback) as (
      error: NodeJS.ErrnoException | null,
      address: string | LookupAddress[],
      family?: number,
    ) => void;
    const opts = (typeof options === 'object' && options ? options : {}) as {
      all?: boolean;
      family?: number;
    };
    resolve(hostname).then(
      (addresses) => {
        const wanted = opts.family ? addresses.filter((a) => a.family === opts.family) : addresses;
        if (wanted.length === 0) {
          const error: NodeJS.ErrnoException = new Error(`no address for ${hostname}`);
          error.code = 'ENOTFOUND';
          cb(error, opts.all ? [] : '', 0);
          return;
        }
        try {
          for (const a of wanted) assertAddressAllowed(policy, hostname, a.address);
        } catch (error) {
          cb(error as NodeJS.ErrnoException, opts.all ? [] : '', 0);
          return;
        }
        if (opts.all) cb(null, wanted);
        else cb(null, wanted[0]!.address, wanted[0]!.family);
      },
      (error: NodeJS.ErrnoException) => cb(error, opts.all ? [] : '', 0),
    );
  }) as LookupFunction;
}
