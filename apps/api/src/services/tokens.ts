// Issuing, resolving and revoking API tokens in the database. Only the SHA-256 of a token is stored.
import { type CreatedApiToken, type MemberRole, weakerRole } from '@osmosis/contracts';
import {
  apiTokenState,
  generateApiToken,
  hashApiToken,
  isApiTokenFormat,
  verifyApiToken,
} from '@osmosis/core';
import type { Db } from '@osmosis/db';
import { ApiError } from '../errors.ts';
import { tokenInfo } from './serialize.ts';

type Tx = Pick<Db, 'apiToken'>;

export interface IssueTokenInput {
  workspaceId: string;
  userId: string;
  name: string;
  expiresAt?: Date | null;
  /** the strongest role the token acts with (null: the member's role) */
  maxRole?: MemberRole | null;
  /** the token it is made with (null: issued by the platform) */
  parentId?: string | null;
  /** works in its own workspace only (lent by an admin, or made from such a token) */
  confined?: boolean;
}

/** Creates a token row and returns it with the secret (the only time the secret exists in clear). */
export async function issueApiToken(db: Tx, input: IssueTokenInput): Promise<CreatedApiToken> {
  const generated = generateApiToken();
  const row = await db.apiToken.create({
    data: {
      workspaceId: input.workspaceId,
      userId: input.userId,
      name: input.name,
      prefix: generated.prefix,
      tokenHash: generated.hash,
      expiresAt: input.expiresAt ?? null,
      maxRole: input.maxRole ?? null,
      parentId: input.parentId ?? null,
      confined: input.confined ?? false,
    },
  });
  return { ...tokenInfo(row), token: generated.token };
}

export interface ResolvedToken {
  token: {
    id: string;
    name: string;
    prefix: string;
    expiresAt: Date | null;
    lastUsedAt: Date | null;
    maxRole: MemberRole | null;
    confined: boolean;
  };
  /** isOperator: the user runs the deployment (bootstrap.ts marks them): the deployment-wide views */
  user: { id: string; email: string; displayName: string | null; isOperator: boolean };
  workspace: { id: string; name: string; createdAt: Date };
  /** the role the token acts with: the membership's role, bounded by the token's max_role */
  role: MemberRole;
  /** the user's role in the workspace, unbounded */
  memberRole: MemberRole;
}

export type ResolveResult = { ok: true; value: ResolvedToken } | { ok: false; reason: string };

type TokenWithOwner = NonNullable<Awaited<ReturnType<typeof findToken>>>;

function findToken(db: Db, where: { tokenHash: string } | { id: string }) {
  return db.apiToken.findUnique({ where, include: { user: true, workspace: true } });
}

/** An active token row + the current membership of its user in its workspace. */
async function resolveRow(db: Db, row: TokenWithOwner, now: Date): Promise<ResolveResult> {
  const state = apiTokenState(row, now);
  if (state === 'revoked') return { ok: false, reason: 'this API token has been revoked' };
  if (state === 'expired') return { ok: false, reason: 'this API token has expired' };
  const membership = await db.membership.findUnique({
    where: { workspaceId_userId: { workspaceId: row.workspaceId, userId: row.userId } },
  });
  if (!membership) return { ok: false, reason: 'the token user is no longer a member of its workspace' };
  return {
    ok: true,
    value: {
      token: {
        id: row.id,
        name: row.name,
        prefix: row.prefix,
        expiresAt: row.expiresAt,
        lastUsedAt: row.lastUsedAt,
        maxRole: row.maxRole,
        confined: row.confined,
      },
      user: {
        id: row.user.id,
        email: row.user.email,
        displayName: row.user.displayName,
        isOperator: row.user.isOperator,
      },
      workspace: { id: row.workspace.id, name: row.workspace.name, createdAt: row.workspace.createdAt },
      role: weakerRole(membership.role, row.maxRole),
      memberRole: membership.role,
    },
  };
}

/** Looks a bearer token up: active token + current membership of its user in its workspace. */
export async function resolveApiToken(db: Db, token: string, now: Date = new Date()): Promise<ResolveResult> {
  if (!isApiTokenFormat(token)) return { ok: false, reason: 'malformed API token' };
  const row = await findToken(db, { tokenHash: hashApiToken(token) });
  if (!row || !verifyApiToken(token, row.tokenHash)) return { ok: false, reason: 'unknown API token' };
  return resolveRow(db, row, now);
}

/** The same checks for a token known by id (a page session holds the id, never the secret). */
export async function resolveApiTokenById(
  db: Db,
  id: string,
  now: Date = new Date(),
): Promise<ResolveResult> {
  const row = await findToken(db, { id });
  if (!row) return { ok: false, reason: 'unknown API token' };
  return resolveRow(db, row, now);
}

/**
 * Inside a transaction that makes a token from `parentId`: holds the parent row FOR SHARE and
 * refuses a revoked parent. A concurrent revocation of the parent then either waits for this
 * transaction (and its sweep finds the new child) or has committed (and this one refuses).
 */
export async function lockActiveParent(tx: Pick<Db, '$queryRawUnsafe'>, parentId: string): Promise<void> {
  const rows = await tx.$queryRawUnsafe<{ revoked_at: Date | null }[]>(
    'SELECT revoked_at FROM api_tokens WHERE id = $1::uuid FOR SHARE',
    parentId,
  );
  if (!rows[0] || rows[0].revoked_at) throw ApiError.unauthenticated('this API token has been revoked');
}

/**
 * Revokes a token and every token made from it (children, their children, ...): a token never
 * outlives the token it was made with. The parent row is updated first, so a concurrent mint
 * (which holds the parent row FOR SHARE) either commits before and is found by the sweep, or
 * waits and then sees the parent revoked. Each sweep is a new statement (a new snapshot under
 * READ COMMITTED) and runs until it revokes nothing more. Returns how many descendants it revoked.
 */
export async function revokeTokenTree(db: Db, id: string, at: Date = new Date()): Promise<number> {
  return db.$transaction(async (tx) => {
    await tx.apiToken.updateMany({ where: { id, revokedAt: null }, data: { revokedAt: at } });
    let total = 0;
    for (;;) {
      const revoked = await tx.$executeRawUnsafe(
        `WITH RECURSIVE tree AS (
           SELECT id FROM api_tokens WHERE parent_id = $1::uuid
           UNION
           SELECT t.id FROM api_tokens t JOIN tree ON t.parent_id = tree.id
         )
         UPDATE api_tokens SET revoked_at = $2 WHERE id IN (SELECT id FROM tree) AND revoked_at IS NULL`,
        id,
        at,
      );
      total += revoked;
      if (revoked === 0) return total;
    }
  });
}
