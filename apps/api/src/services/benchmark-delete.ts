// The rule for deleting a benchmark that has runs (DELETE /v1/benchmarks/:key, through
// services/benchmark-admin.ts): its runs go with it, so it takes the admin role and an explicit
// `?force=true` (`osmosis benchmark delete KEY --force`). Without runs any member may delete it.
import { type MemberRole, roleAtLeast } from '@osmosis/contracts';
import type { Db } from '@osmosis/db';
import { ApiError } from '../errors.ts';

type Tx = Pick<Db, 'run'>;

export async function assertMayDeleteRuns(
  tx: Tx,
  role: MemberRole,
  benchmark: { id: string; key: string },
  force: boolean,
): Promise<void> {
  const runs = await tx.run.count({ where: { benchmarkId: benchmark.id } });
  if (runs === 0) return;
  const what = `benchmark "${benchmark.key}" has ${runs} run${runs === 1 ? '' : 's'}`;
  if (!force) {
    throw ApiError.conflict(
      `${what}; deleting it deletes them too. Confirm with ?force=true (osmosis benchmark delete ${benchmark.key} --force); it needs the admin role`,
      { run_count: runs, flag: 'force' },
    );
  }
  if (!roleAtLeast(role, 'admin')) {
    throw ApiError.forbidden(
      `${what}; deleting it with its runs needs the admin role or higher; you are ${role}`,
    );
  }
}
