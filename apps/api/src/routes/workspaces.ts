// Workspaces of the caller: list, get (404 unless a member), create (caller becomes owner;
// viewers and confined tokens may not). A confined token sees only its own workspace.
import {
  CreateWorkspaceBody,
  CreateWorkspaceResponse,
  GetWorkspaceResponse,
  ListWorkspacesQuery,
  ListWorkspacesResponse,
  STANDARD_ERROR_RESPONSES,
  WorkspaceParams,
} from '@osmosis/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { uuidOr404 } from '../auth.ts';
import { ApiError } from '../errors.ts';
import { assertWorkspaceNameFree, listWorkspacesOf, workspaceOfMember } from '../services/memberships.ts';
import { workspaceSummary } from '../services/serialize.ts';
import { childTokenBounds } from '../services/token-bounds.ts';
import { createWorkspaceWithOwner } from '../services/workspaces.ts';

export const workspaceRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/workspaces',
    {
      schema: {
        tags: ['workspaces'],
        summary: 'List workspaces',
        description: "The caller's workspaces, with the caller's role in each.",
        querystring: ListWorkspacesQuery,
        response: { 200: ListWorkspacesResponse, ...STANDARD_ERROR_RESPONSES },
      },
    },
    async (request) => {
      // a confined token (lent by an admin) sees only its own workspace of the user's
      const { auth } = request;
      return listWorkspacesOf(
        app.db,
        { userId: auth.user.id, onlyWorkspaceId: auth.token.confined ? auth.workspace.id : null },
        request.query,
      );
    },
  );

  app.get(
    '/workspaces/:id',
    {
      schema: {
        tags: ['workspaces'],
        summary: 'Get one workspace',
        description: "One workspace the caller is a member of, with the caller's role in it; others are 404.",
        params: WorkspaceParams,
        response: { 200: GetWorkspaceResponse, ...STANDARD_ERROR_RESPONSES },
      },
    },
    async (request) => {
      const id = uuidOr404(request.params.id, 'workspace');
      if (request.auth.token.confined && id !== request.auth.workspace.id)
        throw ApiError.notFound('workspace');
      return { data: await workspaceOfMember(app.db, id, request.auth.user.id) };
    },
  );

  app.post(
    '/workspaces',
    {
      schema: {
        tags: ['workspaces'],
        summary: 'Create a workspace',
        description:
          'Create a workspace owned by the caller (members and up; viewers read only); returns a token for it (shown once), bounded like a token the caller makes.',
        body: CreateWorkspaceBody,
        response: { 201: CreateWorkspaceResponse, ...STANDARD_ERROR_RESPONSES },
      },
    },
    async (request, reply) => {
      const { auth } = request;
      if (auth.token.confined) {
        throw ApiError.forbidden(
          `the token you are using works only in workspace ${auth.workspace.name} (an admin of it received it when they added you), so it cannot create workspaces`,
        );
      }
      await assertWorkspaceNameFree(app.db, request.body.name);
      // the owner's token of the new workspace is made with the caller's token: same bounds
      const bounds = childTokenBounds(
        {
          workspaceId: auth.workspace.id,
          workspaceName: auth.workspace.name,
          expiresAt: auth.token.expiresAt,
          maxRole: auth.token.maxRole,
          confined: false,
          role: auth.role,
        },
        { targetWorkspaceId: '', targetWorkspaceName: request.body.name, targetMemberRole: 'owner' },
      );
      const created = await createWorkspaceWithOwner(app.db, {
        name: request.body.name,
        ownerEmail: auth.user.email,
        tokenName: request.body.token_name ?? 'default',
        token: { expiresAt: bounds.expiresAt, maxRole: bounds.maxRole, parentId: auth.tokenId },
      });
      reply.code(201);
      return {
        data: {
          workspace: { ...workspaceSummary(created.workspace), role: created.role },
          token: created.token,
        },
      };
    },
  );
};
