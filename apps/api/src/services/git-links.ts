// Git repositories linked to a workspace (the /v1/workspace/git-links routes) and which of a
// user's workspaces link a repository (/v1/git-links/resolve). One identity may be linked by
// several workspaces; resolution only reveals workspaces the caller may reach.
import type { GitLink } from '@osmosis/contracts';
import type { Db } from '@osmosis/db';
import { ApiError } from '../errors.ts';
import { iso, pageOfRows } from './serialize.ts';
import { addCappedEntry, usersById } from './workspace-entries.ts';

/** Links a workspace may hold (a workspace is one team's; a few repositories at most). */
export const MAX_GIT_LINKS = 100;

interface LinkRow {
  identity: string;
  remoteUrl: string | null;
  addedById: string;
  createdAt: Date;
}

async function describe(db: Db, rows: LinkRow[]): Promise<GitLink[]> {
  const byId = await usersById(
    db,
    rows.map((r) => r.addedById),
  );
  return rows.map((r) => ({
    identity: r.identity,
    remote_url: r.remoteUrl,
    added_by: byId.get(r.addedById) ?? null,
    created_at: iso(r.createdAt),
  }));
}

/** C0, DEL or C1: what a terminal reads as a command rather than text. */
function hasControlCharacter(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x20 || (c >= 0x7f && c <= 0x9f)) return true;
  }
  return false;
}

/** A remote URL kept for display: no credentials, query or fragment (the CLI sends none; a client may). */
export function displayUrl(raw: string | undefined): string | null {
  if (!raw) return null;
  try {
    const url = new URL(raw);
    // `git@` of an ssh remote is the transport's user, not a credential (as upstream keeps it)
    if (!(url.protocol === 'ssh:' && url.username === 'git' && !url.password)) url.username = '';
    url.password = '';
    url.search = '';
    url.hash = '';
    return url.toString();
  } catch {
    // scp-like `git@host:owner/repo`: keep the host and path only
    const scp = /^[^@\s/]+@([^:\s/]+):(\S+)$/.exec(raw);
    return scp ? `${scp[1]}:${scp[2]}` : null;
  }
}

export function listGitLinks(db: Db, workspaceId: string, p: { limit: number; offset: number }) {
  const where = { workspaceId };
  return pageOfRows(
    p.offset,
    db.workspaceGitLink.count({ where }),
    db.workspaceGitLink.findMany({
      where,
      orderBy: [{ createdAt: 'asc' }, { identity: 'asc' }],
      skip: p.offset,
      take: p.limit,
    }),
    (rows) => describe(db, rows),
  );
}

/** Links `identity` (idempotent: `created` false when it was linked already). */
export async function linkRepository(
  db: Db,
  input: { workspaceId: string; identity: string; remoteUrl: string | undefined; userId: string },
): Promise<GitLink & { created: boolean }> {
  const { workspaceId, identity } = input;
  // shown to every member, in terminals too (`osmosis workspace git-links`): an escape sequence
  // in it would act on their screen, and no remote git prints has a control character
  if (input.remoteUrl !== undefined && hasControlCharacter(input.remoteUrl)) {
    const message =
      'must not contain control characters; send the URL as `git remote get-url origin` prints it';
    throw ApiError.validation(`remote_url ${message}`, [{ path: 'body.remote_url', message }]);
  }
  const where = { workspaceId_identity: { workspaceId, identity } };
  const { row, created } = await addCappedEntry({
    find: () => db.workspaceGitLink.findUnique({ where }),
    count: () => db.workspaceGitLink.count({ where: { workspaceId } }),
    create: () =>
      db.workspaceGitLink.create({
        data: { workspaceId, identity, remoteUrl: displayUrl(input.remoteUrl), addedById: input.userId },
      }),
    limit: MAX_GIT_LINKS,
    full: () =>
      ApiError.conflict(`the workspace links ${MAX_GIT_LINKS} repositories already; unlink one first`, {
        limit: MAX_GIT_LINKS,
      }),
  });
  return { ...(await describe(db, [row]))[0]!, created };
}

export async function unlinkRepository(db: Db, workspaceId: string, identity: string): Promise<void> {
  const deleted = await db.workspaceGitLink.deleteMany({ where: { workspaceId, identity } });
  if (deleted.count === 0) throw ApiError.notFound(`git link "${identity}"`);
}

/** The workspaces linking `identity` among the user's (`onlyWorkspaceId` for a confined token), by name. */
export async function workspacesLinking(
  db: Db,
  who: { userId: string; onlyWorkspaceId: string | null },
  identity: string,
): Promise<{ id: string; name: string }[]> {
  const reach = who.onlyWorkspaceId
    ? [who.onlyWorkspaceId]
    : (await db.membership.findMany({ where: { userId: who.userId }, select: { workspaceId: true } })).map(
        (m) => m.workspaceId,
      );
  const links = await db.workspaceGitLink.findMany({
    where: { identity, workspaceId: { in: reach } },
    select: { workspaceId: true },
  });
  return links.length
    ? db.workspace.findMany({
        where: { id: { in: links.map((l) => l.workspaceId) } },
        select: { id: true, name: true },
        orderBy: { name: 'asc' },
      })
    : [];
}
