// Members of a workspace (the /v1/members routes): list, change a role, remove (inviting:
// invitations.ts). Granting or
// revoking `owner` (removing an owner too) is for owners only; the last owner can be neither
// removed nor demoted (409), checked with the workspace row locked so two changes never both pass.
import { type MemberRole, roleAtLeast } from '@osmosis/contracts';
import type { Db } from '@osmosis/db';
import { ApiError } from '../errors.ts';
import { cancelInvitationsBy } from './invitations.ts';
import { memberInfo, pageOfRows } from './serialize.ts';
import { TX_OPTIONS } from './workspaces.ts';

type Tx = Parameters<Parameters<Db['$transaction']>[0]>[0];

/** Serialises membership changes of one workspace (last-owner check) by locking its row. */
async function lockWorkspace(tx: Tx, workspaceId: string): Promise<void> {
  await tx.$queryRawUnsafe('SELECT id FROM workspaces WHERE id = $1::uuid FOR UPDATE', workspaceId);
}

export function assertMayTouchOwner(callerRole: MemberRole, action: string): void {
  if (callerRole !== 'owner') throw ApiError.forbidden(`only owners can ${action}`);
}

async function ownerCount(tx: Tx, workspaceId: string): Promise<number> {
  return tx.membership.count({ where: { workspaceId, role: 'owner' } });
}

export function listMembers(db: Db, workspaceId: string, p: { limit: number; offset: number }) {
  const where = { workspaceId };
  return pageOfRows(
    p.offset,
    db.membership.count({ where }),
    db.membership.findMany({
      where,
      include: { user: true },
      orderBy: [{ createdAt: 'asc' }, { userId: 'asc' }],
      skip: p.offset,
      take: p.limit,
    }),
    (rows) => rows.map(memberInfo),
  );
}

export interface MemberChange {
  workspaceId: string;
  userId: string;
  /** the caller's role: owners only may grant, revoke or remove `owner` */
  callerRole: MemberRole;
}

export async function changeMemberRole(db: Db, change: MemberChange & { role: MemberRole }) {
  const { workspaceId, userId, role } = change;
  const updated = await db.$transaction(async (tx) => {
    await lockWorkspace(tx, workspaceId);
    const target = await tx.membership.findUnique({
      where: { workspaceId_userId: { workspaceId, userId } },
    });
    if (!target) throw ApiError.notFound('member');
    if (role === 'owner' && target.role !== 'owner')
      assertMayTouchOwner(change.callerRole, 'grant the owner role');
    if (target.role === 'owner' && role !== 'owner') {
      assertMayTouchOwner(change.callerRole, 'revoke the owner role');
      if ((await ownerCount(tx, workspaceId)) <= 1)
        throw ApiError.conflict(
          'the last owner of a workspace cannot be demoted; make someone else owner first',
        );
    }
    // what they invited above what they may now invite goes with the role
    if (!roleAtLeast(role, 'admin')) await cancelInvitationsBy(tx, workspaceId, userId, 'all');
    else if (role !== 'owner') await cancelInvitationsBy(tx, workspaceId, userId, ['owner']);
    return tx.membership.update({
      where: { workspaceId_userId: { workspaceId, userId } },
      data: { role },
      include: { user: true },
    });
  }, TX_OPTIONS);
  return memberInfo(updated);
}

/** Removes the membership and revokes the member's tokens for the workspace. */
export async function removeMember(db: Db, change: MemberChange) {
  const { workspaceId, userId } = change;
  const removed = await db.$transaction(async (tx) => {
    await lockWorkspace(tx, workspaceId);
    const target = await tx.membership.findUnique({
      where: { workspaceId_userId: { workspaceId, userId } },
      include: { user: true },
    });
    if (!target) throw ApiError.notFound('member');
    if (target.role === 'owner') {
      assertMayTouchOwner(change.callerRole, 'remove an owner');
      if ((await ownerCount(tx, workspaceId)) <= 1)
        throw ApiError.conflict('the last owner of a workspace cannot be removed');
    }
    await tx.membership.delete({ where: { workspaceId_userId: { workspaceId, userId } } });
    await cancelInvitationsBy(tx, workspaceId, userId, 'all');
    await tx.apiToken.updateMany({
      where: { workspaceId, userId, revokedAt: null },
      data: { revokedAt: new Date() },
    });
    return target;
  }, TX_OPTIONS);
  return memberInfo(removed);
}
