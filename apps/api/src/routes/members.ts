// Members of the caller's workspace. Invite, change role, remove: admins and owners; granting or
// revoking `owner` (including removing an owner): owners only; the last owner can be neither
// removed nor demoted (409). Inviting makes no one a member and tells nothing about accounts
// (services/invitations.ts; the invitee accepts in routes/invitations.ts). The data and those
// rules: services/members.ts.
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
import { createInvitation, invitationLink } from '../services/invitations.ts';
import { invitationMail, sendMail } from '../services/mailer.ts';
import { assertMayTouchOwner, changeMemberRole, listMembers, removeMember } from '../services/members.ts';

export const memberRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/members',
    {
      schema: {
        tags: ['members'],
        summary: 'List members',
        description: 'Members of the workspace, each with their role (owner, admin, member or viewer).',
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
        summary: 'Invite a member',
        description:
          "Invite a user with a role: answers with an invitation, its code and its link (shown once; e-mailed to the invitee when SMTP is configured), alike whether or not the e-mail has an account; they become a member only by accepting: on the link's page (where a person without an account makes one for the invited e-mail) or with a token of their own (POST /v1/invitations/accept).",
        body: AddMemberBody,
        response: { 201: AddMemberResponse, ...STANDARD_ERROR_RESPONSES },
      },
    },
    async (request, reply) => {
      const { email, role, expires_in_days } = request.body;
      if (role === 'owner') assertMayTouchOwner(request.auth.role, 'grant the owner role');
      const created = await createInvitation(app.db, {
        workspaceId: request.auth.workspace.id,
        email,
        role,
        invitedById: request.auth.user.id,
        expiresInDays: expires_in_days,
      });
      const link = invitationLink(app.config.publicUrl, created.code);
      const emailed = await sendMail(
        app.config.accounts.smtp,
        invitationMail(
          created.invitation.email,
          link,
          request.auth.workspace.name,
          request.auth.user.email,
          new Date(created.invitation.expires_at),
        ),
        request.log,
      );
      reply.code(201);
      return { data: { ...created, link, emailed } };
    },
  );

  app.patch(
    '/members/:userId',
    {
      preHandler: requireRole('admin'),
      schema: {
        tags: ['members'],
        summary: "Change a member's role",
        description:
          "Change a member's role (admins and owners). The workspace always keeps an owner: the last owner cannot be demoted.",
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
        summary: 'Remove a member',
        description: 'Remove a member from the workspace (their tokens for it are revoked).',
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
