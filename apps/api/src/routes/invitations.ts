// Invitations into a workspace (made by POST /v1/members): the admins' list and cancel, and the
// invitee's accept. Accepting changes which workspaces the user's account reaches, so it needs a
// token the user holds themselves: not a confined token (an admin received that one when the
// user was added the old way) and not a read-only one. The rules: services/invitations.ts.
import {
  AcceptInvitationBody,
  AcceptInvitationResponse,
  InvitationParams,
  InvitationResponse,
  ListInvitationsQuery,
  ListInvitationsResponse,
  STANDARD_ERROR_RESPONSES,
} from '@osmosis/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { requireRole, uuidOr404 } from '../auth.ts';
import { ApiError } from '../errors.ts';
import { acceptInvitation, cancelInvitation, listOpenInvitations } from '../services/invitations.ts';

export const invitationRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/invitations',
    {
      preHandler: requireRole('admin'),
      schema: {
        tags: ['members'],
        summary: 'List open invitations',
        description: "The workspace's open invitations (not yet accepted, cancelled or expired).",
        querystring: ListInvitationsQuery,
        response: { 200: ListInvitationsResponse, ...STANDARD_ERROR_RESPONSES },
      },
    },
    async (request) => listOpenInvitations(app.db, request.auth.workspace.id, request.query),
  );

  app.delete(
    '/invitations/:invitationId',
    {
      preHandler: requireRole('admin'),
      schema: {
        tags: ['members'],
        summary: 'Cancel an invitation',
        description: 'Cancel an open invitation: its code stops working.',
        params: InvitationParams,
        response: { 200: InvitationResponse, ...STANDARD_ERROR_RESPONSES },
      },
    },
    async (request) => ({
      data: await cancelInvitation(
        app.db,
        request.auth.workspace.id,
        uuidOr404(request.params.invitationId, 'open invitation'),
      ),
    }),
  );

  app.post(
    '/invitations/accept',
    {
      // the caller's role in the token's workspace is no bound: this is about their own account
      config: { allowViewer: true },
      schema: {
        tags: ['members'],
        summary: 'Accept an invitation',
        description:
          "Accept an invitation made for the caller's e-mail: the caller becomes a member of its workspace with its role (then `POST /v1/tokens` with `workspace` makes a token for it).",
        body: AcceptInvitationBody,
        response: { 200: AcceptInvitationResponse, ...STANDARD_ERROR_RESPONSES },
      },
    },
    async (request) => {
      const { auth } = request;
      if (auth.token.confined) {
        throw ApiError.forbidden(
          `the token you are using works only in workspace ${auth.workspace.name} (an admin of it received it when they added you), so it cannot accept invitations for your account: use a token you made yourself`,
        );
      }
      if (auth.token.maxRole === 'viewer') {
        throw ApiError.forbidden(
          'the token you are using is read only (role viewer), so it cannot accept invitations for your account: use a token without that bound',
        );
      }
      return { data: await acceptInvitation(app.db, { code: request.body.code, user: auth.user }) };
    },
  );
};
