// Creating workspaces with their first owner; adding members. Used by routes, bootstrap and tests.
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

export interface AddedMember {
  workspace: { id: string; name: string; createdAt: Date };
  user: { id: string; email: string; displayName: string | null };
  role: MemberRole;
  createdAt: Date;
  /** the e-mail named no user: one was created */
  userCreated: boolean;
  /** a token for a user created here (confined to the workspace); null for an existing user */
  token: CreatedApiToken | null;
}

type MemberInput = {
  workspaceId: string;
  email: string;
  role: MemberRole;
  displayName?: string | null;
  tokenName?: string;
};

/**
 * Adds the user with `email` (created when new) to a workspace with a role; `tokenOf` decides,
 * knowing whether the user existed, which token (if any) to issue them in the same transaction.
 */
async function addMembership<T>(
  db: Db,
  input: MemberInput,
  tokenOf: (issue: (confined: boolean) => Promise<CreatedApiToken>, existed: boolean) => Promise<T>,
) {
  return db.$transaction(async (tx) => {
    const email = normalizeEmail(input.email);
    const existing = await tx.user.findUnique({ where: { email } });
    const user =
      existing ?? (await tx.user.create({ data: { email, displayName: input.displayName ?? null } }));
    const membership = await tx.membership.create({
      data: { workspaceId: input.workspaceId, userId: user.id, role: input.role },
      include: { workspace: true },
    });
    const issue = (confined: boolean) =>
      issueApiToken(tx, {
        workspaceId: input.workspaceId,
        userId: user.id,
        name: input.tokenName ?? 'default',
        confined,
      });
    return {
      workspace: membership.workspace,
      user,
      role: input.role,
      createdAt: membership.createdAt,
      userCreated: !existing,
      token: await tokenOf(issue, !!existing),
    };
  }, TX_OPTIONS);
}

/**
 * What an admin's `POST /v1/members` does: adds the user with a role. An existing user gets the
 * membership only; no credential of theirs is made for the admin. A user created here has no
 * other way in, so they get a token, shown to the admin to hand over and confined to this
 * workspace: whoever saw it never reaches the user's later workspaces with it.
 */
export async function addMember(db: Db, input: MemberInput): Promise<AddedMember> {
  return addMembership(db, input, async (issue, existed) => (existed ? null : issue(true)));
}

/**
 * Adds a user (created when new) to a workspace with a role and issues them a token. For the
 * operator's tools and tests (seeding); the API's members route uses addMember.
 */
export async function addMemberWithToken(
  db: Db,
  input: MemberInput,
): Promise<SeededWorkspace & { createdAt: Date }> {
  const { workspace, user, role, token, createdAt } = await addMembership(db, input, (issue) => issue(false));
  return { workspace, user, role, token, createdAt };
}
