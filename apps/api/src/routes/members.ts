// Members of the caller's workspace. Add, change role, remove: admins and owners; granting or
// revoking `owner` (including removing an owner): owners only; the last owner can be neither
// removed nor demoted (409). Adding never lends the admin a credential of an existing user
// (services/workspaces.ts: addMember). The data and those rules: services/members.ts.
import {
  AddMemberBody,
  AddMemberResponse,
  ListMembersQuery,
  ListMembersResponse,
  MemberParams,
  MemberResponse,
  STANDARD_ERROR_RESPONSES,
  UpdateMemberBody,
} from '@osmosis/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { requireRole, uuidOr404 } from '../auth.ts';
import {
  addNewMember,
  assertMayTouchOwner,
  changeMemberRole,
  listMembers,
  removeMember,
} from '../services/members.ts';
import { memberInfo } from '../services/serialize.ts';

export const memberRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/members',
    {
      schema: {
        tags: ['members'],
        summary: 'Members of the workspace and their roles',
        querystring: ListMembersQuery,
        response: { 200: ListMembersResponse, ...STANDARD_ERROR_RESPONSES },
      },
    },
    async (request) => listMembers(app.db, request.auth.workspace.id, request.query),
  );

  app.post(
    '/members',
    {
      preHandler: requireRole('admin'),
      schema: {
        tags: ['members'],
        summary:
          'Add a user with a role. An existing user gets the membership only (they make their own token for this workspace); a new user is created with a token confined to this workspace, shown once',
        body: AddMemberBody,
        response: { 201: AddMemberResponse, ...STANDARD_ERROR_RESPONSES },
      },
    },
    async (request, reply) => {
      const { email, role, display_name, token_name } = request.body;
      if (role === 'owner') assertMayTouchOwner(request.auth.role, 'grant the owner role');
      const added = await addNewMember(app.db, {
        workspaceId: request.auth.workspace.id,
        email,
        role,
        displayName: display_name ?? null,
        tokenName: token_name ?? 'default',
      });
      reply.code(201);
      return {
        data: {
          member: memberInfo({ role, createdAt: added.createdAt, user: added.user }),
          token: added.token,
          user_created: added.userCreated,
        },
      };
    },
  );

  app.patch(
    '/members/:userId',
    {
      preHandler: requireRole('admin'),
      schema: {
        tags: ['members'],
        summary: "Change a member's role",
        params: MemberParams,
        body: UpdateMemberBody,
        response: { 200: MemberResponse, ...STANDARD_ERROR_RESPONSES },
      },
    },
    async (request) => {
      const data = await changeMemberRole(app.db, {
        workspaceId: request.auth.workspace.id,
        userId: uuidOr404(request.params.userId, 'member'),
        callerRole: request.auth.role,
        role: request.body.role,
      });
      return { data };
    },
  );

  app.delete(
    '/members/:userId',
    {
      preHandler: requireRole('admin'),
      schema: {
        tags: ['members'],
        summary: 'Remove a member from the workspace (their tokens for it are revoked)',
        params: MemberParams,
        response: { 200: MemberResponse, ...STANDARD_ERROR_RESPONSES },
      },
    },
    async (request) => {
      const data = await removeMember(app.db, {
        workspaceId: request.auth.workspace.id,
        userId: uuidOr404(request.params.userId, 'member'),
        callerRole: request.auth.role,
      });
      return { data };
    },
  );
};
