/** Labels the platform puts on everything it creates, so it can find and remove it later. */
export const LABELS = {
  /** `true` on every container and image created by the sandbox package. */
  managed: 'osmosis.managed',
  /**
   * What the object is: `sandbox` (a container: the agent's, a compose service, a separate
   * verifier), `task-image` (image), `network` (the scope's internet network), `attempt-network`
   * and `attempt-volume` (made for one compose environment).
   */
  kind: 'osmosis.kind',
  run: 'osmosis.run',
  attempt: 'osmosis.attempt',
  worker: 'osmosis.worker',
  digest: 'osmosis.digest',
  /** The compose service a container runs (`main` or a sidecar) in a compose environment. */
  service: 'osmosis.service',
  /** The deployment (or test) a sandbox belongs to: a reaper only touches its own scope. */
  scope: 'osmosis.scope',
} as const;

/**
 * Scope of sandboxes when the caller gives none: `OSMOSIS_SANDBOX_SCOPE`, else `osmosis`. The
 * platform always passes one: `deploymentScope(<its deployment id>)`, or the operator's explicit
 * `OSMOSIS_SANDBOX_SCOPE`. (It used to fall back to the queue prefix, which every install shares
 * by default: two deployments on one engine then reaped each other's sandboxes.) Tests use a
 * scope of their own so that no other test's reaper removes their containers.
 */
export function defaultSandboxScope(): string {
  return process.env.OSMOSIS_SANDBOX_SCOPE || 'osmosis';
}

/** The scope of a deployment's sandboxes, images and networks: named from its deployment id. */
export function deploymentScope(deploymentId: string): string {
  return `osmosis-${deploymentId.toLowerCase()}`;
}

/** Repository of images built for task environments; the tag is the environment's content digest. */
export const TASK_IMAGE_REPO = 'osmosis-task';
