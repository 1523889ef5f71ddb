// Creating workspaces with their first owner; seeding members. Used by routes, bootstrap and tests.
import type { CreatedApiToken, MemberRole } from '@osmosis/contracts';
import type { Db } from '@osmosis/db';
import { type IssueTokenInput, issueApiToken, lockActiveParent } from './tokens.ts';

/** Interactive transactions: wait longer than Prisma's 2 s default for a connection under load. */
export const TX_OPTIONS = { maxWait: 10_000, timeout: 30_000 } as const;

export interface SeededWorkspace {
  workspace: { id: string; name: string; createdAt: Date };
  user: { id: string; email: string; displayName: string | null };
  role: MemberRole;
  token: CreatedApiToken;
}

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/**
 * Creates a workspace whose owner is the user with `ownerEmail` (created when new) and issues
 * that owner a token. Throws Prisma P2002 (→ 409) when the name is taken.
 */
export async function createWorkspaceWithOwner(
  db: Db,
  input: {
    name: string;
    ownerEmail: string;
    ownerDisplayName?: string | null;
    tokenName?: string;
    /** bounds of the owner's token when a token of the caller creates the workspace */
    token?: Pick<IssueTokenInput, 'expiresAt' | 'maxRole' | 'parentId'>;
  },
): Promise<SeededWorkspace> {
  return db.$transaction(async (tx) => {
    const email = normalizeEmail(input.ownerEmail);
    const user = await tx.user.upsert({
      where: { email },
      update: {},
      create: { email, displayName: input.ownerDisplayName ?? null },
    });
    if (input.token?.parentId) await lockActiveParent(tx, input.token.parentId);
    const workspace = await tx.workspace.create({ data: { name: input.name } });
    await tx.membership.create({ data: { workspaceId: workspace.id, userId: user.id, role: 'owner' } });
    const token = await issueApiToken(tx, {
      ...input.token,
      workspaceId: workspace.id,
      userId: user.id,
      name: input.tokenName ?? 'default',
    });
    return { workspace, user, role: 'owner' as const, token };
  }, TX_OPTIONS);
}

type MemberInput = {
  workspaceId: string;
  email: string;
  role: MemberRole;
  displayName?: string | null;
  tokenName?: string;
  /** the token works in this workspace only (as the old POST /v1/members lent one to the admin) */
  confined?: boolean;
};

/**
 * Adds a user (created when new) to a workspace with a role and issues them a token, with no
 * invitation. For the operator's tools and tests (seeding) only: the API's members route invites
 * (invitations.ts), and only the invitee makes themselves a member.
 */
export async function addMemberWithToken(
  db: Db,
  input: MemberInput,
): Promise<SeededWorkspace & { createdAt: Date }> {
  return db.$transaction(async (tx) => {
    const email = normalizeEmail(input.email);
    const user =
      (await tx.user.findUnique({ where: { email } })) ??
      (await tx.user.create({ data: { email, displayName: input.displayName ?? null } }));
    const membership = await tx.membership.create({
      data: { workspaceId: input.workspaceId, userId: user.id, role: input.role },
      include: { workspace: true },
    });
    const token = await issueApiToken(tx, {
      workspaceId: input.workspaceId,
      userId: user.id,
      name: input.tokenName ?? 'default',
      confined: input.confined ?? false,
    });
    return {
      workspace: membership.workspace,
      user,
      role: input.role,
      token,
      createdAt: membership.createdAt,
    };
  }, TX_OPTIONS);
}
