// A user's memberships as the workspace and token routes read them: the caller's workspaces with
// their role, one workspace of theirs by id or name (404 when not a member), whether a name is taken.
import type { Db } from '@osmosis/db';
import { isUuid } from '../auth.ts';
import { ApiError } from '../errors.ts';
import { pageOfRows, workspaceSummary } from './serialize.ts';

/** The user's workspaces with their role in each, by name; `onlyWorkspaceId` for a confined token. */
export function listWorkspacesOf(
  db: Db,
  who: { userId: string; onlyWorkspaceId: string | null },
  p: { limit: number; offset: number },
) {
  const where = {
    userId: who.userId,
    ...(who.onlyWorkspaceId ? { workspaceId: who.onlyWorkspaceId } : {}),
  };
  return pageOfRows(
    p.offset,
    db.membership.count({ where }),
    db.membership.findMany({
      where,
      include: { workspace: true },
      orderBy: [{ workspace: { name: 'asc' } }],
      skip: p.offset,
      take: p.limit,
    }),
    (rows) => rows.map((m) => ({ ...workspaceSummary(m.workspace), role: m.role })),
  );
}

/** The user's workspace `workspaceId` with their role; 404 when they are not a member. */
export async function workspaceOfMember(db: Db, workspaceId: string, userId: string) {
  const membership = await db.membership.findUnique({
    where: { workspaceId_userId: { workspaceId, userId } },
    include: { workspace: true },
  });
  if (!membership) throw ApiError.notFound('workspace');
  return { ...workspaceSummary(membership.workspace), role: membership.role };
}

/** The user's membership in a workspace named by id or exact name; 404 when not a member. */
export async function membershipByRef(db: Db, userId: string, ref: string) {
  const membership = await db.membership.findFirst({
    where: { userId, workspace: isUuid(ref) ? { OR: [{ id: ref }, { name: ref }] } : { name: ref } },
    include: { workspace: true },
  });
  if (!membership) throw ApiError.notFound(`workspace "${ref}"`);
  return {
    workspaceId: membership.workspaceId,
    workspaceName: membership.workspace.name,
    role: membership.role,
  };
}

export async function assertWorkspaceNameFree(db: Db, name: string): Promise<void> {
  const existing = await db.workspace.findUnique({ where: { name } });
  if (existing) throw ApiError.conflict(`a workspace named "${name}" already exists`);
}
