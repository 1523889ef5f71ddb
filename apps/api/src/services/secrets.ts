// Secret records as the wire shows them: names, scopes and who set them when, never a value.
// The encryption and the writes themselves are in ../secret-records.ts; routes/secrets.ts checks
// who may write a workspace record and replies.
import type { ListSecretsQuery, SecretInfo, SecretScope, UserSummary } from '@osmosis/contracts';
import type { Db } from '@osmosis/db';
import { ApiError } from '../errors.ts';
import { deleteSecret, SECRET_ROW_SELECT, type SecretRow, upsertSecret } from '../secret-records.ts';
import { iso, pageOfRows } from './serialize.ts';
import { usersById } from './workspace-entries.ts';

interface Caller {
  workspaceId: string;
  userId: string;
}

/** A user as upstream's `creator_name` / `updater_name` show one: the display name, else the e-mail. */
function nameOf(user: UserSummary | undefined): string | null {
  return user ? (user.display_name ?? user.email) : null;
}

function usersOfRows(db: Db, rows: SecretRow[]): Promise<Map<string, UserSummary>> {
  return usersById(
    db,
    rows.flatMap((r) => [r.ownerId, r.setById, r.createdById]).filter((id): id is string => !!id),
  );
}

function secretInfo(row: SecretRow, users: Map<string, UserSummary>): SecretInfo {
  return {
    id: row.id,
    name: row.name,
    scope: row.scope,
    owner: row.ownerId ? (users.get(row.ownerId) ?? null) : null,
    set_by: users.get(row.setById) ?? null,
    creator_name: nameOf(users.get(row.createdById ?? row.setById)),
    updater_name: nameOf(users.get(row.setById)),
    created_at: iso(row.createdAt),
    updated_at: iso(row.updatedAt),
  };
}

/** The workspace records and the caller's personal ones (`scope` narrows to one kind), by name. */
export function listSecrets(db: Db, caller: Caller, query: ListSecretsQuery) {
  const { scope, limit, offset } = query;
  const visible = [
    ...(scope !== 'personal' ? [{ scope: 'workspace' as const }] : []),
    ...(scope !== 'workspace' ? [{ scope: 'personal' as const, ownerId: caller.userId }] : []),
  ];
  const where = { workspaceId: caller.workspaceId, OR: visible };
  return pageOfRows(
    offset,
    db.secret.count({ where }),
    db.secret.findMany({
      where,
      select: SECRET_ROW_SELECT,
      orderBy: [{ name: 'asc' }, { scope: 'asc' }],
      skip: offset,
      take: limit,
    }) as Promise<SecretRow[]>,
    async (rows) => {
      const users = await usersOfRows(db, rows);
      return rows.map((r) => secretInfo(r, users));
    },
  );
}

/** Creates or replaces the record; `created` says which. */
export async function setSecret(
  db: Db,
  caller: Caller,
  input: { name: string; scope: SecretScope; value: string },
): Promise<SecretInfo & { created: boolean }> {
  const { row, created } = await upsertSecret(db, {
    workspaceId: caller.workspaceId,
    name: input.name,
    scope: input.scope,
    userId: caller.userId,
    value: input.value,
  });
  return { ...secretInfo(row, await usersOfRows(db, [row])), created };
}

/** Deletes the caller's personal record or the workspace's record; 404 when there is none. */
export async function removeSecret(db: Db, caller: Caller, name: string, scope: SecretScope): Promise<void> {
  const deleted = await deleteSecret(db, {
    workspaceId: caller.workspaceId,
    name,
    scope,
    userId: caller.userId,
  });
  if (!deleted)
    throw new ApiError('NOT_FOUND', `no ${scope} secret record named ${name}`, {
      hint: `see \`osmosis secret list --scope ${scope}\``,
    });
}
