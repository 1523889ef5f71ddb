// The types of a trial (one execution of an attempt): what it is given, what it may use, what it
// returns. The result's fields are contracts' AttemptResult (declared once); a trial adds what
// only the worker sees (host paths of artifact files, the build log, command times).
import type { AttemptResult, ImageSource, AttemptEvent as StoredEvent, TaskConfig } from '@osmosis/contracts';
import type { Harness, HarnessEvent, HarnessSandbox, HarnessUsage, PreparedTools } from '@osmosis/harness';
import type { TaskLimits } from '@osmosis/tasks';
import type { RunImagePins } from '../executor.ts';
import type { DockerEnvironmentOptions } from './environments/docker.ts';
import type { EnvironmentFactory } from './environments/factory.ts';

/** A lifecycle event as the trial reports it (always stamped). */
export type AttemptEvent = StoredEvent & { timestamp: Date };

export type Emit = (event: Omit<AttemptEvent, 'timestamp'>) => void;

export type AttemptPhase = 'environment' | 'agent_setup' | 'agent' | 'verifier' | 'artifacts' | 'teardown';

export interface AttemptInput {
  attemptId: string;
  runId: string;
  workerId: string;
  /** GPU device ids the lease reserved for this attempt (dispatch/reservation.ts) */
  gpuIds?: readonly string[];
  task: {
    name: string;
    /** Host folder with task.toml, instruction.md, environment/, tests/, solution/, steps/. */
    dir: string;
    /** The parsed task.toml (packages/tasks parseTaskConfig / TaskManifest.config). */
    config: TaskConfig;
    /** The image cache key (TaskManifest.env_digest); computed from environment/ when absent. */
    envDigest?: string;
    /** The instruction of a single-step task; read from <dir>/instruction.md when absent. */
    instruction?: string;
  };
  /** Harness name (`oracle`, `nop`, `terminus-2`, …). */
  harness: string;
  /** The `[[agents]]` entry (model spec, …), passed opaque to the harness. */
  agentConfig?: unknown;
  /** The agent's env: literal [env] + [agents.env] and the injected secrets. */
  agentEnv: Record<string, string>;
  /** Secret records only the verifier gets (tests/test.sh env, over [verifier].env); never the agent. */
  verifierEnv?: Record<string, string>;
  /** Secret values to scrub from everything returned (the injected secrets' values). */
  secrets: readonly string[];
  /** Shortest value scrubbed (OSMOSIS_SCRUB_MIN_LENGTH); default 4. */
  scrubMinLength?: number;
  timeoutMultiplier: number;
  passThreshold: number;
  /** Host folder where artifact files are written (created; should be empty and per attempt). */
  artifactsDir: string;
  /** The platform permits internet for tasks that allow it (default false: NetworkMode none). */
  allowInternet?: boolean;
  /** Lifecycle events as they happen (already scrubbed). */
  onEvent?: (event: AttemptEvent) => void;
  /** Stop: the sandbox is killed at once and the result is `cancelled`. */
  signal?: AbortSignal;
  /** The run's image pins (absent: every attempt supplies the names as they are now). */
  imagePins?: RunImagePins;
  /** The run's waiting reason while an image is pulled (throttled; null when no pull is left). */
  onPullProgress?: (message: string | null) => void;
  /**
   * A worker-side verifier (e.g. the LLM judge of HLE/GDPVal) run instead of tests/test.sh,
   * under the verifier timeout × multiplier. It must leave /logs/verifier/reward.json (or
   * reward.txt) in the sandbox; its own token usage is returned as the judge's, and the prompt it
   * graded with as `template` (`kind:sha256hex`, kept for the run's lock). Throwing makes the
   * attempt errored (verifier_crash).
   */
  verifier?: (ctx: WorkerVerifierContext) => Promise<{ usage?: HarnessUsage; template?: string } | undefined>;
}

export interface WorkerVerifierContext {
  sandbox: HarnessSandbox;
  task: AttemptInput['task'];
  timeoutMs: number;
  signal: AbortSignal;
  log(event: HarnessEvent): void;
}

/**
 * What a trial runs with besides its input. The Docker options configure the default backends
 * (environments/factory.ts dockerEnvironmentRows) when no `environments` are given.
 */
export interface PipelineDeps extends DockerEnvironmentOptions {
  /** The environment backends (default: the Docker ones, from the options here). */
  environments?: EnvironmentFactory;
  /** Harness lookup; default @osmosis/harness getHarness. */
  getHarness?: (name: string) => Harness;
  /** Budget of harness setup before the multiplier; default 10 minutes. */
  agentSetupTimeoutMs?: number;
  /** When task.toml gives no agent timeout; default 10 minutes (before the multiplier). */
  defaultAgentTimeoutMs?: number;
  /** The operator's maximums (OSMOSIS_TASK_MAX_*); default DEFAULT_TASK_LIMITS. */
  taskLimits?: TaskLimits;
  /** How a prebuilt docker_image is had (OSMOSIS_IMAGE_SOURCE); default pull-then-build. */
  imageSource?: ImageSource;
  /** The agent tool bundles of the worker (one store per process); none: harnesses use the image's or install. */
  tools?: AgentToolStore | null;
}

/** The worker's agent tool bundles (@osmosis/harness ToolStore). */
export interface AgentToolStore {
  /** the bundles a harness uses, prepared once per worker; what cannot be had is a note */
  prepareFor(harness: string, signal?: AbortSignal): Promise<PreparedTools>;
}

export interface ArtifactFile {
  /** Relative POSIX path: `agent/…`, `verifier/…`, `artifacts/…`, `environment/build.log`, `steps/<name>/…`. */
  path: string;
  size: number;
  hostPath: string;
}

/** What a trial returns: the stored result's fields, and what only the worker uses. */
export interface TrialResult extends Omit<AttemptResult, 'artifacts' | 'events'> {
  /** From "due" (the call) to the environment removed. */
  totalMs: number;
  /** Time inside the agent's commands and the verifier's test.sh (overhead = total − these). */
  agentCommandMs: number | null;
  verifierCommandMs: number | null;
  /** main's image */
  image: string | null;
  imageBuilt: boolean;
  /** Build output (capped; only when this attempt built an image or a build failed). */
  buildLog: string | null;
  verifierExitCode: number | null;
  /** files on the host, under the input's artifactsDir */
  artifacts: ArtifactFile[];
  events: AttemptEvent[];
  /** Things asked for that the engine could not apply (e.g. storage limits). */
  notes: string[];
}
