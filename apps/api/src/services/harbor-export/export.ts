// GET /v1/runs/:name/export: a run as a Harbor job directory (`harbor`) or a Terminal-Bench 2
// leaderboard submission (`tb-leaderboard`: metadata.yaml and the job folder), as one tar.gz.
// Everything is decided before the first byte is sent: the run (404, 409 while pending or
// queued), every artifact's presence in storage, and for the leaderboard its rules (409 naming
// each broken rule, the tasks short of trials and the reuse_from lines that would complete them).
import type { Readable } from 'node:stream';
import { type EntrySource, packEntries } from '@osmosis/archive';
import type { RunLock } from '@osmosis/contracts';
import type { ArtifactRow, Db } from '@osmosis/db';
import type { ArtifactStorage } from '@osmosis/storage';
import { ApiError } from '../../errors.ts';
import { isSafeRelativePath } from '../download-paths.ts';
import { assertHasOutputs } from '../run-files.ts';
import { runOr404 } from '../run-results.ts';
import { harborJob } from './job-files.ts';
import {
  leaderboardModels,
  metadataYaml,
  type SubmissionInfo,
  submissionFolder,
} from './leaderboard-metadata.ts';
import { leaderboardBreaks, reuseFromHint } from './leaderboard-rules.ts';
import { loadExport } from './load.ts';

export interface ExportDeps {
  db: Db;
  storage: Pick<ArtifactStorage, 'getStream' | 'stat'>;
  /**
   * The run's lock (null: the run has none), mapped to lock.json and written as osmosis-lock.json at
   * the job's root. Given by the caller so the export does not depend on how locks are made.
   */
  lockFor?: (db: Db, runId: string) => Promise<RunLock | null>;
}

export type ExportRequest = { format: 'harbor' } | { format: 'tb-leaderboard'; submission: SubmissionInfo };

export interface RunExport {
  /** the archive's suggested file name */
  fileName: string;
  stream: Readable;
  trials: number;
  /** artifacts recorded for the run that storage no longer has (left out of a harbor export) */
  missingArtifacts: number;
}

/** Stats every artifact (16 at a time); those storage no longer has are returned apart. */
async function presentArtifacts(storage: ExportDeps['storage'], rows: ArtifactRow[]) {
  const present = new Map<ArtifactRow, number>();
  const missing: ArtifactRow[] = [];
  for (let i = 0; i < rows.length; i += 16) {
    const batch = rows.slice(i, i + 16);
    const stats = await Promise.all(batch.map((r) => storage.stat(r.storage_key).catch(() => null)));
    batch.forEach((r, j) => {
      const st = stats[j];
      if (st) present.set(r, st.size);
      else missing.push(r);
    });
  }
  return { present, missing };
}

const jsonEntry = (name: string, value: unknown): EntrySource => {
  const content = Buffer.from(`${JSON.stringify(value, null, 4)}\n`);
  return { name, size: content.length, content };
};

export async function exportRun(
  deps: ExportDeps,
  workspaceId: string,
  runName: string,
  request: ExportRequest,
): Promise<RunExport> {
  const found = await runOr404(deps.db, workspaceId, runName);
  assertHasOutputs(found);
  const loaded = await loadExport(deps.db, found);
  for (const a of loaded.attempts) a.artifactPaths = a.artifactPaths.filter(isSafeRelativePath);
  const rows = [...loaded.artifacts.values()].flat().filter((r) => isSafeRelativePath(r.path));
  const { present, missing } = await presentArtifacts(deps.storage, rows);
  const lock = deps.lockFor ? await deps.lockFor(deps.db, found.id) : null;
  const job = harborJob(loaded.run, loaded.attempts, lock ?? undefined);
  let prefix = '';
  const extra: EntrySource[] = [];
  if (request.format === 'tb-leaderboard') {
    const breaks = leaderboardBreaks(loaded.run, job);
    if (missing.length)
      breaks.push({
        rule: 'missing_artifact',
        message: `${missing.length} artifacts recorded for the run are no longer in storage`,
      });
    if (breaks.length) {
      const short = breaks.find((b) => b.rule === 'min_trials');
      throw ApiError.conflict(
        `run ${found.name} breaks the Terminal-Bench leaderboard's rules: ${breaks.map((b) => `${b.rule}: ${b.message}`).join('; ')}`,
        {
          rules: breaks,
          ...(short ? { reuse_from: reuseFromHint(loaded.run) } : {}),
        },
      );
    }
    const models = leaderboardModels(loaded.run);
    prefix = `${submissionFolder(request.submission, models)}/`;
    const yaml = Buffer.from(metadataYaml(request.submission, models));
    extra.push({ name: `${prefix}metadata.yaml`, size: yaml.length, content: yaml });
    prefix += `${loaded.run.name}/`;
  }
  const byKey = new Map(rows.map((r) => [`${r.attempt_id}/${r.path}`, r]));
  const entries: EntrySource[] = [...extra, ...job.jsonFiles.map((f) => jsonEntry(prefix + f.path, f.json))];
  for (const copy of job.artifacts) {
    const row = byKey.get(`${copy.attemptId}/${copy.artifactPath}`);
    const size = row ? present.get(row) : undefined;
    if (!row || size === undefined) continue;
    entries.push({
      name: prefix + copy.path,
      size,
      content: () => deps.storage.getStream(row.storage_key),
    });
  }
  return {
    fileName: `${found.name}-${request.format}.tar.gz`,
    stream: packEntries(entries, { gzip: true }),
    trials: job.trials.length,
    missingArtifacts: missing.length,
  };
}
