// Making a user account: the deployment's operators do it (POST /v1/users, bootstrap.ts on the
// host); workspace admins only invite. A new account needs a way in, and a token belongs to a
// workspace, so the account comes with a workspace of its own, which the user owns.
import { randomBytes } from 'node:crypto';
import type { CreatedApiToken } from '@osmosis/contracts';
import type { Db } from '@osmosis/db';
import { ApiError } from '../errors.ts';
import { issueApiToken } from './tokens.ts';
import { normalizeEmail, TX_OPTIONS } from './workspaces.ts';

/** A workspace name from an e-mail's local part (`Grace.Hopper+x@…` → `grace.hopper-x`). */
export function workspaceNameFromEmail(email: string): string {
  const local = email.split('@')[0] ?? '';
  const name = local
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/^[^a-z0-9]+/, '')
    .slice(0, 50);
  return name || 'user';
}

export interface CreatedAccount {
  user: { id: string; email: string; displayName: string | null; createdAt: Date };
  workspace: { id: string; name: string };
  token: CreatedApiToken;
}

/**
 * Creates the user, a workspace they own and a token for it. 409 when the e-mail has an account
 * or the named workspace exists; without a name, the e-mail's local part, made unique.
 */
export async function createUserAccount(
  db: Db,
  input: { email: string; displayName?: string | null; workspace?: string },
): Promise<CreatedAccount> {
  const email = normalizeEmail(input.email);
  if (await db.user.findUnique({ where: { email }, select: { id: true } })) {
    throw ApiError.conflict(`${email} has an account already: invite it to a workspace (osmosis member add)`);
  }
  const base = input.workspace ?? workspaceNameFromEmail(email);
  let name = base;
  if (await db.workspace.findUnique({ where: { name }, select: { id: true } })) {
    if (input.workspace) {
      throw ApiError.conflict(`a workspace named ${name} exists: pick another name (workspace)`);
    }
    name = `${base}-${randomBytes(3).toString('hex')}`;
  }
  try {
    return await db.$transaction(async (tx) => {
      const user = await tx.user.create({ data: { email, displayName: input.displayName ?? null } });
      const workspace = await tx.workspace.create({ data: { name } });
      await tx.membership.create({ data: { workspaceId: workspace.id, userId: user.id, role: 'owner' } });
      const token = await issueApiToken(tx, { workspaceId: workspace.id, userId: user.id, name: 'default' });
      return { user, workspace: { id: workspace.id, name: workspace.name }, token };
    }, TX_OPTIONS);
  } catch (err) {
    // another request made the account or took the name between the checks and the insert
    if ((err as { code?: string }).code === 'P2002') {
      throw ApiError.conflict(`${email} or workspace ${name} was just taken by another request: try again`);
    }
    throw err;
  }
}
