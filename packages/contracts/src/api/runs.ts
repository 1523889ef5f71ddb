// Basic run views: GET /v1/runs, GET /v1/runs/:name, GET /v1/runs/:name/events, and
// POST /v1/runs/:name/stop. Scores come from the results contracts (api/results.ts).
import { z } from 'zod';
import { AttemptImage, AttemptSteps } from '../attempt-result.ts';
import { RunStatusName } from '../run-statuses.ts';
import { EventCursor, listOf, MAX_PAGE_SIZE, PageQuery, Timestamp } from './common.ts';
import { ProgressSnapshot, RunResults, StreamRunEvent } from './results.ts';
import { RunEventAttemptFields } from './run-event-attempts.ts';
import { RunFaults } from './workers.ts';

export const AttemptStatusName = z.enum(['queued', 'running', 'finished', 'cancelled']);
export type AttemptStatusName = z.infer<typeof AttemptStatusName>;
export const AttemptOutcomeName = z.enum(['passed', 'failed', 'errored', 'cancelled']);
export type AttemptOutcomeName = z.infer<typeof AttemptOutcomeName>;

/** One row of `runs list`. */
export const RunSummary = z.object({
  id: z.string(),
  name: z.string(),
  status: RunStatusName,
  benchmark_id: z.string(),
  benchmark_key: z.string(),
  benchmark_name: z.string(),
  task_count: z.number().int().nonnegative(),
  agent_count: z.number().int().nonnegative(),
  attempts_per_task: z.number().int().positive(),
  max_concurrent_attempts: z.number().int().positive(),
  /** best pass@1 over the run's agents, 0..1; null while nothing is scored */
  best_pass_at_1: z.number().nullable(),
  progress: ProgressSnapshot,
  created_by: z.string().nullable(),
  created_at: Timestamp,
  started_at: Timestamp.nullable(),
  finished_at: Timestamp.nullable(),
  /** finished_at (or now while active) − started_at; null before the first attempt starts */
  duration_ms: z.number().int().nullable(),
  platform_url: z.string(),
  ...RunFaults.shape,
  /** why some of its attempts fit no live worker (e.g. a task needs GPUs no worker has); null when none wait for that */
  waiting_reason: z.string().nullable(),
  /** who submitted it: display name, else e-mail (upstream's `creator_name`) */
  creator_name: z.string().nullable(),
  /** (upstream's `creator_email`) */
  creator_email: z.string().nullable(),
});
export type RunSummary = z.infer<typeof RunSummary>;

export const RunListQuery = PageQuery.extend({
  status: RunStatusName.optional(),
  /** benchmark key, exact name or id */
  benchmark: z
    .string()
    .optional()
    .describe("only runs of this benchmark (its key, exact name or id), e.g. to page a benchmark's runs"),
});
export type RunListQuery = z.infer<typeof RunListQuery>;
export const RunListResponse = listOf(RunSummary);
export type RunListResponse = z.infer<typeof RunListResponse>;

/** An earlier execution of an attempt (Attempt.history): an errored try that was retried, or one re-run for the platform's sake. */
export const AttemptTry = z.object({
  try: z.number().int(),
  /** errored (a retry was used); requeued (the engine was unavailable: no retry used); discarded (lease lost) */
  outcome: z.string(),
  error_class: z.string().nullable(),
  error_message: z.string().nullable(),
  started_at: z.string().nullable(),
  finished_at: z.string().nullable(),
  /** model usage the execution spent (kept even though its result did not count) */
  cost_usd: z.number().nullable().optional(),
  input_tokens: z.number().nullable().optional(),
  output_tokens: z.number().nullable().optional(),
});
export type AttemptTry = z.infer<typeof AttemptTry>;

/** One attempt (one result): one agent on one task, one of attempts_per_task tries. */
export const AttemptInfo = z.object({
  id: z.string(),
  agent_index: z.number().int().nonnegative(),
  task_name: z.string(),
  index: z.number().int().nonnegative(),
  status: AttemptStatusName,
  outcome: AttemptOutcomeName.nullable(),
  reward: z.number().nullable(),
  error_class: z.string().nullable(),
  error_message: z.string().nullable(),
  /** executions so far, retries and crash re-runs included */
  try_count: z.number().int().nonnegative(),
  retries: z.array(AttemptTry),
  env_ms: z.number().int().nullable(),
  agent_setup_ms: z.number().int().nullable(),
  agent_ms: z.number().int().nullable(),
  verifier_ms: z.number().int().nullable(),
  agent_exit_code: z.number().int().nullable(),
  agent_timed_out: z.boolean().nullable(),
  cost_usd: z.number().nullable(),
  input_tokens: z.number().int().nullable(),
  output_tokens: z.number().int().nullable(),
  cache_tokens: z.number().int().nullable(),
  started_at: Timestamp.nullable(),
  finished_at: Timestamp.nullable(),
  /** each step of a multi-step task (name, outcome, reward, times); null for a single-step task */
  steps: AttemptSteps.optional(),
  /** how its environment image was had: pulled (with the run's pinned digest) or built, and why */
  image: AttemptImage.nullable().optional(),
  /** the earlier run's attempt whose result this one took over (`reuse_from`); null: it ran here */
  reused_from: z.string().nullable().optional(),
});
export type AttemptInfo = z.infer<typeof AttemptInfo>;

export const RunAgentInfo = z.object({
  id: z.string(),
  index: z.number().int().nonnegative(),
  harness: z.string(),
  model_type: z.string(),
  model: z.string(),
  /** the agent's literal env ([env] with [agents.env] over it); secrets are never in it */
  env: z.record(z.string(), z.string()),
});
export type RunAgentInfo = z.infer<typeof RunAgentInfo>;

/** At most this many attempts are listed inline by `runs info` (the rest: `runs download`). */
export const RUN_INFO_MAX_ATTEMPTS = 500;

export const RunInfo = RunSummary.extend({
  timeout_multiplier: z.number(),
  max_retries: z.number().int().nonnegative(),
  pass_threshold: z.number(),
  judge_model: z.string().nullable(),
  error_message: z.string().nullable(),
  /** `[execution] max_cost_usd`; null: no budget */
  max_cost_usd: z.number().nullable().optional(),
  /** why a stopped run stopped: "budget reached", or "stopped by EMAIL"; null unless stopped */
  stop_reason: z.string().nullable().optional(),
  agents: z.array(RunAgentInfo),
  /** how the tasks were selected ([tasks] of the config) */
  task_selection: z.object({
    task_set: z.string().nullable(),
    task_names: z.array(z.string()).nullable(),
    categories: z.array(z.string()).nullable(),
  }),
  /** the scope each secret record name resolved to at submit: personal | workspace | run (supplied with the submit) */
  secret_scopes: z.record(z.string(), z.string()),
  /** scores, totals and per-agent results (same numbers as GET /v1/runs/:name/results) */
  results: RunResults,
  attempts: z.array(AttemptInfo),
  attempts_truncated: z.boolean(),
  /** the digest the run's first pull of each image got: every attempt of the run ran that image */
  image_pins: z
    .array(z.object({ reference: z.string(), digest: z.string(), pinned_at: Timestamp }))
    .optional(),
  /** the run whose finished attempts this one took over (`reuse_from`), and how many */
  reused_from: z
    .object({ run: z.string().nullable(), attempts: z.number().int().nonnegative() })
    .nullable()
    .optional(),
});
export type RunInfo = z.infer<typeof RunInfo>;
export const RunInfoResponse = z.object({ data: RunInfo });
export type RunInfoResponse = z.infer<typeof RunInfoResponse>;

/** Event levels from the least to the most severe; `?level=warn` keeps warn and error. */
export const EVENT_LEVELS = ['debug', 'info', 'warn', 'error'] as const;
export const EventLevelName = z.enum(EVENT_LEVELS);

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what we refuse
const NO_CONTROL_CHARACTERS = /^[^\u0000-\u001f\u007f]*$/;

/** GET /v1/runs/:name/events: newest page first, oldest first within a page. */
export const RunEventsQuery = z.object({
  limit: z.coerce.number().int().min(1).max(MAX_PAGE_SIZE).default(100),
  /** `next_cursor` of the previous page: events older than it */
  cursor: EventCursor.optional(),
  task: z
    .string()
    .max(1000)
    .regex(NO_CONTROL_CHARACTERS, 'must not contain control characters')
    .optional()
    .describe("only the events of this task's attempts (its exact name)"),
  agent: z
    .string()
    .max(1000)
    .regex(NO_CONTROL_CHARACTERS, 'must not contain control characters')
    .optional()
    .describe('only the events of this agent\'s attempts: index, harness, model or "model (harness)"'),
  level: EventLevelName.optional().describe(
    'only events at this level or more severe (warn: warn and error)',
  ),
});
export type RunEventsQuery = z.infer<typeof RunEventsQuery>;

export const RunEventItem = StreamRunEvent.extend(RunEventAttemptFields.shape);
export type RunEventItem = z.infer<typeof RunEventItem>;

export const RunEventsResponse = z.object({
  items: z.array(RunEventItem),
  total_count: z.number().int().nonnegative(),
  has_more: z.boolean(),
  next_offset: z.null(),
  /** pass as `cursor` for the previous (older) page; null on the oldest page */
  next_cursor: z.string().nullable(),
});
export type RunEventsResponse = z.infer<typeof RunEventsResponse>;

export const StopRunResult = z.object({
  id: z.string(),
  name: z.string(),
  status: RunStatusName,
  previous_status: RunStatusName,
  /** queued attempts cancelled at once */
  cancelled_attempts: z.number().int().nonnegative(),
  /** running attempts whose sandboxes are being killed (within 10 s) */
  aborting_attempts: z.number().int().nonnegative(),
});
export type StopRunResult = z.infer<typeof StopRunResult>;
export const StopRunResponse = z.object({ data: StopRunResult });
export type StopRunResponse = z.infer<typeof StopRunResponse>;

/**
 * Redis pub/sub channel on which the API announces a stopped run (message: the run id), so
 * workers abort its running attempts at once. Workers also poll the run's status with their
 * lease heartbeat, so a lost message only delays the abort by one heartbeat.
 */
export function runStopChannel(queuePrefix: string): string {
  return `${queuePrefix}:run-stopped`;
}
