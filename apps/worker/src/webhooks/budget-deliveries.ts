// `budget.reached` deliveries: one per webhook subscribed to it for every run whose spend reached
// its `[execution] max_cost_usd` (the run's `run.budget_reached` event), sent when it is reached,
// before the running attempts finish and the run ends `stopped`. Idempotent like the run events'
// deliveries (unique webhook + dedup key), within the same look-back window.
import { BUDGET_REACHED_EVENT } from '@osmosis/contracts';
import type { Db } from '@osmosis/db';
import { insertRunDeliveries, WEBHOOK_LOOKBACK_HOURS, type WebhookRunRow } from './deliveries.ts';

const EVENT = 'budget.reached' as const;

/** Creates the missing `budget.reached` deliveries; returns the new deliveries' ids. */
export async function createBudgetDeliveries(db: Db, maxAttempts: number, limit = 200): Promise<string[]> {
  const reached = await db.$queryRaw<WebhookRunRow[]>`
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
  return insertRunDeliveries(db, reached, () => EVENT, maxAttempts);
}
