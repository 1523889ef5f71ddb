// SQL aggregations behind scores, the leaderboard and downloads. These only count and sum, in
// Postgres with GROUP BY (never loading every attempt); the scores themselves are computed from
// these aggregates by the pure functions of @osmosis/core (packages/core/src/scoring). The row
// shapes below are what those functions take (structurally: TaskBucket, UsageSums, ...).
import type { Db } from '../client.ts';
import { Prisma } from '../generated/prisma/client.ts';

export interface TaskBucketRow {
  scored: number;
  passed: number;
  tasks: number;
}

export interface OutcomeCountsRow {
  passed: number;
  failed: number;
  errored: number;
  cancelled: number;
  pending: number;
  total: number;
}

export interface UsageSumsRow {
  cost_usd: number;
  cost_n: number;
  judge_cost_usd: number;
  judge_cost_n: number;
  time_ms: number;
  time_n: number;
  tokens: number;
  tokens_n: number;
  input_tokens: number;
  output_tokens: number;
  cache_tokens: number;
}

export interface AgentAggregateRow {
  run_id: string;
  agent_id: string;
  buckets: TaskBucketRow[];
  counts: OutcomeCountsRow;
  /** over scored attempts (passed, failed, errored) */
  scored_usage: UsageSumsRow;
  /** over every attempt */
  all_usage: UsageSumsRow;
  running: number;
  queued: number;
}

// An attempt is "scored" when its outcome is passed, failed or errored. Cancelled covers an
// attempt cancelled before it got an outcome too. Pending = no outcome yet.
const SCORED = Prisma.sql`outcome IN ('passed', 'failed', 'errored')`;
const CANCELLED = Prisma.sql`(outcome = 'cancelled' OR (outcome IS NULL AND status = 'cancelled'))`;
// time of an attempt: the sum of its known phases; unknown when no phase is known
const TIME = Prisma.sql`CASE WHEN num_nonnulls(env_ms, agent_setup_ms, agent_ms, verifier_ms) = 0 THEN NULL
  ELSE coalesce(env_ms, 0)::float8 + coalesce(agent_setup_ms, 0) + coalesce(agent_ms, 0) + coalesce(verifier_ms, 0) END`;
const TOKENS = Prisma.sql`CASE WHEN num_nonnulls(input_tokens, output_tokens) = 0 THEN NULL
  ELSE coalesce(input_tokens, 0)::float8 + coalesce(output_tokens, 0) END`;

function usageColumns(prefix: string, filter: Prisma.Sql | null): Prisma.Sql {
  const f = filter ? Prisma.sql` FILTER (WHERE ${filter})` : Prisma.empty;
  const col = (name: string) => Prisma.raw(`"${prefix}${name}"`);
  return Prisma.sql`
    coalesce(sum(cost_usd)${f}, 0)::float8 AS ${col('cost_usd')},
    (count(cost_usd)${f})::int AS ${col('cost_n')},
    coalesce(sum(judge_cost_usd)${f}, 0)::float8 AS ${col('judge_cost_usd')},
    (count(judge_cost_usd)${f})::int AS ${col('judge_cost_n')},
    coalesce(sum(${TIME})${f}, 0)::float8 AS ${col('time_ms')},
    (count(${TIME})${f})::int AS ${col('time_n')},
    coalesce(sum(${TOKENS})${f}, 0)::float8 AS ${col('tokens')},
    (count(${TOKENS})${f})::int AS ${col('tokens_n')},
    coalesce(sum(input_tokens)${f}, 0)::float8 AS ${col('input_tokens')},
    coalesce(sum(output_tokens)${f}, 0)::float8 AS ${col('output_tokens')},
    coalesce(sum(cache_tokens)${f}, 0)::float8 AS ${col('cache_tokens')}`;
}

const USAGE_KEYS = [
  'cost_usd',
  'cost_n',
  'judge_cost_usd',
  'judge_cost_n',
  'time_ms',
  'time_n',
  'tokens',
  'tokens_n',
  'input_tokens',
  'output_tokens',
  'cache_tokens',
] as const;

function pickUsage(row: Record<string, unknown>, prefix: string): UsageSumsRow {
  const out = {} as UsageSumsRow;
  for (const k of USAGE_KEYS) out[k] = Number(row[`${prefix}${k}`] ?? 0);
  return out;
}

/**
 * Selects the attempts of some runs, optionally only some of their agents. `asOf`: the attempts
 * as they were at that time — an outcome recorded later is not there yet (a stable snapshot of a
 * running run, for downloads).
 */
export interface AttemptScope {
  runIds: string[];
  agentIds?: string[];
  asOf?: Date | null;
}

function scopeWhere(scope: AttemptScope): Prisma.Sql {
  const runs = Prisma.sql`run_id = ANY(${scope.runIds}::uuid[])`;
  return scope.agentIds ? Prisma.sql`${runs} AND agent_id = ANY(${scope.agentIds}::uuid[])` : runs;
}

/** The attempts of a scope as a derived table `a` (Postgres flattens it when there is no asOf). */
function attemptsOf(scope: AttemptScope): Prisma.Sql {
  const asOf = scope.asOf ?? null;
  if (!asOf) {
    return Prisma.sql`(SELECT run_id, agent_id, task_id, outcome::text AS outcome, status::text AS status,
      cost_usd, judge_cost_usd, env_ms, agent_setup_ms, agent_ms, verifier_ms, input_tokens, output_tokens, cache_tokens
      FROM attempts WHERE ${scopeWhere(scope)}) a`;
  }
  const done = Prisma.sql`(finished_at IS NOT NULL AND finished_at <= ${asOf})`;
  const m = (col: string) => Prisma.sql`CASE WHEN ${done} THEN ${Prisma.raw(col)} END AS ${Prisma.raw(col)}`;
  return Prisma.sql`(SELECT run_id, agent_id, task_id,
      CASE WHEN ${done} THEN outcome::text END AS outcome,
      CASE WHEN ${done} THEN status::text WHEN started_at IS NOT NULL AND started_at <= ${asOf} THEN 'running' ELSE 'queued' END AS status,
      ${m('cost_usd')}, ${m('judge_cost_usd')}, ${m('env_ms')}, ${m('agent_setup_ms')}, ${m('agent_ms')},
      ${m('verifier_ms')}, ${m('input_tokens')}, ${m('output_tokens')}, ${m('cache_tokens')}
      FROM attempts WHERE ${scopeWhere(scope)} AND created_at <= ${asOf}) a`;
}

/**
 * The task histogram of each agent: GROUP BY (agent, task) → (scored, passed), then GROUP BY
 * (agent, scored, passed) → number of tasks. A few dozen rows per agent whatever the run size.
 */
export async function taskBuckets(db: Db, scope: AttemptScope): Promise<Map<string, TaskBucketRow[]>> {
  if (scope.runIds.length === 0) return new Map();
  const rows = await db.$queryRaw<{ agent_id: string; scored: number; passed: number; tasks: number }[]>`
    SELECT agent_id::text AS agent_id, scored, passed, count(*)::int AS tasks
    FROM (
      SELECT agent_id, task_id,
             (count(*) FILTER (WHERE ${SCORED}))::int AS scored,
             (count(*) FILTER (WHERE outcome = 'passed'))::int AS passed
      FROM ${attemptsOf(scope)}
      GROUP BY agent_id, task_id
    ) per_task
    WHERE scored > 0
    GROUP BY agent_id, scored, passed
    ORDER BY agent_id, scored, passed`;
  const out = new Map<string, TaskBucketRow[]>();
  for (const r of rows) {
    const list = out.get(r.agent_id) ?? [];
    list.push({ scored: r.scored, passed: r.passed, tasks: r.tasks });
    out.set(r.agent_id, list);
  }
  return out;
}

/**
 * Outcome counts, in-flight counts and usage sums per agent: one GROUP BY (agent, outcome,
 * status) with plain sums (a handful of rows per agent), folded per agent here.
 */
export async function agentAggregates(db: Db, scope: AttemptScope): Promise<Map<string, AgentAggregateRow>> {
  if (scope.runIds.length === 0) return new Map();
  const [rows, buckets] = await Promise.all([
    db.$queryRaw<Record<string, unknown>[]>`
      SELECT run_id::text AS run_id, agent_id::text AS agent_id, outcome, status, count(*)::int AS n,
        ${usageColumns('', null)}
      FROM ${attemptsOf(scope)}
      GROUP BY run_id, agent_id, outcome, status`,
    taskBuckets(db, scope),
  ]);
  const out = new Map<string, AgentAggregateRow>();
  for (const r of rows) {
    const agentId = r.agent_id as string;
    let agg = out.get(agentId);
    if (!agg) {
      agg = {
        run_id: r.run_id as string,
        agent_id: agentId,
        buckets: buckets.get(agentId) ?? [],
        counts: { passed: 0, failed: 0, errored: 0, cancelled: 0, pending: 0, total: 0 },
        scored_usage: pickUsage({}, ''),
        all_usage: pickUsage({}, ''),
        running: 0,
        queued: 0,
      };
      out.set(agentId, agg);
    }
    const n = Number(r.n);
    const outcome = r.outcome as string | null;
    const status = r.status as string;
    const usage = pickUsage(r, '');
    agg.counts.total += n;
    addUsage(agg.all_usage, usage);
    if (outcome === 'passed' || outcome === 'failed' || outcome === 'errored') {
      agg.counts[outcome] += n;
      addUsage(agg.scored_usage, usage);
    } else if (outcome === 'cancelled' || status === 'cancelled') {
      agg.counts.cancelled += n;
    } else {
      agg.counts.pending += n;
      if (status === 'running') agg.running += n;
      if (status === 'queued') agg.queued += n;
    }
  }
  return out;
}

function addUsage(into: UsageSumsRow, add: UsageSumsRow): void {
  for (const k of USAGE_KEYS) into[k] += add[k];
}

/** Progress counts of one run (for live progress snapshots): one small GROUP BY. */
export async function runOutcomeCounts(
  db: Db,
  runId: string,
): Promise<OutcomeCountsRow & { running: number; queued: number }> {
  const rows = await db.$queryRaw<Record<string, number>[]>`
    SELECT
      (count(*) FILTER (WHERE outcome = 'passed'))::int AS passed,
      (count(*) FILTER (WHERE outcome = 'failed'))::int AS failed,
      (count(*) FILTER (WHERE outcome = 'errored'))::int AS errored,
      (count(*) FILTER (WHERE ${CANCELLED}))::int AS cancelled,
      (count(*) FILTER (WHERE outcome IS NULL AND status <> 'cancelled'))::int AS pending,
      count(*)::int AS total,
      (count(*) FILTER (WHERE outcome IS NULL AND status = 'running'))::int AS running,
      (count(*) FILTER (WHERE outcome IS NULL AND status = 'queued'))::int AS queued
    FROM attempts WHERE run_id = ${runId}::uuid`;
  const r = rows[0] ?? {};
  return {
    passed: Number(r.passed ?? 0),
    failed: Number(r.failed ?? 0),
    errored: Number(r.errored ?? 0),
    cancelled: Number(r.cancelled ?? 0),
    pending: Number(r.pending ?? 0),
    total: Number(r.total ?? 0),
    running: Number(r.running ?? 0),
    queued: Number(r.queued ?? 0),
  };
}

// ---------------------------------------------------------------------------------------------
// Leaderboard

export interface LeaderboardCandidate {
  agent_id: string;
  harness: string;
  model: string;
  run_id: string;
  run_name: string;
  finished_at: Date | null;
  attempts_per_task: number;
  /** "full" or the recommended task set's name */
  task_set: string;
}

export interface UnrankedCandidate extends LeaderboardCandidate {
  errored: number;
  scored: number;
}

/** The agents a leaderboard may draw on: of finished runs of the benchmark (in its workspace) on
 * the full task set or a whole recommended named set (not narrowed by task_names or categories),
 * with each agent's errored and scored attempt counts. */
function qualifyingRuns(benchmarkId: string): Prisma.Sql {
  return Prisma.sql`
    SELECT ra.id::text AS agent_id, ra.harness, ra.model, ra.index AS agent_index, r.id::text AS run_id,
      r.name AS run_name, r.finished_at, r.created_at, r.attempts_per_task,
      CASE WHEN (r.selection ->> 'full_set')::boolean IS TRUE THEN 'full' ELSE r.selection ->> 'task_set' END AS task_set,
      c.errored, c.scored
    FROM runs r
    JOIN benchmarks b ON b.id = r.benchmark_id AND b.workspace_id = r.workspace_id
    JOIN run_agents ra ON ra.run_id = r.id
    JOIN LATERAL (
      SELECT (count(*) FILTER (WHERE a.outcome = 'errored'))::int AS errored,
             (count(*) FILTER (WHERE a.outcome IN ('passed', 'failed', 'errored')))::int AS scored
      FROM attempts a WHERE a.run_id = r.id AND a.agent_id = ra.id
    ) c ON TRUE
    WHERE r.benchmark_id = ${benchmarkId}::uuid
      AND r.status = 'finished'
      AND (
        (r.selection ->> 'full_set')::boolean IS TRUE
        OR (
          r.selection ->> 'task_set' IN (
            SELECT ts.name FROM task_sets ts WHERE ts.benchmark_id = r.benchmark_id AND ts.recommended
          )
          -- the whole set: task_names or categories narrow it to a sample that is not comparable
          AND r.selection ->> 'task_names' IS NULL
          AND r.selection ->> 'categories' IS NULL
        )
      )`;
}

/**
 * One row per (harness, model): the agent of the most recently finished qualifying run (see
 * qualifyingRuns) whose errored share (its errored / scored attempts) is at most
 * `maxErroredShare`: a run broken by an outage never displaces a good entry. See docs/scores.md.
 */
export async function leaderboardCandidates(
  db: Db,
  benchmarkId: string,
  maxErroredShare = 1,
): Promise<LeaderboardCandidate[]> {
  return db.$queryRaw<LeaderboardCandidate[]>`
    SELECT DISTINCT ON (q.harness, q.model)
      q.agent_id, q.harness, q.model, q.run_id, q.run_name, q.finished_at, q.attempts_per_task, q.task_set
    FROM (${qualifyingRuns(benchmarkId)}) q
    WHERE q.scored = 0 OR q.errored::float8 / q.scored <= ${maxErroredShare}
    ORDER BY q.harness, q.model, q.finished_at DESC NULLS LAST, q.created_at DESC, q.agent_index`;
}

/**
 * The newest qualifying run per (harness, model) whose errored share is over `maxErroredShare`:
 * listed beside the leaderboard, not ranked (the caller keeps those newer than the ranked entry).
 */
export async function unrankedCandidates(
  db: Db,
  benchmarkId: string,
  maxErroredShare: number,
): Promise<UnrankedCandidate[]> {
  return db.$queryRaw<UnrankedCandidate[]>`
    SELECT DISTINCT ON (q.harness, q.model)
      q.agent_id, q.harness, q.model, q.run_id, q.run_name, q.finished_at, q.attempts_per_task, q.task_set,
      q.errored, q.scored
    FROM (${qualifyingRuns(benchmarkId)}) q
    WHERE q.scored > 0 AND q.errored::float8 / q.scored > ${maxErroredShare}
    ORDER BY q.harness, q.model, q.finished_at DESC NULLS LAST, q.created_at DESC, q.agent_index`;
}

export interface AgentOutcomeRow {
  run_id: string;
  agent_id: string;
  harness: string;
  model: string;
  passed: number;
  failed: number;
  errored: number;
}

/** Passed, failed and errored attempts per agent of some runs (one small GROUP BY). */
export async function agentOutcomeCounts(db: Db, runIds: string[]): Promise<AgentOutcomeRow[]> {
  if (runIds.length === 0) return [];
  return db.$queryRaw<AgentOutcomeRow[]>`
    SELECT ra.run_id::text AS run_id, ra.id::text AS agent_id, ra.harness, ra.model,
      (count(a.id) FILTER (WHERE a.outcome = 'passed'))::int AS passed,
      (count(a.id) FILTER (WHERE a.outcome = 'failed'))::int AS failed,
      (count(a.id) FILTER (WHERE a.outcome = 'errored'))::int AS errored
    FROM run_agents ra LEFT JOIN attempts a ON a.agent_id = ra.id
    WHERE ra.run_id = ANY(${runIds}::uuid[])
    GROUP BY ra.run_id, ra.id, ra.harness, ra.model, ra.index
    ORDER BY ra.run_id, ra.index`;
}

/** Attempts of each run waiting for a Docker engine (handed back for an unavailable engine). */
export async function engineWaitingByRun(db: Db, runIds: string[]): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  if (runIds.length === 0) return out;
  const rows = await db.$queryRaw<{ run_id: string; n: number }[]>`
    SELECT run_id::text AS run_id, count(*)::int AS n FROM attempts
    WHERE run_id = ANY(${runIds}::uuid[]) AND status = 'queued' AND waiting_reason = 'engine_unavailable'
    GROUP BY run_id`;
  for (const r of rows) out.set(r.run_id, Number(r.n));
  return out;
}

// ---------------------------------------------------------------------------------------------
// Downloads: rows of results.csv, events of logs.txt, artifacts

export interface ResultRow {
  id: string;
  agent_index: number;
  harness: string;
  model: string;
  task_name: string;
  category: string | null;
  difficulty: string | null;
  attempt_index: number;
  try_count: number;
  status: string;
  outcome: string | null;
  reward: number | null;
  error_class: string | null;
  cost_usd: number | null;
  judge_cost_usd: number | null;
  input_tokens: number | null;
  output_tokens: number | null;
  cache_tokens: number | null;
  env_ms: number | null;
  agent_setup_ms: number | null;
  agent_ms: number | null;
  verifier_ms: number | null;
  agent_exit_code: number | null;
  agent_timed_out: boolean | null;
  started_at: Date | null;
  finished_at: Date | null;
  /** `attempts.steps` as stored (AttemptSteps of @osmosis/contracts): null for a single-step task */
  steps: unknown;
}

/**
 * One page of a run's attempts for results.csv, in (agent index, task name, attempt index)
 * order, keyset-paginated on that order. `asOf`: attempts finished after it show as they were
 * then (status `pending`, no outcome), so a snapshot of a running run has a stable size.
 */
export async function resultRowsPage(
  db: Db,
  runId: string,
  after: { agent_index: number; task_name: string; attempt_index: number } | null,
  limit: number,
  asOf: Date | null = null,
): Promise<ResultRow[]> {
  const keyset = after
    ? Prisma.sql`AND (ra.index, t.name, a.index) > (${after.agent_index}, ${after.task_name}, ${after.attempt_index})`
    : Prisma.empty;
  const done = asOf ? Prisma.sql`(a.finished_at IS NOT NULL AND a.finished_at <= ${asOf})` : Prisma.sql`TRUE`;
  return db.$queryRaw<ResultRow[]>`
    SELECT a.id::text AS id, ra.index AS agent_index, ra.harness, ra.model, t.name AS task_name,
      t.category, t.difficulty, a.index AS attempt_index, a.try_count,
      CASE WHEN ${done} THEN a.status::text ELSE 'pending' END AS status,
      CASE WHEN ${done} THEN a.outcome::text END AS outcome,
      CASE WHEN ${done} THEN a.reward END AS reward,
      CASE WHEN ${done} THEN a.error_class END AS error_class,
      CASE WHEN ${done} THEN a.cost_usd END AS cost_usd,
      CASE WHEN ${done} THEN a.judge_cost_usd END AS judge_cost_usd,
      CASE WHEN ${done} THEN a.input_tokens END AS input_tokens,
      CASE WHEN ${done} THEN a.output_tokens END AS output_tokens,
      CASE WHEN ${done} THEN a.cache_tokens END AS cache_tokens,
      CASE WHEN ${done} THEN a.env_ms END AS env_ms,
      CASE WHEN ${done} THEN a.agent_setup_ms END AS agent_setup_ms,
      CASE WHEN ${done} THEN a.agent_ms END AS agent_ms,
      CASE WHEN ${done} THEN a.verifier_ms END AS verifier_ms,
      CASE WHEN ${done} THEN a.agent_exit_code END AS agent_exit_code,
      CASE WHEN ${done} THEN a.agent_timed_out END AS agent_timed_out,
      CASE WHEN ${asOf === null ? Prisma.sql`TRUE` : Prisma.sql`a.started_at <= ${asOf}`} THEN a.started_at END AS started_at,
      CASE WHEN ${done} THEN a.finished_at END AS finished_at,
      CASE WHEN ${done} THEN a.steps END AS steps
    FROM attempts a
    JOIN run_agents ra ON ra.id = a.agent_id
    JOIN tasks t ON t.id = a.task_id
    WHERE a.run_id = ${runId}::uuid ${keyset} ${asOf === null ? Prisma.empty : Prisma.sql`AND a.created_at <= ${asOf}`}
    ORDER BY ra.index, t.name, a.index
    LIMIT ${limit}`;
}

/** A text value as a CSV field (RFC 4180): quoted when it has a comma, quote, line break or edge space. */
function csvText(expr: Prisma.Sql): Prisma.Sql {
  return Prisma.sql`coalesce(CASE WHEN (${expr}) ~ '[",\\r\\n]|^\\s|\\s$' THEN '"' || replace((${expr}), '"', '""') || '"' ELSE (${expr}) END, '')`;
}
const csvPlain = (expr: Prisma.Sql): Prisma.Sql => Prisma.sql`coalesce((${expr})::text, '')`;
const csvTime = (expr: Prisma.Sql): Prisma.Sql =>
  Prisma.sql`coalesce(to_char((${expr}) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), '')`;

/**
 * The `steps` column: a compact JSON array `[{"name":…,"reward":…,"outcome":…,"duration_ms":…}]`
 * of a multi-step attempt's `attempts.steps` (duration = the step's agent + verifier time), NULL
 * for a single-step one. The stored value is the worker's, but a step name is the task author's
 * text: every string goes through to_json and a value of the wrong type becomes null, never SQL.
 */
function stepsJson(steps: Prisma.Sql): Prisma.Sql {
  // keys are the constants below, written into the SQL as literals
  const num = (key: string) =>
    Prisma.raw(`CASE WHEN jsonb_typeof(s -> '${key}') = 'number' THEN (s -> '${key}')::numeric END`);
  const str = (key: string) =>
    Prisma.raw(
      `CASE WHEN jsonb_typeof(s -> '${key}') = 'string' THEN to_json(s ->> '${key}')::text ELSE 'null' END`,
    );
  const duration = Prisma.sql`CASE WHEN num_nonnulls(${num('agent_ms')}, ${num('verifier_ms')}) = 0 THEN 'null'
    ELSE (coalesce(${num('agent_ms')}, 0) + coalesce(${num('verifier_ms')}, 0))::text END`;
  // the subquery runs only for rows with steps (single-step attempts, most rows, skip it)
  return Prisma.sql`CASE WHEN jsonb_typeof(${steps}) = 'array' THEN (SELECT '[' || string_agg('{"name":' || ${str('name')}
      || ',"reward":' || coalesce(${num('reward')}::text, 'null')
      || ',"outcome":' || ${str('outcome')}
      || ',"duration_ms":' || ${duration} || '}', ',' ORDER BY e.ord) || ']'
    FROM jsonb_array_elements(${steps}) WITH ORDINALITY AS e(s, ord)) END`;
}

/**
 * Rows `offset`..`offset+limit` of results.csv (no header), built as text by Postgres in one
 * value (the columns of docs/downloads.md, same order as resultRowsPage). Much faster than
 * returning the rows: 30,000 attempts are two round trips of one text value each.
 */
export async function resultsCsvChunk(
  db: Db,
  runId: string,
  offset: number,
  limit: number,
  asOf: Date | null = null,
): Promise<{ text: string; rows: number }> {
  const done = asOf ? Prisma.sql`(a.finished_at IS NOT NULL AND a.finished_at <= ${asOf})` : Prisma.sql`TRUE`;
  const m = (col: string) =>
    Prisma.sql`CASE WHEN ${done} THEN ${Prisma.raw(`a.${col}`)} END AS ${Prisma.raw(col)}`;
  const r = (col: string) => Prisma.raw(`r.${col}`);
  const rows = await db.$queryRaw<{ text: string | null; rows: number }[]>`
    SELECT coalesce(string_agg(concat_ws(',',
        ${csvPlain(r('id'))}, ${csvPlain(r('agent_index'))}, ${csvText(r('harness'))}, ${csvText(r('model'))},
        ${csvText(r('task_name'))}, ${csvText(r('category'))}, ${csvText(r('difficulty'))},
        ${csvPlain(r('attempt_index'))}, ${csvPlain(r('try_count'))}, ${csvText(r('status'))}, ${csvText(r('outcome'))},
        ${csvPlain(r('reward'))}, ${csvText(r('error_class'))}, ${csvPlain(r('cost_usd'))}, ${csvPlain(r('judge_cost_usd'))},
        ${csvPlain(r('input_tokens'))}, ${csvPlain(r('output_tokens'))}, ${csvPlain(r('cache_tokens'))},
        ${csvPlain(r('env_ms'))}, ${csvPlain(r('agent_setup_ms'))}, ${csvPlain(r('agent_ms'))}, ${csvPlain(r('verifier_ms'))},
        ${csvPlain(Prisma.sql`CASE WHEN num_nonnulls(r.env_ms, r.agent_setup_ms, r.agent_ms, r.verifier_ms) = 0 THEN NULL
          ELSE coalesce(r.env_ms, 0)::bigint + coalesce(r.agent_setup_ms, 0) + coalesce(r.agent_ms, 0) + coalesce(r.verifier_ms, 0) END`)},
        ${csvPlain(r('agent_exit_code'))}, ${csvPlain(r('agent_timed_out'))},
        ${csvTime(r('started_at'))}, ${csvTime(r('finished_at'))}, ${csvText(r('steps'))}
      ) || E'\n', '' ORDER BY r.agent_index, r.task_name, r.attempt_index), '') AS text,
      count(*)::int AS rows
    FROM (
      SELECT a.id::text AS id, ra.index AS agent_index, ra.harness, ra.model, t.name AS task_name,
        t.category, t.difficulty, a.index AS attempt_index, a.try_count,
        CASE WHEN ${done} THEN a.status::text ELSE 'pending' END AS status,
        CASE WHEN ${done} THEN a.outcome::text END AS outcome,
        ${m('reward')}, ${m('error_class')}, ${m('cost_usd')}, ${m('judge_cost_usd')}, ${m('input_tokens')},
        ${m('output_tokens')}, ${m('cache_tokens')}, ${m('env_ms')}, ${m('agent_setup_ms')}, ${m('agent_ms')},
        ${m('verifier_ms')}, ${m('agent_exit_code')}, ${m('agent_timed_out')},
        CASE WHEN ${asOf === null ? Prisma.sql`TRUE` : Prisma.sql`a.started_at <= ${asOf}`} THEN a.started_at END AS started_at,
        CASE WHEN ${done} THEN a.finished_at END AS finished_at,
        CASE WHEN ${done} THEN ${stepsJson(Prisma.sql`a.steps`)} END AS steps
      FROM attempts a
      JOIN run_agents ra ON ra.id = a.agent_id
      JOIN tasks t ON t.id = a.task_id
      WHERE a.run_id = ${runId}::uuid ${asOf === null ? Prisma.empty : Prisma.sql`AND a.created_at <= ${asOf}`}
      ORDER BY ra.index, t.name, a.index
      LIMIT ${limit} OFFSET ${offset}
    ) r`;
  return { text: rows[0]?.text ?? '', rows: Number(rows[0]?.rows ?? 0) };
}

export interface EventRow {
  id: bigint;
  timestamp: Date;
  level: string;
  step: string;
  message: string;
  details: unknown;
  attempt_id: string | null;
}

/** Events of a run after id `afterId` (oldest first); `asOf`: only those stamped up to then. */
export async function eventsAfter(
  db: Db,
  runId: string,
  afterId: bigint,
  limit: number,
  asOf: Date | null = null,
): Promise<EventRow[]> {
  const upper = asOf === null ? Prisma.empty : Prisma.sql`AND timestamp <= ${asOf}`;
  return db.$queryRaw<EventRow[]>`
    SELECT id, timestamp, level, step, message, details, attempt_id::text AS attempt_id
    FROM run_events
    WHERE run_id = ${runId}::uuid AND id > ${afterId} ${upper}
    ORDER BY id
    LIMIT ${limit}`;
}

/** The id of a run's newest event (0 when none). */
export async function lastEventId(db: Db, runId: string): Promise<bigint> {
  const rows = await db.$queryRaw<{ id: bigint | null }[]>`
    SELECT max(id) AS id FROM run_events WHERE run_id = ${runId}::uuid`;
  return rows[0]?.id ?? 0n;
}

export interface ArtifactRow {
  attempt_id: string;
  path: string;
  size: number;
  storage_key: string;
}

/** Every artifact of a run, ordered by attempt and path (index on artifacts(attempt_id, path)). */
export async function runArtifacts(db: Db, runId: string, asOf: Date | null = null): Promise<ArtifactRow[]> {
  const cut = asOf ? Prisma.sql`AND ar.created_at <= ${asOf}` : Prisma.empty;
  return db.$queryRaw<ArtifactRow[]>`
    SELECT ar.attempt_id::text AS attempt_id, ar.path, ar.size, ar.storage_key
    FROM artifacts ar JOIN attempts a ON a.id = ar.attempt_id
    WHERE a.run_id = ${runId}::uuid ${cut}
    ORDER BY ar.attempt_id, ar.path`;
}

/** One artifact of a run by attempt id and path. */
export async function runArtifact(
  db: Db,
  runId: string,
  attemptId: string,
  path: string,
): Promise<ArtifactRow | null> {
  const rows = await db.$queryRaw<ArtifactRow[]>`
    SELECT ar.attempt_id::text AS attempt_id, ar.path, ar.size, ar.storage_key
    FROM artifacts ar JOIN attempts a ON a.id = ar.attempt_id
    WHERE a.run_id = ${runId}::uuid AND ar.attempt_id = ${attemptId}::uuid AND ar.path = ${path}`;
  return rows[0] ?? null;
}
