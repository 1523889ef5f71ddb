// What the workspace's small capped lists share (endpoint hosts, git links, webhooks): who added
// an entry, and adding one idempotently under the list's cap, even when two requests add it at once.
// `usersById` also names who set a secret record and who created a run.
import type { UserSummary } from '@osmosis/contracts';
import type { Db } from '@osmosis/db';
import type { ApiError } from '../errors.ts';
import { isUniqueViolation } from './db-errors.ts';
import { userSummary } from './serialize.ts';

/** Users by id, as the wire shows who added or created something (a removed user is absent). */
export async function usersById(db: Db, ids: readonly string[]): Promise<Map<string, UserSummary>> {
  const unique = [...new Set(ids)];
  const users = unique.length
    ? await db.user.findMany({
        where: { id: { in: unique } },
        select: { id: true, email: true, displayName: true },
      })
    : [];
  return new Map(users.map((u) => [u.id, userSummary(u)]));
}

/**
 * The entry `find` reads, made by `create` when missing: `created` false when it was there
 * (or another request added it meanwhile). `full(count)` is the error once `limit` are held.
 */
export async function addCappedEntry<R>(ops: {
  find(): Promise<R | null>;
  count(): Promise<number>;
  create(): Promise<R>;
  limit: number;
  full(count: number): ApiError;
}): Promise<{ row: R; created: boolean }> {
  const existing = await ops.find();
  if (existing) return { row: existing, created: false };
  const count = await ops.count();
  if (count >= ops.limit) throw ops.full(count);
  try {
    return { row: await ops.create(), created: true };
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    // added by a concurrent request: the entry is there, which is what was asked
    const row = await ops.find();
    if (!row) throw error;
    return { row, created: false };
  }
}
