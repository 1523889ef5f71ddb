// Importing one task of a benchmark being synced (benchmark-sync.ts): checked (links, size,
// name), packed as a deterministic tar into artifact storage under a key made of its digest, and
// inserted with the benchmark's synced count, in one transaction; and the benchmark's task sets.
import type { TaskManifest } from '@osmosis/contracts';
import type { Db, Prisma } from '@osmosis/db';
import type { ArtifactStorage } from '@osmosis/storage';
import {
  checkTaskLinks,
  type ExtractOptions,
  packTar,
  type TaskLimits,
  taskLimitsOf,
  withTaskLimits,
} from '@osmosis/tasks';
import type { Logger } from 'pino';
import { taskNameProblem, taskSizeProblem } from './source-checks.ts';

export interface TaskImportDeps {
  db: Db;
  storage: ArtifactStorage;
  logger?: Pick<Logger, 'info' | 'warn' | 'error'>;
  /** size limits of an archive and of each task (default: the extractor's) */
  limits?: Pick<ExtractOptions, 'maxBytes' | 'maxEntryBytes' | 'maxEntries' | 'maxRatio' | 'limitNames'>;
  /** the operator's maximums (OSMOSIS_TASK_MAX_*): a task over one is imported unsupported */
  taskLimits?: TaskLimits;
  /** called after each imported task with the new synced count (tests observe progress here) */
  onTaskImported?: (info: { benchmarkId: string; task: string; synced: number }) => Promise<void> | void;
}

export interface Importer {
  /** names already in the database (skipped on resume) */
  have: Set<string>;
  /** `label`: the task's folder as the source names it, for messages */
  importTask(dir: string, manifest: TaskManifest, label: string): Promise<void>;
}

export function importer(deps: TaskImportDeps, benchmarkId: string, have: Set<string>): Importer {
  const { db, storage } = deps;
  return {
    have,
    async importTask(dir, parsed, label) {
      if (have.has(parsed.name)) return;
      const manifest = withTaskLimits(parsed, deps.taskLimits ?? taskLimitsOf({}));
      // never a path a source could choose: the key is made of the digest computed here
      const hex = manifest.digest.replace(/^sha256:/, '');
      if (!/^[0-9a-f]{64}$/.test(hex)) throw new Error(`unexpected task digest ${manifest.digest}`);
      const storageKey = `tasks/${hex.slice(0, 2)}/${hex}.tar`;
      // links out of the task and over-size tasks are refused before anything is stored
      await checkTaskLinks(dir, label);
      const tooBig = taskSizeProblem(manifest, label, deps.limits);
      if (tooBig) throw new Error(tooBig);
      const badName = taskNameProblem(manifest, label);
      if (badName) throw new Error(badName);
      if (!(await storage.stat(storageKey))) {
        await storage.put(storageKey, packTar(dir));
      }
      const { instruction, ...rest } = manifest;
      await db.$transaction([
        db.task.upsert({
          where: { benchmarkId_name: { benchmarkId, name: manifest.name } },
          create: {
            benchmarkId,
            name: manifest.name,
            category: manifest.category,
            difficulty: manifest.difficulty,
            digest: manifest.digest,
            envDigest: manifest.env_digest,
            config: rest as unknown as Prisma.InputJsonValue,
            instruction,
            storageKey,
            unsupportedReason: manifest.unsupported_reason,
            parseError: manifest.parse_error,
          },
          update: {},
        }),
        db.benchmark.update({ where: { id: benchmarkId }, data: { syncedTaskCount: { increment: 1 } } }),
      ]);
      have.add(manifest.name);
      deps.logger?.info({ benchmarkId, task: manifest.name }, 'task imported');
      await deps.onTaskImported?.({ benchmarkId, task: manifest.name, synced: have.size });
    },
  };
}

export async function upsertTaskSets(
  db: Db,
  benchmarkId: string,
  sets: { name: string; description: string | null; recommended: boolean; taskNames: string[] }[],
) {
  for (const s of sets) {
    await db.taskSet.upsert({
      where: { benchmarkId_name: { benchmarkId, name: s.name } },
      create: { benchmarkId, ...s },
      update: { taskNames: s.taskNames, description: s.description, recommended: s.recommended },
    });
  }
}
