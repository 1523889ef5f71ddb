// The task, agent and try of each attempt event on a page of GET /v1/runs/:name/events, so a
// `runs logs` line says which attempt it is about. The try is the one of the latest
// `attempt.started` event of the same attempt at or before the event (its details.try, written
// by the worker's lease); events before the first start have none.
import type { RunEventAttemptFields } from '@osmosis/contracts';
import { agentLabel } from '@osmosis/core';
import type { Db } from '@osmosis/db';

interface Row {
  id: bigint;
  task_name: string;
  agent_index: number;
  model: string;
  harness: string;
  attempt_index: number;
  try: number | null;
}

export async function attemptFieldsOfEvents(
  db: Db,
  runId: string,
  events: { id: bigint; attemptId: string | null }[],
): Promise<Map<bigint, RunEventAttemptFields>> {
  const ids = events.filter((e) => e.attemptId !== null).map((e) => e.id.toString());
  const out = new Map<bigint, RunEventAttemptFields>();
  if (ids.length === 0) return out;
  const rows = await db.$queryRaw<Row[]>`
    SELECT e.id, t.name AS task_name, ag.index AS agent_index, ag.model, ag.harness, a.index AS attempt_index,
      (SELECT CASE WHEN jsonb_typeof(s.details->'try') = 'number'
           AND (s.details->>'try')::numeric BETWEEN 1 AND 1000000 THEN (s.details->>'try')::numeric::int END
         FROM run_events s
         WHERE s.run_id = e.run_id AND s.attempt_id = e.attempt_id AND s.step = 'attempt.started' AND s.id <= e.id
         ORDER BY s.id DESC LIMIT 1) AS try
    FROM run_events e
    JOIN attempts a ON a.id = e.attempt_id
    JOIN tasks t ON t.id = a.task_id
    JOIN run_agents ag ON ag.id = a.agent_id
    WHERE e.run_id = ${runId}::uuid AND e.id = ANY(${ids}::bigint[])`;
  for (const r of rows) {
    out.set(r.id, {
      task_name: r.task_name,
      agent_index: r.agent_index,
      agent_label: agentLabel(r.model, r.harness),
      attempt_index: r.attempt_index,
      try: r.try !== null && r.try > 0 ? r.try : null,
    });
  }
  return out;
}
