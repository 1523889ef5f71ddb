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
// another tenant); resolution only reveals workspaces the caller is a member of. The links:
// services/git-links.ts.
import {
  DeleteGitLinkResponse,
  GIT_IDENTITY_HEADER,
  GitIdentity,
  GitLinkQuery,
  GitLinkResolveResponse,
  ListGitLinksResponse,
  PageQuery,
  SetGitLinkBody,
  SetGitLinkResponse,
  STANDARD_ERROR_RESPONSES,
} from '@osmosis/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { requireRole } from '../auth.ts';
import { ApiError } from '../errors.ts';
import { linkRepository, listGitLinks, unlinkRepository, workspacesLinking } from '../services/git-links.ts';

export const gitLinkRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/workspace/git-links',
    {
      schema: {
        tags: ['git-links'],
        summary: 'List linked git repositories',
        description: 'Git repositories linked to the workspace (the CLI uses it inside their clones).',
        querystring: PageQuery,
        response: { 200: ListGitLinksResponse, ...STANDARD_ERROR_RESPONSES },
      },
    },
    async (request) => listGitLinks(app.db, request.auth.workspace.id, request.query),
  );

  app.put(
    '/workspace/git-links',
    {
      preHandler: requireRole('admin'),
      schema: {
        tags: ['git-links'],
        summary: 'Link a git repository',
        description: 'Link a git repository (its identity) to the workspace; admins and owners.',
        body: SetGitLinkBody,
        response: { 200: SetGitLinkResponse, 201: SetGitLinkResponse, ...STANDARD_ERROR_RESPONSES },
      },
    },
    async (request, reply) => {
      const data = await linkRepository(app.db, {
        workspaceId: request.auth.workspace.id,
        identity: request.body.identity,
        remoteUrl: request.body.remote_url,
        userId: request.auth.user.id,
      });
      reply.code(data.created ? 201 : 200);
      return { data };
    },
  );

  app.delete(
    '/workspace/git-links',
    {
      preHandler: requireRole('admin'),
      schema: {
        tags: ['git-links'],
        summary: 'Unlink a git repository',
        description: 'Unlink a git repository from the workspace; admins and owners.',
        querystring: GitLinkQuery,
        response: { 200: DeleteGitLinkResponse, ...STANDARD_ERROR_RESPONSES },
      },
    },
    async (request) => {
      const { identity } = request.query;
      await unlinkRepository(app.db, request.auth.workspace.id, identity);
      return { data: { identity, deleted: true as const } };
    },
  );

  app.get(
    '/git-links/resolve',
    {
      schema: {
        tags: ['git-links'],
        summary: 'Find workspaces by git repository',
        description:
          'The workspaces of the caller that link the repository named by the X-Osmosis-Git header (only those the token may reach).',
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
      const workspaces = await workspacesLinking(
        app.db,
        { userId: user.id, onlyWorkspaceId: token.confined ? workspace.id : null },
        identity,
      );
      return { data: { identity, workspaces } };
    },
  );
};
