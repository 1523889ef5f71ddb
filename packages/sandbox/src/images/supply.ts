// The one way an image a task names reaches the engine: checked against the operator's policy,
// found locally or pulled once per process whatever the number of waiters (their progress
// callbacks all fed from the one pull), named as the task named it, marked for retention, and
// returned as the engine's image id, which builds and containers are then given instead of the
// name, so the engine never has a name to pull.
import { createHash } from 'node:crypto';
import type Docker from 'dockerode';
import { getDocker, statusOf } from '../docker.ts';
import { ImagePullError, pinnedDigestGone } from './errors.ts';
import { checkPullAddress, type ImagePolicy, type PullPlan, planPull, scrubImageText } from './policy.ts';
import type { PullProgress } from './progress.ts';
import { type EnginePullResult, pulledNameOf, pullThroughEngine } from './pull.ts';
import {
  familiarReference,
  formatReference,
  isSha256Digest,
  parseImageReference,
  quoted,
  repositoryOf,
} from './reference.ts';
import { markPulled, PULLED_IMAGE_REPO, pulledMarkerTag } from './retention.ts';

/** An image ready in the engine. */
export interface SuppliedImage {
  /** the reference as the task named it, normalised (`docker.io/alexgshaw/x:20251031`): the key of a run's pins */
  reference: string;
  /** the short form for messages (`alexgshaw/x:20251031`) */
  name: string;
  /** what builds and containers are given: the engine's image id (`sha256:…`) */
  image: string;
  /** the registry's manifest digest (`sha256:…`): what a run pins; null for an image that was never pulled */
  digest: string | null;
  /** this call pulled it (or waited on a pull another caller started) */
  pulled: boolean;
  /** where it came from: the registry, `mirror <host>`, or `local` */
  source: string;
  durationMs: number;
}

export interface SupplyOptions {
  /** the digest this run pinned for the reference: exactly that image is supplied */
  digest?: string | null;
  /** called with the pull's progress (about 4 times a second while bytes move, and at the end) */
  onProgress?: (progress: PullProgress) => void;
  /** stops waiting (the shared pull goes on for other waiters and later attempts) */
  signal?: AbortSignal;
}

/** A repository as the engine lists it, normalised (`ubuntu` → `docker.io/library/ubuntu`). */
function canonicalRepository(repo: string): string {
  try {
    return repositoryOf(parseImageReference(repo));
  } catch {
    return repo;
  }
}

/** Supplies images; backend-neutral (no engine type in its signature). */
export interface ImageSupplier {
  supply(reference: string, options?: SupplyOptions): Promise<SuppliedImage>;
}

export interface DockerImageSupplierOptions {
  policy: ImagePolicy;
  /** the deployment's scope: pulled images are marked with it for retention */
  scope: string;
  docker?: Docker;
}

interface Flight {
  promise: Promise<EnginePullResult>;
  listeners: Set<(progress: PullProgress) => void>;
  last: PullProgress | null;
}

/** Pulls in progress in this process, by engine and pulled name. */
const flights = new Map<string, Flight>();

function engineKey(docker: Docker): string {
  const modem = docker.modem as { socketPath?: unknown; host?: unknown; port?: unknown };
  return typeof modem.socketPath === 'string'
    ? modem.socketPath
    : `${String(modem.host)}:${String(modem.port)}`;
}

function abortError(signal: AbortSignal): Error {
  const reason = signal.reason;
  return reason instanceof Error
    ? reason
    : Object.assign(new Error('the wait for the image was cancelled'), { name: 'AbortError' });
}

/** Waits for a shared flight, with this waiter's progress callback and signal. */
async function join(
  flight: Flight,
  onProgress: ((progress: PullProgress) => void) | undefined,
  signal: AbortSignal | undefined,
): Promise<EnginePullResult> {
  if (onProgress) {
    flight.listeners.add(onProgress);
    if (flight.last) onProgress(flight.last);
  }
  try {
    if (!signal) return await flight.promise;
    if (signal.aborted) throw abortError(signal);
    let onAbort: (() => void) | undefined;
    const aborted = new Promise<never>((_, reject) => {
      onAbort = () => reject(abortError(signal));
      signal.addEventListener('abort', onAbort, { once: true });
    });
    try {
      return await Promise.race([flight.promise, aborted]);
    } finally {
      signal.removeEventListener('abort', onAbort!);
    }
  } finally {
    if (onProgress) flight.listeners.delete(onProgress);
  }
}

export class DockerImageSupplier implements ImageSupplier {
  readonly #policy: ImagePolicy;
  readonly #scope: string;
  readonly #docker: Docker;

  constructor(options: DockerImageSupplierOptions) {
    this.#policy = options.policy;
    this.#scope = options.scope;
    this.#docker = options.docker ?? getDocker();
  }

  async supply(raw: string, options: SupplyOptions = {}): Promise<SuppliedImage> {
    const started = Date.now();
    const plan = planPull(this.#policy, raw);
    const pin = plan.reference.digest ?? options.digest ?? null;
    if (pin !== null && !isSha256Digest(pin)) {
      throw new ImagePullError(
        'refused',
        quoted(raw),
        `the pinned digest of ${quoted(raw)} is not a sha256 digest`,
      );
    }
    const name = familiarReference(plan.reference);
    const reference = formatReference(plan.reference);
    const present = await this.#present(plan, pin);
    if (present) {
      // a name the platform pulled (in any deployment) is this scope's too from now: refreshed
      if (present.marked) {
        await markPulled(this.#docker, present.id, this.#scope, [present.name]).catch(() => undefined);
      }
      return {
        reference,
        name,
        image: present.id,
        digest: pin ?? present.digest,
        pulled: false,
        source: 'local',
        durationMs: Date.now() - started,
      };
    }
    await checkPullAddress(this.#policy, raw, plan);
    const pulled = await this.#sharedPull(plan, pin, options).catch((error: unknown) => {
      const runPin = plan.reference.digest ? null : (options.digest ?? null);
      if (runPin && error instanceof ImagePullError && error.kind === 'not_found')
        throw pinnedDigestGone(error, reference, runPin);
      throw error;
    });
    // the names the pull made, each marked for retention
    const names = [formatReference(parseImageReference(pulled.pulledName))];
    if (pulled.digest) names.push(`${repositoryOf(plan.pullFrom)}@${pulled.digest}`);
    if (!pin && plan.pullFrom !== plan.reference) {
      // a mirrored pull: the engine also knows the image by the name the task gave
      const tag = plan.reference.tag ?? 'latest';
      await this.#docker.getImage(pulled.id).tag({ repo: repositoryOf(plan.reference), tag });
      names.push(formatReference({ ...plan.reference, digest: null }));
    }
    await markPulled(this.#docker, pulled.id, this.#scope, names);
    return {
      reference,
      name,
      image: pulled.id,
      digest: pulled.digest,
      pulled: true,
      source: plan.source,
      durationMs: Date.now() - started,
    };
  }

  /** The local image for the plan, if the engine has it (by pinned digest, else by name). */
  async #present(
    plan: PullPlan,
    pin: string | null,
  ): Promise<{ id: string; digest: string | null; name: string; marked: boolean } | null> {
    const repos = [...new Set([repositoryOf(plan.reference), repositoryOf(plan.pullFrom)])];
    const names = pin ? repos.map((r) => `${r}@${pin}`) : [formatReference(plan.reference)];
    for (const candidate of names) {
      let info: Docker.ImageInspectInfo;
      try {
        info = await this.#docker.getImage(candidate).inspect();
      } catch (error) {
        if (statusOf(error) === 404) continue;
        throw error;
      }
      const digest =
        (info.RepoDigests ?? [])
          .map((d) => d.split('@') as [string, string])
          .find(([r]) => repos.includes(canonicalRepository(r)))?.[1] ?? null;
      const hash = pulledMarkerTag('', candidate).split('_').pop();
      const marked = (info.RepoTags ?? []).some(
        (t) => t.startsWith(`${PULLED_IMAGE_REPO}:`) && t.endsWith(`_${hash}`),
      );
      return { id: info.Id, digest, name: candidate, marked };
    }
    return null;
  }

  #sharedPull(plan: PullPlan, pin: string | null, options: SupplyOptions): Promise<EnginePullResult> {
    const key = `${engineKey(this.#docker)}|${pulledNameOf(plan, pin)}|${createHash('sha256')
      .update(JSON.stringify(plan.auth ?? null))
      .digest('hex')
      .slice(0, 12)}`;
    let flight = flights.get(key);
    if (!flight) {
      const listeners = new Set<(progress: PullProgress) => void>();
      const created: Flight = { listeners, last: null, promise: Promise.resolve() as never };
      created.promise = pullThroughEngine(this.#docker, {
        plan,
        digest: pin,
        timeoutMs: this.#policy.pullTimeoutMs,
        scrub: (text) => scrubImageText(this.#policy, text),
        onProgress: (progress) => {
          created.last = progress;
          for (const listener of listeners) listener(progress);
        },
      }).finally(() => flights.delete(key));
      // every waiter may have stopped waiting: the outcome must not be an unhandled rejection
      created.promise.catch(() => undefined);
      flight = created;
      flights.set(key, flight);
    }
    return join(flight, options.onProgress, options.signal);
  }
}

/** The supplier of an engine reached through dockerode. */
export function createImageSupplier(options: DockerImageSupplierOptions): ImageSupplier {
  return new DockerImageSupplier(options);
}
