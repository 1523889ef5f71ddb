// SQL aggregations behind scores, runs lists and downloads. They read the roll-ups that a
// trigger on attempts keeps per agent (agent_outcome_totals, agent_task_buckets: a few rows per
// agent whatever the run's size; its logged changes folded in first, rollup-fold.ts), or for a snapshot as of a past time count the attempts with
// GROUP BY (never loading every attempt into the app); the scores themselves are computed from
// these aggregates by the pure functions of @osmosis/core (packages/core/src/scoring). The row
// shapes below are what those functions take (structurally: TaskBucket, UsageSums, ...).
import type { Db } from '../client.ts';
import { Prisma } from '../generated/prisma/client.ts';
import { OPEN_STATUS, runningByAgent } from './open-attempts.ts';
import { foldRollups, foldRollupsIfFree } from './rollup-fold.ts';

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
// attempt cancelled before it got an outcome too. Pending = no outcome yet. The roll-up tables
// write "no outcome" as ''.
const SCORED = Prisma.sql`outcome IN ('passed', 'failed', 'errored')`;
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

/** The usage columns of agent_outcome_totals, as usageColumns names them. */
const TOTALS_USAGE = Prisma.raw(
  USAGE_KEYS.map((k) => (k.endsWith('_n') ? `${k}` : `${k}::float8 AS ${k}`)).join(', '),
);

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
 * The task histogram of each agent: how many tasks have (scored, passed) attempts. A few dozen
 * rows per agent whatever the run size: read from the roll-up agent_task_buckets, or for a
 * snapshot (`asOf`) computed from the attempts: GROUP BY (agent, task), then (agent, scored, passed).
 */
export async function taskBuckets(db: Db, scope: AttemptScope): Promise<Map<string, TaskBucketRow[]>> {
  if (scope.runIds.length === 0) return new Map();
  if (!scope.asOf) await foldRollups(db);
  return readTaskBuckets(db, scope);
}

/** taskBuckets once the roll-ups are folded (the caller folded them). */
async function readTaskBuckets(db: Db, scope: AttemptScope): Promise<Map<string, TaskBucketRow[]>> {
  const rows = scope.asOf
    ? await db.$queryRaw<{ agent_id: string; scored: number; passed: number; tasks: number }[]>`
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
    ORDER BY agent_id, scored, passed`
    : // the roll-up kept by the attempts trigger (migrations 20261205090000_results_rollups,
      // 20261210090000_rollup_log)
      await db.$queryRaw<{ agent_id: string; scored: number; passed: number; tasks: number }[]>`
    SELECT agent_id::text AS agent_id, scored, passed, sum(tasks)::int AS tasks
    FROM agent_task_buckets
    WHERE ${scopeWhere(scope)}
    GROUP BY agent_id, scored, passed HAVING sum(tasks) > 0
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
 * Outcome counts, in-flight counts and usage sums per agent: the roll-up agent_outcome_totals
 * (for a snapshot, one GROUP BY (agent, outcome, status) of the attempts), a handful of rows per
 * agent, folded per agent here.
 */
export async function agentAggregates(db: Db, scope: AttemptScope): Promise<Map<string, AgentAggregateRow>> {
  if (scope.runIds.length === 0) return new Map();
  if (!scope.asOf) await foldRollups(db);
  const [rows, buckets] = await Promise.all([
    scope.asOf
      ? db.$queryRaw<Record<string, unknown>[]>`
      SELECT run_id::text AS run_id, agent_id::text AS agent_id, outcome, status, count(*)::int AS n,
        ${usageColumns('', null)}
      FROM ${attemptsOf(scope)}
      GROUP BY run_id, agent_id, outcome, status`
      : db.$queryRaw<Record<string, unknown>[]>`
      SELECT run_id::text AS run_id, agent_id::text AS agent_id, nullif(outcome, '') AS outcome, status, n,
        ${TOTALS_USAGE}
      FROM agent_outcome_totals
      WHERE ${scopeWhere(scope)} AND n <> 0`,
    readTaskBuckets(db, scope),
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
      // the roll-ups' 'open' (queued or running): running ones are counted apart below
      if (status === 'queued' || status === OPEN_STATUS) agg.queued += n;
    }
  }
  if (!scope.asOf) {
    for (const r of await runningByAgent(db, scope.runIds, scope.agentIds)) {
      const agg = out.get(r.agent_id);
      if (!agg) continue;
      agg.running += r.n;
      agg.queued -= r.n;
    }
  }
  return out;
}

function addUsage(into: UsageSumsRow, add: UsageSumsRow): void {
  for (const k of USAGE_KEYS) into[k] += add[k];
}

/**
 * Progress counts of one run (for live progress snapshots), from the roll-up agent_outcome_totals.
 * `exact` false (a live stream's frame, read by every watcher every tick): while another
 * connection folds, read without waiting for it; the next frame has what it folded.
 */
export async function runOutcomeCounts(
  db: Db,
  runId: string,
  options: { exact?: boolean } = {},
): Promise<OutcomeCountsRow & { running: number; queued: number }> {
  if (options.exact === false) await foldRollupsIfFree(db);
  else await foldRollups(db);
  const rows = await db.$queryRaw<Record<string, number>[]>`
    SELECT
      coalesce(sum(n) FILTER (WHERE outcome = 'passed'), 0)::int AS passed,
      coalesce(sum(n) FILTER (WHERE outcome = 'failed'), 0)::int AS failed,
      coalesce(sum(n) FILTER (WHERE outcome = 'errored'), 0)::int AS errored,
      coalesce(sum(n) FILTER (WHERE outcome = 'cancelled' OR (outcome = '' AND status = 'cancelled')), 0)::int AS cancelled,
      coalesce(sum(n) FILTER (WHERE outcome = '' AND status <> 'cancelled'), 0)::int AS pending,
      coalesce(sum(n), 0)::int AS total,
      coalesce(sum(n) FILTER (WHERE outcome = '' AND status = ${OPEN_STATUS}), 0)::int AS open
    FROM agent_outcome_totals WHERE run_id = ${runId}::uuid`;
  const running = (await runningByAgent(db, [runId])).reduce((sum, r) => sum + r.n, 0);
  const r = rows[0] ?? {};
  return {
    passed: Number(r.passed ?? 0),
    failed: Number(r.failed ?? 0),
    errored: Number(r.errored ?? 0),
    cancelled: Number(r.cancelled ?? 0),
    pending: Number(r.pending ?? 0),
    total: Number(r.total ?? 0),
    running,
    queued: Number(r.open ?? 0) - running,
  };
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

/** Passed, failed and errored attempts per agent of some runs (from the roll-up agent_outcome_totals). */
export async function agentOutcomeCounts(db: Db, runIds: string[]): Promise<AgentOutcomeRow[]> {
  if (runIds.length === 0) return [];
  await foldRollups(db);
  return db.$queryRaw<AgentOutcomeRow[]>`
    SELECT ra.run_id::text AS run_id, ra.id::text AS agent_id, ra.harness, ra.model,
      coalesce(sum(t.n) FILTER (WHERE t.outcome = 'passed'), 0)::int AS passed,
      coalesce(sum(t.n) FILTER (WHERE t.outcome = 'failed'), 0)::int AS failed,
      coalesce(sum(t.n) FILTER (WHERE t.outcome = 'errored'), 0)::int AS errored
    FROM run_agents ra LEFT JOIN agent_outcome_totals t ON t.agent_id = ra.id
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
