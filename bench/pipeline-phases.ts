// Where an attempt's time goes, read back from what the platform stores: the attempt row
// (dispatched_at, started_at, the phase columns, finished_at), its run events (the first phase
// event, the last one) and the `timings_ms` the pipeline puts on its last event.
import type { Db } from '@osmosis/db';

/** In pipeline order; `dispatch` (from due to dispatched) only when attempts ran one at a time. */
export const PHASES = [
  'dispatch',
  'lease',
  'load',
  'image',
  'sandbox_create',
  'agent_setup',
  'agent',
  'sweep',
  'copy_in',
  'verifier_exec',
  'collect',
  'teardown',
  'finalize',
] as const;
type Phase = (typeof PHASES)[number];

/** The median (NaN of nothing). */
export const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length === 0
    ? Number.NaN
    : s.length % 2
      ? (s[m] as number)
      : ((s[m - 1] as number) + (s[m] as number)) / 2;
};

/** Each attempt's phases in ms. `sequential`: attempts ran one after the other (dispatch wait is measurable). */
export async function phaseRows(
  db: Db,
  runId: string,
  sequential: boolean,
): Promise<Record<Phase, number>[]> {
  const run = await db.run.findUniqueOrThrow({ where: { id: runId } });
  const attempts = await db.attempt.findMany({ where: { runId }, orderBy: { finishedAt: 'asc' } });
  const events = await db.runEvent.findMany({
    where: { runId, attemptId: { not: null } },
    orderBy: { id: 'asc' },
  });
  const byAttempt = new Map<string, typeof events>();
  for (const e of events) {
    const list = byAttempt.get(e.attemptId as string) ?? [];
    list.push(e);
    byAttempt.set(e.attemptId as string, list);
  }
  const out: Record<Phase, number>[] = [];
  let due = run.createdAt.getTime();
  for (const a of attempts) {
    const list = byAttempt.get(a.id) ?? [];
    const first = list.find((e) => e.step === 'environment');
    const last = list.findLast((e) => e.step === 'teardown' && e.details !== null);
    const timings = ((last?.details as { timings_ms?: Record<string, number> } | null)?.timings_ms ??
      {}) as Record<string, number>;
    const t = (name: string) => timings[name] ?? 0;
    const finished = a.finishedAt?.getTime() ?? 0;
    const started = a.startedAt?.getTime() ?? 0;
    out.push({
      dispatch: sequential ? (a.dispatchedAt?.getTime() ?? due) - due : Number.NaN,
      lease: started - (a.dispatchedAt?.getTime() ?? started),
      load: (first?.timestamp.getTime() ?? started) - started,
      image: t('image'),
      sandbox_create: t('sandbox_create'),
      agent_setup: a.agentSetupMs ?? 0,
      agent: a.agentMs ?? 0,
      sweep: t('sweep'),
      copy_in: t('copy_in'),
      verifier_exec: t('verifier_exec'),
      collect: t('collect'),
      teardown: t('teardown'),
      finalize: finished - (last?.timestamp.getTime() ?? finished),
    });
    due = finished;
  }
  return out;
}

export function printPhases(label: string, rows: Record<Phase, number>[]): void {
  const cells = PHASES.map((p) => {
    const m = median(rows.map((r) => r[p]).filter((x) => !Number.isNaN(x)));
    return `${p} ${Number.isNaN(m) ? '-' : m.toFixed(0)}`;
  });
  console.log(`phases ${label} (median ms): ${cells.join(', ')}`);
}
