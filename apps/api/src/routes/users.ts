// POST /v1/users — the deployment's operators make user accounts (auth.ts requireOperator). A
// workspace admin only invites (POST /v1/members), so no admin learns whether an e-mail has an
// account; whoever runs the deployment can read its users anyway. POST /v1/users/password-links —
// an operator makes a single-use link that sets an account's password (a forgotten one).
import {
  CreatePasswordLinkBody,
  CreatePasswordLinkResponse,
  CreateUserBody,
  CreateUserResponse,
  STANDARD_ERROR_RESPONSES,
} from '@osmosis/contracts';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { requireOperator } from '../auth.ts';
import { ApiError } from '../errors.ts';
import { passwordLinkMail, sendMail } from '../services/mailer.ts';
import { createPasswordLink, NEW_ACCOUNT_LINK_HOURS } from '../services/password-links.ts';
import { iso } from '../services/serialize.ts';
import { createUserAccount } from '../services/user-accounts.ts';

const OPERATORS_ONLY =
  "only the deployment's operators make user accounts, whatever your role in a workspace: to bring someone into your workspace, invite them (POST /v1/members, `osmosis member add EMAIL`); for an account, ask whoever runs the platform";

function refuseReadOnly(request: FastifyRequest, what: string): void {
  if (request.auth.token.maxRole === 'viewer')
    throw ApiError.forbidden(`the token you are using is read only (role viewer), so it cannot ${what}`);
}

export const userRoutes: FastifyPluginAsyncZod = async (app) => {
  app.post(
    '/users',
    {
      preHandler: requireOperator(OPERATORS_ONLY),
      // an operator's role in the token's workspace is no bound here; a read-only token is
      config: { allowViewer: true },
      schema: {
        tags: ['users'],
        summary: 'Create a user account',
        description:
          "Make a user account with a workspace of its own and a token for it, shown once (the deployment's operators).",
        body: CreateUserBody,
        response: { 201: CreateUserResponse, ...STANDARD_ERROR_RESPONSES },
      },
    },
    async (request, reply) => {
      refuseReadOnly(request, 'make accounts');
      const created = await createUserAccount(app.db, {
        email: request.body.email,
        displayName: request.body.display_name ?? null,
        workspace: request.body.workspace,
      });
      const password = await passwordLink(request, created.user.email, NEW_ACCOUNT_LINK_HOURS);
      reply.code(201);
      return {
        data: {
          user: {
            id: created.user.id,
            email: created.user.email,
            display_name: created.user.displayName,
            created_at: iso(created.user.createdAt),
          },
          workspace: created.workspace,
          token: { ...created.token, workspace: created.workspace },
          password_link: password,
        },
      };
    },
  );

  async function passwordLink(request: FastifyRequest, email: string, hours?: number) {
    const made = await createPasswordLink(app.db, { email, publicUrl: app.config.publicUrl, hours });
    const emailed = await sendMail(
      app.config.accounts.smtp,
      passwordLinkMail(made.user.email, made.link, made.expiresAt, app.config.publicUrl),
      request.log,
    );
    return { link: made.link, expires_at: made.expiresAt.toISOString(), emailed };
  }

  app.post(
    '/users/password-links',
    {
      preHandler: requireOperator(
        "only the deployment's operators make password links: ask whoever runs the platform for one",
      ),
      config: { allowViewer: true },
      schema: {
        tags: ['users'],
        summary: 'Create a password link',
        description:
          "Make a single-use link that sets an account's password, replacing its unused ones (the deployment's operators); e-mailed to the user when SMTP is configured.",
        body: CreatePasswordLinkBody,
        response: { 201: CreatePasswordLinkResponse, ...STANDARD_ERROR_RESPONSES },
      },
    },
    async (request, reply) => {
      refuseReadOnly(request, 'make password links');
      const made = await passwordLink(request, request.body.email);
      const user = await app.db.user.findUniqueOrThrow({
        where: { email: request.body.email.trim().toLowerCase() },
        select: { id: true, email: true },
      });
      reply.code(201);
      return { data: { user, ...made } };
    },
  );
};
