import { z } from 'zod';
import { RunEventLevel, TrialPhaseStep } from './run-events.ts';
import { JUDGE_TEMPLATE_ID } from './run-lock.ts';

/**
 * What one execution of an attempt came to, declared once: the worker's trial returns it, the
 * attempt processor validates it, the lease code writes its columns (`ATTEMPT_RESULT_COLUMNS`),
 * and the API reads the same columns and the `steps` JSON back.
 */

export const AttemptOutcome = z.enum(['passed', 'failed', 'errored', 'cancelled']);
export type AttemptOutcome = z.infer<typeof AttemptOutcome>;

/** Failure classes (ARCHITECTURE invariant 5). Only infrastructure classes are retried. */
export const AttemptErrorClass = z.enum([
  'environment_build',
  'environment_start',
  /**
   * an image the task names could not be supplied: refused by the operator's policy, not found,
   * unauthorised or unreachable (the message says which); only transient failures are retried
   */
  'image_pull',
  'provider',
  'harness_crash',
  'verifier_crash',
  'verifier_missing_reward',
  'verifier_timeout',
  'agent_timeout',
  // not infrastructure: the class of a `failed` attempt whose agent wrote past storage_mb
  'storage_limit_exceeded',
  /**
   * not infrastructure: the agent itself reported an error (opencode's `error` events) and the
   * verifier still ran, so the attempt is passed or failed by its reward, as in Harbor
   */
  'agent_error',
  'platform',
  /** the Docker engine was unreachable or failing: re-run without using a retry (not the task's fault) */
  'engine_unavailable',
  'cancelled',
]);
export type AttemptErrorClass = z.infer<typeof AttemptErrorClass>;

export const AttemptEvent = z.object({
  level: RunEventLevel,
  step: TrialPhaseStep,
  message: z.string(),
  details: z.record(z.string(), z.unknown()).optional(),
  timestamp: z.coerce.date().optional(),
});
export type AttemptEvent = z.infer<typeof AttemptEvent>;

const ms = z.number().int().nonnegative().nullable();

/**
 * One step of a multi-step task as it ran (stored in `attempts.steps`, shown by `runs info
 * --json`, results.csv and the attempt page). `skipped`: not run, an earlier step ended the trial.
 */
export const AttemptStepResult = z.object({
  name: z.string().describe("The step's name"),
  outcome: z
    .enum(['passed', 'failed', 'errored', 'skipped'])
    .describe('passed, failed, errored, or skipped (an earlier step ended the attempt)'),
  reward: z.number().nullable().describe("The step verifier's reward; null when none"),
  rewards: z
    .record(z.string(), z.number())
    .nullable()
    .describe("The step's whole reward map (reward.json); null when none"),
  error_class: z.string().nullable().describe('Class of the error when errored; else null'),
  error_message: z.string().nullable().describe("The error's message, secrets scrubbed; else null"),
  agent_ms: ms.describe('Time the agent ran in this step, milliseconds; null when it did not'),
  verifier_ms: ms.describe('Time the verifier ran in this step, milliseconds; null when it did not'),
  agent_exit_code: z
    .number()
    .int()
    .nullable()
    .describe("The agent's exit code in this step; null when it did not exit by itself"),
  agent_timed_out: z
    .boolean()
    .nullable()
    .describe("Whether the agent hit the step's timeout; null when it did not run"),
});
export type AttemptStepResult = z.infer<typeof AttemptStepResult>;

/** `attempts.steps`: each step of a multi-step task; null for a single-step task. */
export const AttemptSteps = z.array(AttemptStepResult).nullable();

export const StoredArtifact = z.object({
  path: z.string(),
  size: z.number().int().nonnegative(),
  storageKey: z.string(),
});
export type StoredArtifact = z.infer<typeof StoredArtifact>;

/** An image an attempt was given from a registry (or found on its worker), with the digest the run pinned. */
export const SuppliedImageInfo = z.object({
  reference: z.string().describe('normalised reference (`docker.io/alexgshaw/x:20251031`)'),
  digest: z
    .string()
    .nullable()
    .describe('manifest digest (`sha256:…`); null for an image the worker had and never pulled'),
});
export type SuppliedImageInfo = z.infer<typeof SuppliedImageInfo>;

/**
 * How an attempt's environment image was had (`attempts.image_info`): pulled from its registry (or
 * found on the worker), or built from environment/Dockerfile, and every image supplied for it
 * (the prebuilt image, a build's bases, compose images) with its digest.
 */
export const AttemptImage = z.object({
  source: z
    .enum(['registry', 'built'])
    .describe(
      '`registry`: docker_image pulled (or found on the worker); `built`: built from environment/Dockerfile',
    ),
  reference: z
    .string()
    .nullable()
    .describe('docker_image as the task names it, normalised; null when the task names none'),
  digest: z
    .string()
    .nullable()
    .describe("the digest of docker_image the attempt ran (the run's pin); null when built or never pulled"),
  built_because: z
    .string()
    .nullable()
    .describe('why it was built although the task names docker_image (pull-then-build), else null'),
  supplied: z
    .array(SuppliedImageInfo)
    .describe("every image supplied for the environment: docker_image, a build's FROM bases, compose images"),
});
export type AttemptImage = z.infer<typeof AttemptImage>;

/** Every field of a finished execution; the columns are named as the `attempts` model's fields. */
export const AttemptResult = z.object({
  outcome: AttemptOutcome,
  reward: z.number().nullable(),
  rewards: z
    .record(z.string(), z.number())
    .nullable()
    .describe('the whole reward.json map (or {reward} from reward.txt); per-key step means for multi-step'),
  errorClass: z.string().nullable(),
  errorMessage: z.string().nullable(),
  envMs: ms.describe('phase durations: environment, agent setup, agent and verifier (summed over steps)'),
  agentSetupMs: ms,
  agentMs: ms,
  verifierMs: ms,
  agentExitCode: z.number().int().nullable(),
  agentTimedOut: z.boolean().nullable(),
  costUsd: z.number().nullable(),
  inputTokens: z.number().int().nullable(),
  outputTokens: z.number().int().nullable(),
  cacheTokens: z.number().int().nullable(),
  judgeCostUsd: z
    .number()
    .nullable()
    .describe("usage of a worker-side verifier (judge), kept apart from the agent's"),
  judgeInputTokens: z.number().int().nullable(),
  judgeOutputTokens: z.number().int().nullable(),
  judgeTemplate: z
    .string()
    .regex(JUDGE_TEMPLATE_ID)
    .nullable()
    .describe(
      'the judge prompt a worker-side judge graded with (`kind:sha256hex`); kept per run in run_judge_templates for the lock. Not a column',
    ),
  harnessInfo: z.unknown().describe("the harness's HarnessInfo (contracts), stored as attempts.harness_info"),
  steps: AttemptSteps.describe('each step of a multi-step task; null for a single-step task'),
  imageInfo: AttemptImage.nullable().describe(
    "how the environment's image was had, stored as attempts.image_info (null: no image was made ready)",
  ),
  transient: z
    .boolean()
    .optional()
    .describe(
      "the failure was a moment's (a registry's timeout, rate limit or 5xx): the attempt runs again without using a retry of the run (a bounded number of times). Not a column",
    ),
  artifacts: z.array(StoredArtifact).describe('files already stored in artifact storage'),
  events: z.array(AttemptEvent).describe("lifecycle events not already sent through the execution's `log`"),
});
export type AttemptResult = z.infer<typeof AttemptResult>;

/**
 * What an executor may return: any part of AttemptResult but the outcome (a dispatcher test's
 * fake, a result made before anything ran). Missing fields are stored as null.
 */
export const ExecutionResult = AttemptResult.partial().required({ outcome: true });
export type ExecutionResult = z.infer<typeof ExecutionResult>;

/** The fields of AttemptResult that are columns of `attempts` (same names as the Prisma model). */
export const ATTEMPT_RESULT_COLUMNS = [
  'reward',
  'rewards',
  'errorClass',
  'errorMessage',
  'envMs',
  'agentSetupMs',
  'agentMs',
  'verifierMs',
  'agentExitCode',
  'agentTimedOut',
  'costUsd',
  'inputTokens',
  'outputTokens',
  'cacheTokens',
  'judgeCostUsd',
  'judgeInputTokens',
  'judgeOutputTokens',
  'harnessInfo',
  'steps',
  'imageInfo',
] as const satisfies readonly (keyof AttemptResult)[];

/** The phase columns a cancelled execution keeps. */
export const ATTEMPT_PHASE_COLUMNS = [
  'envMs',
  'agentSetupMs',
  'agentMs',
  'verifierMs',
] as const satisfies readonly (keyof AttemptResult)[];
