// Why an image a task names could not be supplied. Every message names the reason and the fix,
// and is safe to show the member who named the image: no credential (scrubbed by the caller's
// policy) and no address a name resolved to.

/**
 * - `refused`: the operator's policy does not allow the reference (registry, address, syntax);
 * - `not_found`: the registry has no such repository, tag or digest;
 * - `unauthorized`: the registry refused the operator's credential (or asked for one);
 * - `unreachable`: the registry could not be reached (DNS, connection refused, TLS);
 * - `transient`: a timeout, a rate limit, a registry's 5xx or a cut transfer: worth another try.
 */
export type ImagePullErrorKind = 'refused' | 'not_found' | 'unauthorized' | 'unreachable' | 'transient';

export class ImagePullError extends Error {
  readonly kind: ImagePullErrorKind;
  /** the reference as the task named it (printable, capped) */
  readonly reference: string;
  /** only transient failures are worth retrying */
  readonly retryable: boolean;
  /** for the operator's log: what the engine or the policy said (may name addresses) */
  readonly detail: string | null;

  constructor(kind: ImagePullErrorKind, reference: string, message: string, detail: string | null = null) {
    super(message);
    this.name = 'ImagePullError';
    this.kind = kind;
    this.reference = reference;
    this.retryable = kind === 'transient';
    this.detail = detail;
  }
}

const RULES: [ImagePullErrorKind, RegExp][] = [
  ['transient', /toomanyrequests|too many requests|rate limit/i],
  [
    'unauthorized',
    /unauthorized|authentication required|no basic auth credentials|incorrect username or password|\b401\b/i,
  ],
  [
    'not_found',
    /manifest unknown|not found|name unknown|repository does not exist|no matching manifest|requested access to the resource is denied/i,
  ],
  [
    'unreachable',
    /no such host|connection refused|server misbehaving|network is unreachable|no route to host|x509|certificate|tls: |http response to https client|invalid character '<'/i,
  ],
  [
    'transient',
    /timeout|timed out|deadline exceeded|connection reset|unexpected eof|\beof\b|broken pipe|\b5\d\d\b|service unavailable|bad gateway|temporar/i,
  ],
];

/** The kind of a pull failure from the engine's message (its words, not a status code). */
export function classifyPullFailure(engineMessage: string): ImagePullErrorKind {
  for (const [kind, pattern] of RULES) if (pattern.test(engineMessage)) return kind;
  return 'transient';
}

const FIX: Record<Exclude<ImagePullErrorKind, 'refused'>, string> = {
  not_found: 'check the repository, tag or digest the task names',
  unauthorized:
    'the registry wants a credential the worker does not have or refused it: an operator sets it in OSMOSIS_REGISTRY_AUTH_FILE or OSMOSIS_REGISTRY_AUTH (docs/deployment.md, "Images")',
  unreachable:
    "the worker could not connect to the registry: check the registry's name, the worker's DNS and network, or set a mirror (OSMOSIS_IMAGE_MIRROR)",
  transient: 'the registry or the network failed for a moment; the attempt may be retried',
};

const WHAT: Record<Exclude<ImagePullErrorKind, 'refused'>, string> = {
  not_found: 'was not found in its registry',
  unauthorized: 'could not be pulled: the registry refused access',
  unreachable: 'could not be pulled: the registry is unreachable',
  transient: 'could not be pulled',
};

/** The error for a failed pull; `detail` is the engine's message, already scrubbed. */
export function pullFailure(reference: string, source: string, detail: string): ImagePullError {
  const kind = classifyPullFailure(detail);
  const k = kind as Exclude<ImagePullErrorKind, 'refused'>;
  const excerpt = detail.replace(/\s+/g, ' ').trim().slice(0, 300);
  return new ImagePullError(
    kind,
    reference,
    `image ${reference} ${WHAT[k]} (from ${source}): ${excerpt}; ${FIX[k]}`,
    detail,
  );
}

/**
 * A pull of the digest the run pinned (not one the task named) that the registry no longer has:
 * the tag moved and the image it named was deleted. Said as such, since the task's own reference
 * still resolves and "not found" alone would not tell the member why.
 */
export function pinnedDigestGone(error: ImagePullError, reference: string, digest: string): ImagePullError {
  return new ImagePullError(
    'not_found',
    error.reference,
    `image ${reference} at the digest this run is pinned to (${digest}) is no longer in its registry: the tag has moved since and the image it named was deleted. Every attempt of a run gets the image the run pinned (a reproduction: the images of the run it reproduces); submit the config as a new run to use the tag's current image`,
    error.detail,
  );
}
