// Pairs two agents' per-task outcomes by task name for comparePaired, and finds the tasks whose
// content digest differs between the two sides (a changed task is not the same question, so the
// comparison is refused rather than computed on it).
import type { PairedTaskRates } from './paired.ts';

/** One agent's scored attempts of one task (scored = passed + failed + errored). */
export interface TaskOutcomeRow {
  task: string;
  digest: string;
  passed: number;
  scored: number;
}

export interface PairedTasks {
  /** every task either side has, in name order (a side without the task has scored 0) */
  rates: PairedTaskRates[];
  /** tasks both sides ran with a different digest */
  digestMismatches: { task: string; a: string; b: string }[];
}

export function pairTaskRows(a: readonly TaskOutcomeRow[], b: readonly TaskOutcomeRow[]): PairedTasks {
  const byName = new Map<string, { a?: TaskOutcomeRow; b?: TaskOutcomeRow }>();
  for (const row of a) byName.set(row.task, { ...byName.get(row.task), a: row });
  for (const row of b) byName.set(row.task, { ...byName.get(row.task), b: row });
  const names = [...byName.keys()].sort();
  const rates: PairedTaskRates[] = [];
  const digestMismatches: PairedTasks['digestMismatches'] = [];
  for (const task of names) {
    const pair = byName.get(task)!;
    if (pair.a && pair.b && pair.a.digest !== pair.b.digest) {
      digestMismatches.push({ task, a: pair.a.digest, b: pair.b.digest });
    }
    rates.push({
      task,
      a: { passed: pair.a?.passed ?? 0, scored: pair.a?.scored ?? 0 },
      b: { passed: pair.b?.passed ?? 0, scored: pair.b?.scored ?? 0 },
    });
  }
  return { rates, digestMismatches };
}
