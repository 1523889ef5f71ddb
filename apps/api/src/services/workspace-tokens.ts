// The /v1/tokens routes' data: a workspace's tokens (a member's own, or all), a token made with
// another (its parent locked active in the same transaction), and revoking one with its tree.
import type { Db } from '@osmosis/db';
import { pageOfRows, tokenInfo } from './serialize.ts';
import { type IssueTokenInput, issueApiToken, lockActiveParent, revokeTokenTree } from './tokens.ts';
import { TX_OPTIONS } from './workspaces.ts';

/** The workspace's tokens, newest first; `userId` null: every member's. */
export function listTokens(
  db: Db,
  of: { workspaceId: string; userId: string | null },
  p: { limit: number; offset: number },
) {
  const where = { workspaceId: of.workspaceId, ...(of.userId ? { userId: of.userId } : {}) };
  return pageOfRows(
    p.offset,
    db.apiToken.count({ where }),
    db.apiToken.findMany({
      where,
      orderBy: [{ createdAt: 'desc' }, { id: 'asc' }],
      skip: p.offset,
      take: p.limit,
    }),
    (rows) => rows.map(tokenInfo),
  );
}

/** Issues a token made with the token `input.parentId`, which must still be active. */
export async function issueChildToken(db: Db, input: IssueTokenInput & { parentId: string }) {
  return db.$transaction(async (tx) => {
    await lockActiveParent(tx, input.parentId);
    return issueApiToken(tx, input);
  }, TX_OPTIONS);
}

export function findToken(db: Db, id: string) {
  return db.apiToken.findUnique({ where: { id } });
}

/** Revokes the token and every token made from it; the token as it is now. */
export async function revokeToken(db: Db, id: string) {
  await revokeTokenTree(db, id);
  return tokenInfo(await db.apiToken.findUniqueOrThrow({ where: { id } }));
}
