// Git repositories linked to the caller's workspace, and which of the caller's workspaces link
// the repository the CLI runs in (the `X-Osmosis-Git` header, as the upstream Osmosis CLI 0.3
// sends it). A token belongs to one workspace, so the header never changes what a request acts
// on: the CLI resolves the link first and uses the stored login of the linked workspace.
//
//   GET    /v1/workspace/git-links             every member
//   PUT    /v1/workspace/git-links             {identity, remote_url?}; admins and owners
//   DELETE /v1/workspace/git-links?identity=   admins and owners
//   GET    /v1/git-links/resolve               X-Osmosis-Git: <identity> → the caller's workspaces linking it
//
// One identity may be linked by several workspaces (nobody can claim a repository away from
// another tenant); resolution only reveals workspaces the caller is a member of.
import {
  DeleteGitLinkResponse,
  GIT_IDENTITY_HEADER,
  GitIdentity,
  type GitLink,
  GitLinkQuery,
  GitLinkResolveResponse,
  ListGitLinksResponse,
  PageQuery,
  SetGitLinkBody,
  SetGitLinkResponse,
  STANDARD_ERROR_RESPONSES,
} from '@osmosis/contracts';
import type { Db } from '@osmosis/db';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { requireRole } from '../auth.ts';
import { ApiError } from '../errors.ts';
import { iso, page, userSummary } from '../services/serialize.ts';

/** Links a workspace may hold (a workspace is one team's; a few repositories at most). */
export const MAX_GIT_LINKS = 100;

interface LinkRow {
  identity: string;
  remoteUrl: string | null;
  addedById: string;
  createdAt: Date;
}

async function describe(db: Db, rows: LinkRow[]): Promise<GitLink[]> {
  const ids = [...new Set(rows.map((r) => r.addedById))];
  const users = ids.length
    ? await db.user.findMany({
        where: { id: { in: ids } },
        select: { id: true, email: true, displayName: true },
      })
    : [];
  const byId = new Map(users.map((u) => [u.id, userSummary(u)]));
  return rows.map((r) => ({
    identity: r.identity,
    remote_url: r.remoteUrl,
    added_by: byId.get(r.addedById) ?? null,
    created_at: iso(r.createdAt),
  }));
}

/** A remote URL kept for display: no credentials, query or fragment (the CLI sends none; a client may). */
function displayUrl(raw: string | undefined): string | null {
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

function isUniqueViolation(error: unknown): boolean {
  return !!error && typeof error === 'object' && (error as { code?: string }).code === 'P2002';
}

export const gitLinkRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/workspace/git-links',
    {
      schema: {
        tags: ['git-links'],
        summary: 'Git repositories linked to the workspace (the CLI uses it inside their clones)',
        querystring: PageQuery,
        response: { 200: ListGitLinksResponse, ...STANDARD_ERROR_RESPONSES },
      },
    },
    async (request) => {
      const { limit, offset } = request.query;
      const where = { workspaceId: request.auth.workspace.id };
      const [total, rows] = await Promise.all([
        app.db.workspaceGitLink.count({ where }),
        app.db.workspaceGitLink.findMany({
          where,
          orderBy: [{ createdAt: 'asc' }, { identity: 'asc' }],
          skip: offset,
          take: limit,
        }),
      ]);
      return page(await describe(app.db, rows), total, offset);
    },
  );

  app.put(
    '/workspace/git-links',
    {
      preHandler: requireRole('admin'),
      schema: {
        tags: ['git-links'],
        summary: 'Link a git repository (its identity) to the workspace; admins and owners',
        body: SetGitLinkBody,
        response: { 200: SetGitLinkResponse, 201: SetGitLinkResponse, ...STANDARD_ERROR_RESPONSES },
      },
    },
    async (request, reply) => {
      const workspaceId = request.auth.workspace.id;
      const { identity } = request.body;
      const existing = await app.db.workspaceGitLink.findUnique({
        where: { workspaceId_identity: { workspaceId, identity } },
      });
      if (existing) {
        reply.code(200);
        return { data: { ...(await describe(app.db, [existing]))[0]!, created: false } };
      }
      if ((await app.db.workspaceGitLink.count({ where: { workspaceId } })) >= MAX_GIT_LINKS)
        throw ApiError.conflict(
          `the workspace links ${MAX_GIT_LINKS} repositories already; unlink one first`,
          {
            limit: MAX_GIT_LINKS,
          },
        );
      let row: LinkRow;
      try {
        row = await app.db.workspaceGitLink.create({
          data: {
            workspaceId,
            identity,
            remoteUrl: displayUrl(request.body.remote_url),
            addedById: request.auth.user.id,
          },
        });
      } catch (error) {
        if (!isUniqueViolation(error)) throw error;
        row = await app.db.workspaceGitLink.findUniqueOrThrow({
          where: { workspaceId_identity: { workspaceId, identity } },
        });
        reply.code(200);
        return { data: { ...(await describe(app.db, [row]))[0]!, created: false } };
      }
      reply.code(201);
      return { data: { ...(await describe(app.db, [row]))[0]!, created: true } };
    },
  );

  app.delete(
    '/workspace/git-links',
    {
      preHandler: requireRole('admin'),
      schema: {
        tags: ['git-links'],
        summary: 'Unlink a git repository from the workspace; admins and owners',
        querystring: GitLinkQuery,
        response: { 200: DeleteGitLinkResponse, ...STANDARD_ERROR_RESPONSES },
      },
    },
    async (request) => {
      const { identity } = request.query;
      const deleted = await app.db.workspaceGitLink.deleteMany({
        where: { workspaceId: request.auth.workspace.id, identity },
      });
      if (deleted.count === 0) throw ApiError.notFound(`git link "${identity}"`);
      return { data: { identity, deleted: true as const } };
    },
  );

  app.get(
    '/git-links/resolve',
    {
      schema: {
        tags: ['git-links'],
        summary:
          'The workspaces of the caller that link the repository named by the X-Osmosis-Git header (only those the token may reach)',
        response: { 200: GitLinkResolveResponse, ...STANDARD_ERROR_RESPONSES },
      },
    },
    async (request) => {
      const raw = request.headers[GIT_IDENTITY_HEADER];
      const header = Array.isArray(raw) ? raw[0] : raw;
      const parsed = GitIdentity.safeParse(header ?? '');
      if (!parsed.success)
        throw ApiError.validation(`send the repository identity in the ${GIT_IDENTITY_HEADER} header`, [
          { path: `headers.${GIT_IDENTITY_HEADER}`, message: parsed.error.issues[0]?.message ?? 'invalid' },
        ]);
      const identity = parsed.data;
      const { user, workspace, token } = request.auth;
      // a confined token reaches its own workspace only; otherwise every workspace of the user
      const reach = token.confined
        ? [workspace.id]
        : (
            await app.db.membership.findMany({ where: { userId: user.id }, select: { workspaceId: true } })
          ).map((m) => m.workspaceId);
      const links = await app.db.workspaceGitLink.findMany({
        where: { identity, workspaceId: { in: reach } },
        select: { workspaceId: true },
      });
      const workspaces = links.length
        ? await app.db.workspace.findMany({
            where: { id: { in: links.map((l) => l.workspaceId) } },
            select: { id: true, name: true },
            orderBy: { name: 'asc' },
          })
        : [];
      return { data: { identity, workspaces } };
    },
  );
};
