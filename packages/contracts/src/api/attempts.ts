// Attempts as a resource: GET /v1/runs/:name/attempts (filters, keyset cursor) and
// GET /v1/runs/:name/attempts/:id (phases, steps, verifier output, events, artifacts, trajectory).
import { z } from 'zod';
import { AttemptSteps } from '../attempt-result.ts';
import { MAX_PAGE_SIZE, Timestamp } from './common.ts';
import { AttemptOutcomeName, AttemptStatusName, AttemptTry } from './runs.ts';

/** Longest `?cursor=` accepted: a cursor holds a task name (≤ 1 KiB) and an id, base64url. */
export const MAX_ATTEMPT_CURSOR_LENGTH = 2048;

/** A filter value: names never hold control characters, and NUL cannot reach the database. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what we refuse
const NO_CONTROL_CHARACTERS = /^[^\u0000-\u001f\u007f]*$/;

function filterText(max: number) {
  return z.string().max(max).regex(NO_CONTROL_CHARACTERS, 'must not contain control characters');
}

export const AttemptListQuery = z
  .object({
    limit: z.coerce.number().int().min(1).max(MAX_PAGE_SIZE).default(50).describe('attempts per page'),
    cursor: z
      .string()
      .max(MAX_ATTEMPT_CURSOR_LENGTH)
      .optional()
      .describe('the next_cursor of the previous page (opaque); absent: the first page'),
    task: filterText(1000).optional().describe("only this task's attempts (its exact name)"),
    agent: filterText(1000)
      .optional()
      .describe(
        'only this agent\'s attempts: its index as `runs info` shows it, harness, model or "model (harness)"',
      ),
    outcome: AttemptOutcomeName.optional().describe('only attempts with this outcome'),
    error_class: filterText(200).optional().describe('only errored attempts of this error class'),
  })
  .describe('filters and page of GET /v1/runs/:name/attempts');
export type AttemptListQuery = z.infer<typeof AttemptListQuery>;

export const AttemptListItem = z
  .object({
    id: z.string().describe('the attempt id (the result id of results.csv)'),
    task_name: z.string().describe("The task's name"),
    agent_index: z.number().int().nonnegative().describe("the agent's position in the run config (0-based)"),
    harness: z.string().describe("The agent's harness"),
    model: z.string().describe("The agent's model"),
    agent: z.string().describe('"model (harness)"'),
    index: z
      .number()
      .int()
      .nonnegative()
      .describe('which of attempts_per_task this is (0-based; the pages say try index+1)'),
    status: AttemptStatusName.describe('queued, running, finished or cancelled'),
    outcome: AttemptOutcomeName.nullable().describe('null while unfinished'),
    reward: z
      .number()
      .nullable()
      .describe("The verifier's reward (usually 0–1); null when none was recorded"),
    error_class: z
      .string()
      .nullable()
      .describe('Class of the error when errored (e.g. provider, verifier_timeout); else null'),
    error_message: z.string().nullable().describe("The error's message, secrets scrubbed; null when none"),
    try_count: z.number().int().nonnegative().describe('executions so far, retries included'),
    cost_usd: z.number().nullable().describe('Model cost of the agent, USD; null when unknown'),
    started_at: Timestamp.nullable().describe('When it started; null before'),
    finished_at: Timestamp.nullable().describe('When it ended; null before'),
  })
  .describe('one attempt of a run: one agent on one task, one of attempts_per_task');
export type AttemptListItem = z.infer<typeof AttemptListItem>;

export const AttemptListResponse = z
  .object({
    items: z.array(AttemptListItem).describe('This page of attempts'),
    total_count: z.number().int().min(0).describe('attempts matching the filters, all pages'),
    has_more: z.boolean().describe('Whether a page follows (see next_cursor)'),
    next_offset: z.null().describe('always null: this list pages by cursor'),
    next_cursor: z.string().nullable().describe('pass as `cursor` for the next page; null on the last page'),
  })
  .describe('attempts ordered by agent index, task name, attempt index');
export type AttemptListResponse = z.infer<typeof AttemptListResponse>;

export const AttemptPhase = z
  .object({
    name: z
      .enum(['environment', 'agent_setup', 'agent', 'verifier'])
      .describe('environment, agent_setup, agent or verifier'),
    duration_ms: z.number().int().nullable().describe('null when the phase did not run or reported no time'),
  })
  .describe('one phase of an attempt with its time');

export const AttemptArtifactRef = z
  .object({
    path: z.string().describe("path inside the attempt's artifact folder, e.g. agent/oracle.txt"),
    size: z.number().int().nonnegative().describe('Size in bytes'),
    download_path: z
      .string()
      .describe(
        'the path to pass to GET /v1/runs/:name/downloads/file?path= (artifacts/<attempt id>/<path>)',
      ),
  })
  .describe('an artifact of an attempt');
export type AttemptArtifactRef = z.infer<typeof AttemptArtifactRef>;

export const AttemptTextTail = AttemptArtifactRef.extend({
  text: z
    .string()
    .nullable()
    .describe('the end of the file as stored (secrets scrubbed); null when storage lost it'),
  truncated: z.boolean().describe('true when the file is longer than the text'),
}).describe("the end of a text artifact (a verifier's output, the agent's log)");
export type AttemptTextTail = z.infer<typeof AttemptTextTail>;

export const AttemptLifecycleEvent = z
  .object({
    id: z.string().describe("The event's id (increasing in the run)"),
    timestamp: Timestamp.describe('When it happened'),
    level: z.string().describe('debug, info, warn or error'),
    step: z.string().describe('What happened, e.g. attempt.started, attempt.finished'),
    message: z.string().describe('The event for people, secrets scrubbed'),
  })
  .describe("a lifecycle event of the attempt, as in the run's logs");

export const AttemptDetail = AttemptListItem.extend({
  run_name: z.string().describe("The run's name"),
  phases: z.array(AttemptPhase).describe('environment, agent setup, agent, verifier: in the order they run'),
  agent_exit_code: z
    .number()
    .int()
    .nullable()
    .describe("The agent process's exit code; null when it did not exit by itself"),
  agent_timed_out: z
    .boolean()
    .nullable()
    .describe('Whether the agent hit its timeout; null when it did not run'),
  input_tokens: z.number().int().nullable().describe('Input tokens the agent spent; null when unknown'),
  output_tokens: z.number().int().nullable().describe('Output tokens the agent spent; null when unknown'),
  cache_tokens: z.number().int().nullable().describe('Cached input tokens; null when unknown'),
  judge_cost_usd: z
    .number()
    .nullable()
    .describe('Cost of the judge model for this attempt, USD; null when no judge ran'),
  retries: z
    .array(AttemptTry)
    .describe('earlier executions that did not count (errored tries that were retried)'),
  steps: AttemptSteps.describe("a multi-step task's steps; null for a single-step task"),
  verifier_output: z
    .array(AttemptTextTail)
    .describe("the ends of the verifier's text files (verifier/*.txt|log|json)"),
  agent_log: AttemptTextTail.nullable().describe(
    "the end of the agent's log (agent/<harness>.txt); null when none",
  ),
  events: z.array(AttemptLifecycleEvent).describe('its lifecycle events, oldest first (the first 500)'),
  events_truncated: z.boolean().describe('True when it has more than the 500 events listed'),
  artifacts: z.array(AttemptArtifactRef).describe('Every artifact the attempt stored'),
  trajectory: AttemptArtifactRef.nullable().describe(
    "the agent's trajectory (agent/trajectory.json); null when the harness wrote none",
  ),
}).describe('one attempt with everything recorded about it');
export type AttemptDetail = z.infer<typeof AttemptDetail>;

export const AttemptDetailResponse = z.object({ data: AttemptDetail.describe('The attempt') });
export type AttemptDetailResponse = z.infer<typeof AttemptDetailResponse>;

export const AttemptParams = z.object({
  name: z.string().min(1).describe('the run name'),
  id: z.string().min(1).describe("the attempt id; another workspace's or a malformed id is a 404"),
});
