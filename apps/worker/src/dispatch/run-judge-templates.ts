// The judge prompts a run's attempts were graded with (`run_judge_templates`), for the run's lock:
// one row per run and template, inserted when a judged result is written (INSERT … ON CONFLICT DO
// NOTHING), so the lock reads a handful of rows, never the run's attempts. A worker remembers
// what it recorded, so a run of many judged attempts costs it one insert per template.
import { JUDGE_TEMPLATE_ID } from '@osmosis/contracts';
import type { Db } from '@osmosis/db';

/** Recorded `run template` pairs of this process; forgotten wholesale past the bound (re-inserting is harmless). */
const recorded = new Set<string>();
const MAX_REMEMBERED = 10_000;

/** Records that `runId` was judged with `template` (`kind:sha256hex`); nothing for a result without one. */
export async function recordJudgeTemplate(
  db: Db,
  runId: string,
  template: string | null | undefined,
): Promise<void> {
  if (!template || !JUDGE_TEMPLATE_ID.test(template)) return;
  const key = `${runId} ${template}`;
  if (recorded.has(key)) return;
  // from the run's row: a run deleted meanwhile gets nothing (its result is stale anyway)
  await db.$executeRaw`
    INSERT INTO run_judge_templates (run_id, template)
    SELECT id, ${template} FROM runs WHERE id = ${runId}::uuid
    ON CONFLICT (run_id, template) DO NOTHING`;
  if (recorded.size >= MAX_REMEMBERED) recorded.clear();
  recorded.add(key);
}
