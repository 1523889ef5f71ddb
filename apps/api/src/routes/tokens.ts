// API tokens of the caller's workspace: list (own, or all for admins), create (shown once; for
// this or another workspace of the caller, bounded by the token used: token-bounds.ts), revoke
// (with every token made from it).
import {
  CreateTokenBody,
  CreateTokenResponse,
  ListTokensQuery,
  ListTokensResponse,
  RevokeTokenResponse,
  roleAtLeast,
  STANDARD_ERROR_RESPONSES,
  TokenParams,
} from '@osmosis/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { assertInWorkspace, uuidOr404 } from '../auth.ts';
import { ApiError } from '../errors.ts';
import { membershipByRef } from '../services/memberships.ts';
import { tokenInfo } from '../services/serialize.ts';
import { childTokenBounds } from '../services/token-bounds.ts';
import { findToken, issueChildToken, listTokens, revokeToken } from '../services/workspace-tokens.ts';

export const tokenRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/tokens',
    {
      schema: {
        tags: ['tokens'],
        summary: 'List API tokens',
        description:
          "The caller's API tokens (scope=workspace: every token of the workspace, admins and owners).",
        querystring: ListTokensQuery,
        response: { 200: ListTokensResponse, ...STANDARD_ERROR_RESPONSES },
      },
    },
    async (request) => {
      const { limit, offset, scope } = request.query;
      if (scope === 'workspace' && !roleAtLeast(request.auth.role, 'admin')) {
        throw ApiError.forbidden('listing every token of the workspace needs the admin role or higher');
      }
      return listTokens(
        app.db,
        { workspaceId: request.auth.workspace.id, userId: scope === 'own' ? request.auth.user.id : null },
        { limit, offset },
      );
    },
  );

  app.post(
    '/tokens',
    {
      config: { allowViewer: true },
      schema: {
        tags: ['tokens'],
        summary: 'Create an API token',
        description:
          "Create an API token for the caller, in this workspace or (workspace) another of the caller's; it never outlives or outranks the token used, and the secret is shown only in this response.",
        body: CreateTokenBody,
        response: { 201: CreateTokenResponse, ...STANDARD_ERROR_RESPONSES },
      },
    },
    async (request, reply) => {
      const { auth } = request;
      const body = request.body;
      const target = body.workspace
        ? await membershipByRef(app.db, auth.user.id, body.workspace)
        : { workspaceId: auth.workspace.id, workspaceName: auth.workspace.name, role: auth.memberRole };
      const bounds = childTokenBounds(
        {
          workspaceId: auth.workspace.id,
          workspaceName: auth.workspace.name,
          expiresAt: auth.token.expiresAt,
          maxRole: auth.token.maxRole,
          confined: auth.token.confined,
          role: auth.role,
        },
        {
          targetWorkspaceId: target.workspaceId,
          targetWorkspaceName: target.workspaceName,
          targetMemberRole: target.role,
          ...(body.expires_at ? { expiresAt: new Date(body.expires_at) } : {}),
          ...(body.role ? { role: body.role } : {}),
        },
      );
      const token = await issueChildToken(app.db, {
        workspaceId: target.workspaceId,
        userId: auth.user.id,
        name: body.name,
        expiresAt: bounds.expiresAt,
        maxRole: bounds.maxRole,
        parentId: auth.tokenId,
        confined: bounds.confined,
      });
      reply.code(201);
      return { data: { ...token, workspace: { id: target.workspaceId, name: target.workspaceName } } };
    },
  );

  app.delete(
    '/tokens/:id',
    {
      config: { allowViewer: true },
      schema: {
        tags: ['tokens'],
        summary: 'Revoke an API token',
        description:
          'Revoke a token (and every token made with it): your own, or (admins and owners) any token of the workspace.',
        params: TokenParams,
        response: { 200: RevokeTokenResponse, ...STANDARD_ERROR_RESPONSES },
      },
    },
    async (request) => {
      const id = uuidOr404(request.params.id, 'token');
      const row = assertInWorkspace(request, await findToken(app.db, id), 'token');
      if (row.userId !== request.auth.user.id && !roleAtLeast(request.auth.role, 'admin')) {
        throw ApiError.forbidden("revoking another member's token needs the admin role or higher");
      }
      if (row.revokedAt) return { data: tokenInfo(row) };
      return { data: await revokeToken(app.db, id) };
    },
  );
};
