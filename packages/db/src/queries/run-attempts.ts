// A run's attempts counted and listed for runs info and runs lists, without reading every
// attempt of a big run: counts from the roll-up agent_outcome_totals (kept by the trigger of
// migration 20261205090000_results_rollups), the first attempts by keyset order from the indexes.
import type { Db } from '../client.ts';
import { OPEN_STATUS, runningByAgent } from './open-attempts.ts';
import { foldRollups } from './rollup-fold.ts';

export interface RunAttemptCountRow {
  run_id: string;
  status: string;
  /** null: no outcome yet */
  outcome: 'passed' | 'failed' | 'errored' | 'cancelled' | null;
  n: number;
}

/** Attempts per (run, status, outcome) of some runs (queued and running apart: open-attempts.ts). */
export async function attemptCountsByRun(db: Db, runIds: string[]): Promise<RunAttemptCountRow[]> {
  if (runIds.length === 0) return [];
  await foldRollups(db);
  const [rows, running] = await Promise.all([
    db.$queryRaw<RunAttemptCountRow[]>`
      SELECT run_id::text AS run_id, status, nullif(outcome, '') AS outcome, sum(n)::int AS n
      FROM agent_outcome_totals
      WHERE run_id = ANY(${runIds}::uuid[]) AND n <> 0
      GROUP BY run_id, status, outcome`,
    runningByAgent(db, runIds),
  ]);
  const runningOf = new Map<string, number>();
  for (const r of running) runningOf.set(r.run_id, (runningOf.get(r.run_id) ?? 0) + r.n);
  const out: RunAttemptCountRow[] = [];
  for (const row of rows) {
    if (row.status !== OPEN_STATUS || row.outcome !== null) {
      out.push(row);
      continue;
    }
    const n = Math.min(row.n, runningOf.get(row.run_id) ?? 0);
    if (n > 0) out.push({ ...row, status: 'running', n });
    if (row.n - n > 0) out.push({ ...row, status: 'queued', n: row.n - n });
  }
  return out;
}

/**
 * The ids of a run's first `limit` attempts in (agent index, task name, attempt index) order.
 * Per agent it walks the run benchmark's tasks in name order (index tasks(benchmark_id, name))
 * and looks each one's attempts up (index attempts(run_id, agent_id, task_id, index)), so it
 * stops after `limit` rows instead of sorting every attempt of the run.
 */
export async function firstAttemptIds(db: Db, runId: string, limit: number): Promise<string[]> {
  const rows = await db.$queryRaw<{ id: string }[]>`
    SELECT x.id::text AS id
    FROM runs r
    JOIN run_agents ra ON ra.run_id = r.id
    CROSS JOIN LATERAL (
      SELECT a.id, t.name, a.index
      FROM tasks t
      JOIN attempts a ON a.run_id = r.id AND a.agent_id = ra.id AND a.task_id = t.id
      WHERE t.benchmark_id = r.benchmark_id
      ORDER BY t.name, a.index
      LIMIT ${limit}
    ) x
    WHERE r.id = ${runId}::uuid
    ORDER BY ra.index, x.name, x.index
    LIMIT ${limit}`;
  return rows.map((r) => r.id);
}
