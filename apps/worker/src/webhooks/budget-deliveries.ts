// `budget.reached` deliveries: one per webhook subscribed to it for every run whose spend reached
// its `[execution] max_cost_usd` (the run's `run.budget_reached` event), sent when it is reached,
// before the running attempts finish and the run ends `stopped`. Idempotent like the run events'
// deliveries (unique webhook + dedup key), within the same look-back window.
import { BUDGET_REACHED_EVENT, type WebhookPayload } from '@osmosis/contracts';
import type { Db } from '@osmosis/db';
import { runTotals, WEBHOOK_LOOKBACK_HOURS } from './deliveries.ts';

const EVENT = 'budget.reached';

interface BudgetRun {
  webhook_id: string;
  run_id: string;
  run_name: string;
  status: string;
  workspace: string;
  benchmark: string;
  task_count: number;
  created_at: Date;
  finished_at: Date | null;
  error_message: string | null;
}

/** Creates the missing `budget.reached` deliveries; returns the new deliveries' ids. */
export async function createBudgetDeliveries(db: Db, maxAttempts: number, limit = 200): Promise<string[]> {
  const reached = await db.$queryRaw<BudgetRun[]>`
    SELECT w.id::text AS webhook_id, r.id::text AS run_id, r.name AS run_name, r.status::text AS status,
      ws.name AS workspace, b.key AS benchmark, r.task_count, r.created_at, r.finished_at, r.error_message
    FROM run_events e
    JOIN runs r ON r.id = e.run_id
    JOIN webhooks w ON w.workspace_id = r.workspace_id
    JOIN workspaces ws ON ws.id = r.workspace_id
    JOIN benchmarks b ON b.id = r.benchmark_id
    WHERE e.step = ${BUDGET_REACHED_EVENT}
      AND e.timestamp >= w.created_at
      AND e.timestamp > now() - make_interval(hours => ${WEBHOOK_LOOKBACK_HOURS})
      AND ${EVENT} = ANY(w.events)
      AND NOT EXISTS (
        SELECT 1 FROM webhook_deliveries d
        WHERE d.webhook_id = w.id AND d.dedup_key = 'run:' || r.id::text || ':' || ${EVENT})
    ORDER BY e.timestamp
    LIMIT ${limit}`;
  if (reached.length === 0) return [];
  const totals = await runTotals(
    db,
    reached.map((r) => r.run_id),
  );
  const created: string[] = [];
  for (const run of reached) {
    const id = crypto.randomUUID();
    const payload: WebhookPayload = {
      id,
      event: EVENT,
      created_at: new Date().toISOString(),
      workspace: run.workspace,
      run: {
        id: run.run_id,
        name: run.run_name,
        status: run.status,
        benchmark: run.benchmark,
        task_count: run.task_count,
        created_at: run.created_at.toISOString(),
        finished_at: run.finished_at?.toISOString() ?? null,
        error_message: run.error_message,
        totals: totals.get(run.run_id) ?? { passed: 0, failed: 0, errored: 0, cancelled: 0 },
      },
    };
    const inserted = await db.$executeRaw`
      INSERT INTO webhook_deliveries (id, webhook_id, event, dedup_key, run_id, run_name, payload, max_attempts)
      VALUES (${id}::uuid, ${run.webhook_id}::uuid, ${EVENT}, ${`run:${run.run_id}:${EVENT}`}, ${run.run_id}::uuid,
        ${run.run_name}, ${JSON.stringify(payload)}::jsonb, ${maxAttempts})
      ON CONFLICT (webhook_id, dedup_key) DO NOTHING`;
    if (inserted === 1) created.push(id);
  }
  return created;
}
