// Which benchmark of the workspace an imported Harbor job belongs to, and which of its tasks
// each trial ran. Tasks are matched by name: Harbor's `task_checksum` is a dirhash of the whole
// task folder and our digest hashes paths, kinds, modes and bytes another way, so the two never
// compare equal (see docs/reproducibility.md "Import"). A trial's task name matches a task of
// the same name, or one named as its last `/` part (a registry task is `org/name`).
import type { RunImportMismatch } from '@osmosis/contracts';
import type { Db } from '@osmosis/db';
import { ApiError } from '../errors.ts';
import type { HarborTrial } from './harbor-job-read.ts';
import { findBenchmark } from './leaderboard.ts';
import { benchmarkNotFound } from './not-found.ts';

export const CHECKSUM_NOTE =
  "tasks were matched by name: Harbor's task_checksum (a dirhash of the task folder) and the platform's task digest hash different things and never compare equal";

export interface ImportBenchmark {
  id: string;
  key: string;
  passThreshold: number;
}

export interface MatchedTrial {
  trial: HarborTrial;
  taskId: string;
  /** the benchmark's name of the task */
  taskName: string;
}

const lastPart = (name: string): string => name.slice(name.lastIndexOf('/') + 1);

function candidateNames(trials: HarborTrial[]): string[] {
  return [...new Set(trials.flatMap((t) => [t.result.task_name, lastPart(t.result.task_name)]))];
}

/** The benchmark named by `ref`, else the workspace's one whose tasks match the most trials. */
export async function importBenchmark(
  db: Db,
  workspaceId: string,
  ref: string | undefined,
  trials: HarborTrial[],
): Promise<ImportBenchmark> {
  const select = { id: true, key: true, passThreshold: true } as const;
  if (ref) {
    const found = await findBenchmark(db, workspaceId, ref);
    if (!found) throw await benchmarkNotFound(db, workspaceId, ref);
    return db.benchmark.findUniqueOrThrow({ where: { id: found.id }, select });
  }
  const hits = await db.task.groupBy({
    by: ['benchmarkId'],
    where: { name: { in: candidateNames(trials) }, benchmark: { workspaceId } },
    _count: { _all: true },
  });
  hits.sort((a, b) => b._count._all - a._count._all);
  const best = hits[0];
  if (!best)
    throw ApiError.validation(
      'no benchmark of this workspace has a task named as the job’s trials; add the benchmark first, or name it with --benchmark',
      [{ path: 'query.benchmark', message: 'no matching benchmark' }],
    );
  if (hits[1] && hits[1]._count._all === best._count._all) {
    const keys = await db.benchmark.findMany({
      where: { id: { in: hits.filter((h) => h._count._all === best._count._all).map((h) => h.benchmarkId) } },
      select: { key: true },
    });
    throw ApiError.validation(
      `the job’s tasks match several benchmarks equally (${keys.map((k) => k.key).join(', ')}); name one with --benchmark`,
      [{ path: 'query.benchmark', message: 'ambiguous' }],
    );
  }
  return db.benchmark.findUniqueOrThrow({ where: { id: best.benchmarkId }, select });
}

/** Each trial with its task, and the trials whose task the benchmark does not have. */
export async function matchTrials(
  db: Db,
  benchmark: ImportBenchmark,
  trials: HarborTrial[],
): Promise<{ matched: MatchedTrial[]; mismatches: RunImportMismatch[] }> {
  const tasks = await db.task.findMany({
    where: { benchmarkId: benchmark.id, name: { in: candidateNames(trials) } },
    select: { id: true, name: true },
  });
  const byName = new Map(tasks.map((t) => [t.name, t]));
  const matched: MatchedTrial[] = [];
  const mismatches: RunImportMismatch[] = [];
  for (const trial of trials) {
    const name = trial.result.task_name;
    const task = byName.get(name) ?? byName.get(lastPart(name));
    if (task) matched.push({ trial, taskId: task.id, taskName: task.name });
    else
      mismatches.push({
        trial: trial.folder,
        task_name: name,
        reason: `benchmark ${benchmark.key} has no task named ${JSON.stringify(name)}: not imported`,
      });
  }
  return { matched, mismatches };
}
