// The artifacts of a run's attempts, for downloads.
import type { Db } from '../client.ts';
import { Prisma } from '../generated/prisma/client.ts';

export interface ArtifactRow {
  attempt_id: string;
  path: string;
  size: number;
  storage_key: string;
}

/** Every artifact of a run, ordered by attempt and path (index on artifacts(attempt_id, path)). */
export async function runArtifacts(db: Db, runId: string, asOf: Date | null = null): Promise<ArtifactRow[]> {
  const cut = asOf ? Prisma.sql`AND ar.created_at <= ${asOf}` : Prisma.empty;
  return db.$queryRaw<ArtifactRow[]>`
    SELECT ar.attempt_id::text AS attempt_id, ar.path, ar.size, ar.storage_key
    FROM artifacts ar JOIN attempts a ON a.id = ar.attempt_id
    WHERE a.run_id = ${runId}::uuid ${cut}
    ORDER BY ar.attempt_id, ar.path`;
}

/** One artifact of a run by attempt id and path. */
export async function runArtifact(
  db: Db,
  runId: string,
  attemptId: string,
  path: string,
): Promise<ArtifactRow | null> {
  const rows = await db.$queryRaw<ArtifactRow[]>`
    SELECT ar.attempt_id::text AS attempt_id, ar.path, ar.size, ar.storage_key
    FROM artifacts ar JOIN attempts a ON a.id = ar.attempt_id
    WHERE a.run_id = ${runId}::uuid AND ar.attempt_id = ${attemptId}::uuid AND ar.path = ${path}`;
  return rows[0] ?? null;
}
