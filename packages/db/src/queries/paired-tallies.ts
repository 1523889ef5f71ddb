// What a paired comparison of two agents reads (GET /v1/runs/:name/compare, the run page's
// Comparison): the per-task tallies of the two agents from the roll-up agent_task_tallies (kept
// by a trigger on attempts), grouped by the pair of tallies — a few rows whatever the number of
// tasks — and the tasks where the two differ, largest difference first. A task is scored by an
// agent when its tally has scored > 0; a task neither agent has scored yet has no row here.
import type { Db } from '../client.ts';
import { foldRollups } from './rollup-fold.ts';

/** Tasks with the same tallies on both sides: passed/scored of a and of b (0/0 = not scored). */
export interface PairedTallyGroupRow {
  a_passed: number;
  a_scored: number;
  b_passed: number;
  b_scored: number;
  tasks: number;
}

export interface DifferingTaskRow {
  task: string;
  a_passed: number;
  a_scored: number;
  b_passed: number;
  b_scored: number;
}

/** Every task scored by at least one of the two agents, counted per pair of tallies. */
export async function pairedTallyGroups(
  db: Db,
  agentA: string,
  agentB: string,
): Promise<PairedTallyGroupRow[]> {
  await foldRollups(db);
  return db.$queryRaw<PairedTallyGroupRow[]>`
    WITH a AS (SELECT task_id, scored, passed FROM agent_task_tallies WHERE agent_id = ${agentA}::uuid AND scored > 0),
      b AS (SELECT task_id, scored, passed FROM agent_task_tallies WHERE agent_id = ${agentB}::uuid AND scored > 0)
    SELECT coalesce(a.passed, 0) AS a_passed, coalesce(a.scored, 0) AS a_scored,
      coalesce(b.passed, 0) AS b_passed, coalesce(b.scored, 0) AS b_scored, count(*)::int AS tasks
    FROM a FULL JOIN b ON b.task_id = a.task_id
    GROUP BY 1, 2, 3, 4`;
}

/**
 * Up to `limit` tasks both agents scored whose pass rates differ, the largest |rate_a − rate_b|
 * first, then by name (byte order). The difference is ordered as one division of exact integers,
 * so equal differences tie and fall to the name.
 */
export async function pairedDifferingTasks(
  db: Db,
  agentA: string,
  agentB: string,
  limit: number,
): Promise<DifferingTaskRow[]> {
  await foldRollups(db);
  return db.$queryRaw<DifferingTaskRow[]>`
    SELECT t.name AS task, a.passed AS a_passed, a.scored AS a_scored, b.passed AS b_passed, b.scored AS b_scored
    FROM agent_task_tallies a
    JOIN agent_task_tallies b ON b.agent_id = ${agentB}::uuid AND b.task_id = a.task_id
    JOIN tasks t ON t.id = a.task_id
    WHERE a.agent_id = ${agentA}::uuid AND a.scored > 0 AND b.scored > 0
      AND a.passed::bigint * b.scored <> b.passed::bigint * a.scored
    ORDER BY abs((a.passed::bigint * b.scored - b.passed::bigint * a.scored)::float8 / (a.scored::bigint * b.scored)) DESC,
      t.name COLLATE "C"
    LIMIT ${limit}`;
}

export interface CrossRunTasks {
  /** tasks of the benchmark either side has an attempt at */
  attempted: number;
  /** tasks both sides have attempts at whose digest when planned differs (the first 100 by name) */
  changed: { task: string; a: string; b: string }[];
  changedCount: number;
}

/**
 * Two agents of two runs of one benchmark: how many tasks either has an attempt at, and the tasks
 * whose content differed between the two runs (attempts.task_digest, the task's digest when its
 * attempts were planned; every attempt of a task in a run is planned at once, so one is read per
 * task — an index probe each on attempts (run_id, agent_id, task_id, index)).
 */
export async function crossRunTasks(
  db: Db,
  benchmarkId: string,
  a: { runId: string; agentId: string },
  b: { runId: string; agentId: string },
): Promise<CrossRunTasks> {
  const [row] = await db.$queryRaw<
    { attempted: number; changed_count: number; changed: { task: string; a: string; b: string }[] }[]
  >`
    WITH s AS MATERIALIZED (
      SELECT t.name, pa.digest AS a_digest, pb.digest AS b_digest, pa.present AS in_a, pb.present AS in_b
      FROM tasks t
      LEFT JOIN LATERAL (SELECT true AS present, x.task_digest AS digest FROM attempts x
        WHERE x.run_id = ${a.runId}::uuid AND x.agent_id = ${a.agentId}::uuid AND x.task_id = t.id LIMIT 1) pa ON true
      LEFT JOIN LATERAL (SELECT true AS present, x.task_digest AS digest FROM attempts x
        WHERE x.run_id = ${b.runId}::uuid AND x.agent_id = ${b.agentId}::uuid AND x.task_id = t.id LIMIT 1) pb ON true
      WHERE t.benchmark_id = ${benchmarkId}::uuid),
    c AS (SELECT name, a_digest, b_digest FROM s WHERE in_a AND in_b AND a_digest <> b_digest)
    SELECT (SELECT count(*) FROM s WHERE in_a OR in_b)::int AS attempted,
      (SELECT count(*) FROM c)::int AS changed_count,
      coalesce((SELECT json_agg(json_build_object('task', name, 'a', a_digest, 'b', b_digest) ORDER BY name COLLATE "C")
        FROM (SELECT * FROM c ORDER BY name COLLATE "C" LIMIT 100) f), '[]'::json) AS changed`;
  return {
    attempted: row?.attempted ?? 0,
    changedCount: row?.changed_count ?? 0,
    changed: row?.changed ?? [],
  };
}
