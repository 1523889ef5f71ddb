// GET /v1/me: who am I (user, workspace, role, token).
import { MeResponse, STANDARD_ERROR_RESPONSES } from '@osmosis/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { iso, userSummary, workspaceSummary } from '../services/serialize.ts';

export const meRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/me',
    {
      schema: {
        tags: ['auth'],
        summary: 'Who am I',
        description:
          "The caller: their user, the token's workspace and their role in it (bounded by the token's role), and the token in use.",
        response: { 200: MeResponse, ...STANDARD_ERROR_RESPONSES },
      },
    },
    async (request) => {
      const { user, workspace, role, token } = request.auth;
      return {
        data: {
          user: userSummary(user),
          workspace: workspaceSummary(workspace),
          role,
          token: {
            id: token.id,
            name: token.name,
            prefix: token.prefix,
            expires_at: iso(token.expiresAt),
            max_role: token.maxRole,
            confined: token.confined,
          },
        },
      };
    },
  );
};
