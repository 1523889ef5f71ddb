// POST /v1/users — the deployment's operators make user accounts (auth.ts requireOperator). A
// workspace admin only invites (POST /v1/members), so no admin learns whether an e-mail has an
// account; whoever runs the deployment can read its users anyway.
import { CreateUserBody, CreateUserResponse, STANDARD_ERROR_RESPONSES } from '@osmosis/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { requireOperator } from '../auth.ts';
import { ApiError } from '../errors.ts';
import { iso } from '../services/serialize.ts';
import { createUserAccount } from '../services/user-accounts.ts';

export const userRoutes: FastifyPluginAsyncZod = async (app) => {
  app.post(
    '/users',
    {
      preHandler: requireOperator(
        "only the deployment's operators make user accounts, whatever your role in a workspace: to bring someone into your workspace, invite them (POST /v1/members, `osmosis member add EMAIL`); for an account, ask whoever runs the platform",
      ),
      // an operator's role in the token's workspace is no bound here; a read-only token is
      config: { allowViewer: true },
      schema: {
        tags: ['users'],
        summary:
          "Make a user account with a workspace of its own and a token for it, shown once (the deployment's operators)",
        body: CreateUserBody,
        response: { 201: CreateUserResponse, ...STANDARD_ERROR_RESPONSES },
      },
    },
    async (request, reply) => {
      if (request.auth.token.maxRole === 'viewer') {
        throw ApiError.forbidden(
          'the token you are using is read only (role viewer), so it cannot make accounts',
        );
      }
      const created = await createUserAccount(app.db, {
        email: request.body.email,
        displayName: request.body.display_name ?? null,
        workspace: request.body.workspace,
      });
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
        },
      };
    },
  );
};
