// Per-agent inputs of the scores beside pass@1 (packages/core scoring: comparability,
// calibration, mean task score): the harness infos of scored attempts, the stated confidences of
// judged HLE answers, and each task's reward sum. Finished attempts only; `asOf` as in results.ts.
// Only the inputs a caller asks for are read (a benchmark without a judge needs neither
// confidences nor task sums); the harness infos come from their roll-up
// (migration 20261206090000_agent_harness_infos) unless `asOf` asks for a past snapshot.

import type { Db } from '../client.ts';
import { Prisma } from '../generated/prisma/client.ts';
import { foldRollups } from './rollup-fold.ts';

export interface AgentQualityRows {
  /** distinct harness_info of the scored attempts (null: not recorded), with their counts */
  infos: { info: unknown; attempts: number }[];
  /** judged attempts: stated confidence (0–100) and whether the answer was right */
  confidences: { confidence: number; correct: boolean }[];
  /** per task: the sum of rewards (errored attempts 0) and the scored attempts */
  tasks: { sum: number; attempts: number }[];
}

/** Which inputs to read; all of them when not given. */
export interface AgentQualityNeeds {
  infos: boolean;
  confidences: boolean;
  tasks: boolean;
}

const SCORED = Prisma.sql`status = 'finished' AND outcome IN ('passed', 'failed', 'errored')`;

export async function agentQualityRows(
  db: Db,
  scope: { runIds: string[]; agentIds?: string[]; asOf?: Date | null; need?: AgentQualityNeeds },
): Promise<Map<string, AgentQualityRows>> {
  const out = new Map<string, AgentQualityRows>();
  if (scope.runIds.length === 0) return out;
  const need = scope.need ?? { infos: true, confidences: true, tasks: true };
  const agents = scope.agentIds ? Prisma.sql`AND agent_id = ANY(${scope.agentIds}::uuid[])` : Prisma.empty;
  const where = Prisma.sql`run_id = ANY(${scope.runIds}::uuid[]) ${agents}
    ${scope.asOf ? Prisma.sql`AND finished_at <= ${scope.asOf}` : Prisma.empty}
    AND ${SCORED}`;
  const entry = (id: string) => {
    let e = out.get(id);
    if (!e) {
      e = { infos: [], confidences: [], tasks: [] };
      out.set(id, e);
    }
    return e;
  };
  const none = Promise.resolve([]);
  if (need.infos && !scope.asOf) await foldRollups(db);
  const [infos, confidences, tasks] = await Promise.all([
    !need.infos
      ? none
      : scope.asOf
        ? db.$queryRaw<{ agent_id: string; info: unknown; n: number }[]>`
      SELECT agent_id::text, harness_info AS info, count(*)::int AS n
      FROM attempts WHERE ${where} GROUP BY agent_id, harness_info`
        : db.$queryRaw<{ agent_id: string; info: unknown; n: number }[]>`
      SELECT agent_id::text, (array_agg(info))[1] AS info, sum(n)::int AS n FROM agent_harness_infos
      WHERE run_id = ANY(${scope.runIds}::uuid[]) ${agents}
      GROUP BY agent_id, info_key HAVING sum(n) > 0`,
    !need.confidences
      ? none
      : db.$queryRaw<{ agent_id: string; confidence: number; reward: number | null }[]>`
      SELECT agent_id::text, (rewards ->> 'confidence')::float8 AS confidence, reward
      FROM attempts
      WHERE ${where} AND outcome <> 'errored' AND jsonb_typeof(rewards -> 'confidence') = 'number'
      ORDER BY created_at, id`,
    !need.tasks
      ? none
      : db.$queryRaw<{ agent_id: string; sum: number; n: number }[]>`
      SELECT agent_id::text, sum(CASE WHEN outcome = 'errored' THEN 0 ELSE COALESCE(reward, 0) END)::float8 AS sum,
        count(*)::int AS n
      FROM attempts WHERE ${where} GROUP BY agent_id, task_id`,
  ]);
  for (const r of infos) entry(r.agent_id).infos.push({ info: r.info ?? null, attempts: r.n });
  for (const r of confidences)
    entry(r.agent_id).confidences.push({ confidence: r.confidence, correct: (r.reward ?? 0) >= 1 });
  for (const r of tasks) entry(r.agent_id).tasks.push({ sum: r.sum, attempts: r.n });
  return out;
}
