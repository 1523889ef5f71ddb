// Reproducing a run (POST /v1/runs/:name/reproduce): the same config submitted again as a new run
// of the caller's workspace, checked against the earlier run's lock first. Refused (409, naming
// each item) when a task's content changed since, is gone, or the selection now takes another
// task. The new run gets the earlier run's image pins, so its attempts are given exactly the
// images the earlier ones ran; an image whose digest can no longer be pulled fails its attempts
// with the pull's error naming the reference and digest. `reuse_from` is not applied: a
// reproduction runs everything again.
import { RunLockRecord, type SubmitRunBody } from '@osmosis/contracts';
import { ApiError } from '../errors.ts';
import type { ServiceDeps } from './deps.ts';
import { runNotFound } from './not-found.ts';
import { buildRunLockRecord } from './run-lock-record.ts';
import { type Caller, type Prepared, prepareRun } from './submit-prepare.ts';

/** At most this many changed items are named in a refusal. */
const MAX_NAMED = 20;

/** The tasks whose digests differ between two records, as `tasks.NAME.digest` / `(gone)` / `(new)`. */
export function changedTasks(before: RunLockRecord, now: RunLockRecord): string[] {
  const nowByName = new Map(now.tasks.map((t) => [t.name, t]));
  const beforeNames = new Set(before.tasks.map((t) => t.name));
  const changed: string[] = [];
  for (const t of before.tasks) {
    const current = nowByName.get(t.name);
    if (!current) changed.push(`tasks.${t.name} (gone from the benchmark or the selection)`);
    else if (current.digest !== t.digest)
      changed.push(`tasks.${t.name}.digest (${t.digest} → ${current.digest})`);
    else if (current.image !== t.image) changed.push(`tasks.${t.name}.image (${t.image} → ${current.image})`);
  }
  for (const t of now.tasks)
    if (!beforeNames.has(t.name)) changed.push(`tasks.${t.name} (new in the selection)`);
  return changed;
}

export interface Reproduction {
  sourceRunId: string;
  body: SubmitRunBody;
  prepared: Prepared;
}

/** Validates a reproduction of the workspace's run `name`; the caller creates it. */
export async function prepareReproduction(
  deps: ServiceDeps,
  caller: Caller,
  name: string,
): Promise<Reproduction> {
  const source = await deps.db.run.findUnique({
    where: { workspaceId_name: { workspaceId: caller.workspace.id, name } },
    select: { id: true, configToml: true, lock: true },
  });
  if (!source) throw await runNotFound(deps.db, caller.workspace.id, name);
  if (source.lock === null) {
    throw ApiError.conflict(
      `run ${name} has no lock (it was submitted before the platform kept locks), so a reproduction cannot be checked; submit its config again instead`,
    );
  }
  const body: SubmitRunBody = { config_toml: source.configToml, file_name: `${name}.toml` };
  const prepared = await prepareRun(deps, caller, body);
  const before = RunLockRecord.parse(source.lock);
  const changed = changedTasks(before, await buildRunLockRecord(deps.db, prepared, null));
  if (changed.length > 0) {
    const named = changed.slice(0, MAX_NAMED);
    throw ApiError.conflict(
      `run ${name} cannot be reproduced: ${changed.length} task${changed.length === 1 ? '' : 's'} differ${changed.length === 1 ? 's' : ''} from its lock: ${named.join('; ')}${changed.length > named.length ? '; …' : ''}. Sync the benchmark at the lock's source (osmosis benchmark runs lock ${name}), or submit the config as a new experiment`,
      { changed: named },
    );
  }
  return { sourceRunId: source.id, body, prepared };
}
