// Basic run views: GET /v1/runs, GET /v1/runs/:name, GET /v1/runs/:name/events, and
// POST /v1/runs/:name/stop. Scores come from the results contracts (api/results.ts).
import { z } from 'zod';
import { AttemptImage, AttemptSteps } from '../attempt-result.ts';
import { RunStatusName } from '../run-statuses.ts';
import { EventCursor, listOf, MAX_PAGE_SIZE, PageQuery, Timestamp } from './common.ts';
import { ProgressSnapshot, RunResults, StreamRunEvent } from './results.ts';
import { RunEventAttemptFields } from './run-event-attempts.ts';
import { RunImportInfo } from './runs-import.ts';
import { RunFaults } from './workers.ts';

export const AttemptStatusName = z.enum(['queued', 'running', 'finished', 'cancelled']);
export type AttemptStatusName = z.infer<typeof AttemptStatusName>;
export const AttemptOutcomeName = z.enum(['passed', 'failed', 'errored', 'cancelled']);
export type AttemptOutcomeName = z.infer<typeof AttemptOutcomeName>;

/** One row of `runs list`. */
export const RunSummary = z.object({
  id: z.string().describe("The run's id"),
  name: z.string().describe("The run's name, unique in the workspace (used in URLs)"),
  status: RunStatusName.describe('pending, queued, running, then finished, failed or stopped'),
  benchmark_id: z.string().describe('Id of the benchmark it runs'),
  benchmark_key: z.string().describe('Key of the benchmark it runs'),
  benchmark_name: z.string().describe('Name of the benchmark it runs'),
  task_count: z.number().int().nonnegative().describe('Tasks selected for the run'),
  agent_count: z.number().int().nonnegative().describe('Agents (harness and model) in the run'),
  attempts_per_task: z.number().int().positive().describe('Attempts of each task by each agent (1–100)'),
  max_concurrent_attempts: z
    .number()
    .int()
    .positive()
    .describe('Most attempts of the run running at once (1–256)'),
  best_pass_at_1: z
    .number()
    .nullable()
    .describe("best pass@1 over the run's agents, 0..1; null while nothing is scored"),
  progress: ProgressSnapshot.describe('Attempts done, running and queued'),
  created_by: z
    .string()
    .nullable()
    .describe('E-mail of the user who submitted it; null when that account is gone'),
  created_at: Timestamp.describe('When it was submitted'),
  started_at: Timestamp.nullable().describe('When its first attempt started; null before'),
  finished_at: Timestamp.nullable().describe('When it reached a terminal status; null before'),
  duration_ms: z
    .number()
    .int()
    .nullable()
    .describe('finished_at (or now while active) − started_at; null before the first attempt starts'),
  platform_url: z.string().describe("The run's page on the web platform"),
  ...RunFaults.shape,
  waiting_reason: z
    .string()
    .nullable()
    .describe(
      'why some of its attempts fit no live worker (e.g. a task needs GPUs no worker has); null when none wait for that',
    ),
  creator_name: z
    .string()
    .nullable()
    .describe("who submitted it: display name, else e-mail (upstream's `creator_name`)"),
  creator_email: z
    .string()
    .nullable()
    .describe(
      "E-mail of the user who submitted it (upstream's `creator_email`); null when that account is gone",
    ),
  imported: z
    .boolean()
    .default(false)
    .describe('read from a Harbor job directory (`runs import`), not run on the platform'),
});
export type RunSummary = z.infer<typeof RunSummary>;

export const RunListQuery = PageQuery.extend({
  status: RunStatusName.optional().describe('Only runs with this status'),
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
  try: z.number().int().describe('Which execution it was (1 = first)'),
  outcome: z
    .string()
    .describe(
      'errored (a retry was used); requeued (the engine was unavailable: no retry used); discarded (lease lost)',
    ),
  error_class: z
    .string()
    .nullable()
    .describe('Class of the error that ended it (e.g. provider, harness_crash); null if none'),
  error_message: z.string().nullable().describe("The error's message, secrets scrubbed; null if none"),
  started_at: z.string().nullable().describe('When it started (ISO 8601); null if it never did'),
  finished_at: z.string().nullable().describe('When it ended (ISO 8601); null if it never did'),
  cost_usd: z
    .number()
    .nullable()
    .optional()
    .describe('model usage the execution spent (kept even though its result did not count)'),
  input_tokens: z.number().nullable().optional().describe('Input tokens it spent; null when unknown'),
  output_tokens: z.number().nullable().optional().describe('Output tokens it spent; null when unknown'),
});
export type AttemptTry = z.infer<typeof AttemptTry>;

/** One attempt (one result): one agent on one task, one of attempts_per_task tries. */
export const AttemptInfo = z.object({
  id: z.string().describe("The attempt's id (also called result id)"),
  agent_index: z.number().int().nonnegative().describe("The agent's position in the run config (0-based)"),
  task_name: z.string().describe("The task's name"),
  index: z
    .number()
    .int()
    .nonnegative()
    .describe('Which of the attempts_per_task tries of the task (0-based)'),
  status: AttemptStatusName.describe('queued, running, finished or cancelled'),
  outcome: AttemptOutcomeName.nullable().describe(
    'passed, failed, errored or cancelled; null while not finished',
  ),
  reward: z
    .number()
    .nullable()
    .describe("The verifier's reward (the benchmark's range, usually 0–1); null when none was recorded"),
  error_class: z
    .string()
    .nullable()
    .describe('Class of the error when errored (e.g. provider, verifier_timeout); else null'),
  error_message: z.string().nullable().describe("The error's message, secrets scrubbed; null when none"),
  try_count: z.number().int().nonnegative().describe('executions so far, retries and crash re-runs included'),
  retries: z.array(AttemptTry).describe('Earlier executions of this attempt (retried or re-run)'),
  env_ms: z
    .number()
    .int()
    .nullable()
    .describe('Time to build or pull and start the environment, milliseconds; null when not reached'),
  agent_setup_ms: z
    .number()
    .int()
    .nullable()
    .describe('Time to install and set up the agent, milliseconds; null when not reached'),
  agent_ms: z.number().int().nullable().describe('Time the agent ran, milliseconds; null when not reached'),
  verifier_ms: z
    .number()
    .int()
    .nullable()
    .describe('Time the verifier ran, milliseconds; null when not reached'),
  agent_exit_code: z
    .number()
    .int()
    .nullable()
    .describe("The agent process's exit code; null when it did not exit by itself"),
  agent_timed_out: z
    .boolean()
    .nullable()
    .describe('Whether the agent hit its timeout; null when it did not run'),
  cost_usd: z
    .number()
    .nullable()
    .describe('Model cost of the agent, USD; null when unknown (no price for the model)'),
  input_tokens: z.number().int().nullable().describe('Input tokens the agent spent; null when unknown'),
  output_tokens: z.number().int().nullable().describe('Output tokens the agent spent; null when unknown'),
  cache_tokens: z.number().int().nullable().describe('Cached input tokens; null when unknown'),
  started_at: Timestamp.nullable().describe('When it started; null before'),
  finished_at: Timestamp.nullable().describe('When it ended; null before'),
  steps: AttemptSteps.optional().describe(
    'each step of a multi-step task (name, outcome, reward, times); null for a single-step task',
  ),
  image: AttemptImage.nullable()
    .optional()
    .describe("how its environment image was had: pulled (with the run's pinned digest) or built, and why"),
  reused_from: z
    .string()
    .nullable()
    .optional()
    .describe("the earlier run's attempt whose result this one took over (`reuse_from`); null: it ran here"),
});
export type AttemptInfo = z.infer<typeof AttemptInfo>;

export const RunAgentInfo = z.object({
  id: z.string().describe("The agent's id in this run"),
  index: z.number().int().nonnegative().describe('Its position in the run config (0-based)'),
  harness: z.string().describe('The harness (agent program), e.g. terminus-2'),
  model_type: z
    .string()
    .describe(
      "provider (a provider's model), endpoint (a model at a base URL), hosted (a base model, maybe with a LoRA) or none (e.g. the oracle)",
    ),
  model: z.string().describe('The model, e.g. openai/gpt-5'),
  env: z
    .record(z.string(), z.string())
    .describe("the agent's literal env ([env] with [agents.env] over it); secrets are never in it"),
});
export type RunAgentInfo = z.infer<typeof RunAgentInfo>;

/** At most this many attempts are listed inline by `runs info` (the rest: `runs download`). */
export const RUN_INFO_MAX_ATTEMPTS = 500;

export const RunInfo = RunSummary.extend({
  timeout_multiplier: z.number().describe('Factor on every task timeout (> 0, ≤ 10)'),
  max_retries: z.number().int().nonnegative().describe('Retries of an errored attempt (0–10)'),
  pass_threshold: z.number().describe('Reward at or above which an attempt passes (0–1)'),
  judge_model: z.string().nullable().describe('Model of the judge for judged benchmarks; null when none'),
  error_message: z.string().nullable().describe('Why the run failed or stopped; null otherwise'),
  max_cost_usd: z.number().nullable().optional().describe('`[execution] max_cost_usd`; null: no budget'),
  import_info: RunImportInfo.nullable()
    .optional()
    .describe('where an imported run came from and what did not match; null for runs made here'),
  stop_reason: z
    .string()
    .nullable()
    .optional()
    .describe('why a stopped run stopped: "budget reached", or "stopped by EMAIL"; null unless stopped'),
  agents: z.array(RunAgentInfo).describe("The run's agents"),
  task_selection: z
    .object({
      task_set: z.string().nullable().describe('The task set chosen; null when not by set'),
      task_names: z.array(z.string()).nullable().describe('The task names chosen; null when not by name'),
      categories: z.array(z.string()).nullable().describe('The categories chosen; null when not by category'),
    })
    .describe('how the tasks were selected ([tasks] of the config)'),
  secret_scopes: z
    .record(z.string(), z.string())
    .describe(
      'the scope each secret record name resolved to at submit: personal | workspace | run (supplied with the submit)',
    ),
  results: RunResults.describe(
    'scores, totals and per-agent results (same numbers as GET /v1/runs/:name/results)',
  ),
  attempts: z
    .array(AttemptInfo)
    .describe('Every attempt with its outcome, at most 500 (see attempts_truncated)'),
  attempts_truncated: z
    .boolean()
    .describe(
      'True when the run has more attempts than listed (GET /v1/runs/{name}/attempts pages them all)',
    ),
  image_pins: z
    .array(
      z.object({
        reference: z.string().describe('The image as the task names it'),
        digest: z.string().describe('The digest the run pinned (sha256:…)'),
        pinned_at: Timestamp.describe('When it was pinned'),
      }),
    )
    .optional()
    .describe("the digest the run's first pull of each image got: every attempt of the run ran that image"),
  reused_from: z
    .object({
      run: z.string().nullable().describe('The earlier run (null when it was deleted)'),
      attempts: z.number().int().nonnegative().describe('How many finished attempts were taken over'),
    })
    .nullable()
    .optional()
    .describe('the run whose finished attempts this one took over (`reuse_from`), and how many'),
});
export type RunInfo = z.infer<typeof RunInfo>;
export const RunInfoResponse = z.object({ data: RunInfo.describe('The run') });
export type RunInfoResponse = z.infer<typeof RunInfoResponse>;

/** Event levels from the least to the most severe; `?level=warn` keeps warn and error. */
export const EVENT_LEVELS = ['debug', 'info', 'warn', 'error'] as const;
export const EventLevelName = z.enum(EVENT_LEVELS);

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what we refuse
const NO_CONTROL_CHARACTERS = /^[^\u0000-\u001f\u007f]*$/;

/** GET /v1/runs/:name/events: newest page first, oldest first within a page. */
export const RunEventsQuery = z.object({
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(MAX_PAGE_SIZE)
    .default(100)
    .describe('Events per page (1 to 200, default 100)'),
  cursor: EventCursor.optional().describe('`next_cursor` of the previous page: events older than it'),
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
  items: z.array(RunEventItem).describe('This page of events, oldest first'),
  total_count: z.number().int().nonnegative().describe('Events that match the filters, in all pages'),
  has_more: z.boolean().describe('Whether older events follow (see next_cursor)'),
  next_offset: z.null().describe('Always null: this list pages by cursor'),
  next_cursor: z
    .string()
    .nullable()
    .describe('pass as `cursor` for the previous (older) page; null on the oldest page'),
});
export type RunEventsResponse = z.infer<typeof RunEventsResponse>;

export const StopRunResult = z.object({
  id: z.string().describe("The run's id"),
  name: z.string().describe("The run's name"),
  status: RunStatusName.describe('Always stopped'),
  previous_status: RunStatusName.describe('Its status before the stop'),
  cancelled_attempts: z.number().int().nonnegative().describe('queued attempts cancelled at once'),
  aborting_attempts: z
    .number()
    .int()
    .nonnegative()
    .describe('running attempts whose sandboxes are being killed (within 10 s)'),
});
export type StopRunResult = z.infer<typeof StopRunResult>;
export const StopRunResponse = z.object({ data: StopRunResult.describe('The stopped run') });
export type StopRunResponse = z.infer<typeof StopRunResponse>;

/**
 * Redis pub/sub channel on which the API announces a stopped run (message: the run id), so
 * workers abort its running attempts at once. Workers also poll the run's status with their
 * lease heartbeat, so a lost message only delays the abort by one heartbeat.
 */
export function runStopChannel(queuePrefix: string): string {
  return `${queuePrefix}:run-stopped`;
}
