// The leaderboard's candidates: the agents of qualifying finished runs of a benchmark, newest per
// (harness, model), with their errored share (docs/scores.md).
import type { Db } from '../client.ts';
import { Prisma } from '../generated/prisma/client.ts';
import { foldRollups } from './rollup-fold.ts';

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
 * with each agent's errored and scored attempt counts. Imported runs (read from a Harbor job
 * directory) and runs made here are never candidates together: `imported` says which. */
function qualifyingRuns(benchmarkId: string, imported: boolean): Prisma.Sql {
  return Prisma.sql`
    SELECT ra.id::text AS agent_id, ra.harness, ra.model, ra.index AS agent_index, r.id::text AS run_id,
      r.name AS run_name, r.finished_at, r.created_at, r.attempts_per_task,
      CASE WHEN (r.selection ->> 'full_set')::boolean IS TRUE THEN 'full' ELSE r.selection ->> 'task_set' END AS task_set,
      c.errored, c.scored
    FROM runs r
    JOIN benchmarks b ON b.id = r.benchmark_id AND b.workspace_id = r.workspace_id
    JOIN run_agents ra ON ra.run_id = r.id
    JOIN LATERAL (
      SELECT coalesce(sum(t.n) FILTER (WHERE t.outcome = 'errored'), 0)::int AS errored,
             coalesce(sum(t.n) FILTER (WHERE t.outcome IN ('passed', 'failed', 'errored')), 0)::int AS scored
      FROM agent_outcome_totals t WHERE t.agent_id = ra.id
    ) c ON TRUE
    WHERE r.benchmark_id = ${benchmarkId}::uuid
      AND r.status = 'finished'
      AND r.imported = ${imported}
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
  imported = false,
): Promise<LeaderboardCandidate[]> {
  await foldRollups(db);
  return db.$queryRaw<LeaderboardCandidate[]>`
    SELECT DISTINCT ON (q.harness, q.model)
      q.agent_id, q.harness, q.model, q.run_id, q.run_name, q.finished_at, q.attempts_per_task, q.task_set
    FROM (${qualifyingRuns(benchmarkId, imported)}) q
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
  await foldRollups(db);
  return db.$queryRaw<UnrankedCandidate[]>`
    SELECT DISTINCT ON (q.harness, q.model)
      q.agent_id, q.harness, q.model, q.run_id, q.run_name, q.finished_at, q.attempts_per_task, q.task_set,
      q.errored, q.scored
    FROM (${qualifyingRuns(benchmarkId, false)}) q
    WHERE q.scored > 0 AND q.errored::float8 / q.scored > ${maxErroredShare}
    ORDER BY q.harness, q.model, q.finished_at DESC NULLS LAST, q.created_at DESC, q.agent_index`;
}
