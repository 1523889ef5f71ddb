// Secret records of the caller's workspace. Values are write-only: no response, log line, error
// or event carries one. Personal records (the default) belong to their owner; workspace records
// are shared, and only admins and owners create, replace or delete them. Every member sees the
// workspace records' names and who set them when; personal records are visible to their owner.
import {
  DeleteSecretQuery,
  DeleteSecretResponse,
  ListSecretsQuery,
  ListSecretsResponse,
  roleAtLeast,
  SecretParams,
  type SecretScope,
  SetSecretBody,
  SetSecretResponse,
  STANDARD_ERROR_RESPONSES,
} from '@osmosis/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AuthContext } from '../auth.ts';
import { ApiError } from '../errors.ts';
import { listSecrets, removeSecret, setSecret } from '../services/secrets.ts';

/** Whose records a request reads and writes: its workspace, and its user for personal ones. */
function callerOf(auth: AuthContext) {
  return { workspaceId: auth.workspace.id, userId: auth.user.id };
}

function assertMayWrite(auth: AuthContext, scope: SecretScope, action: string): void {
  if (scope === 'workspace' && !roleAtLeast(auth.role, 'admin'))
    throw ApiError.forbidden(
      `${action} a workspace secret needs the admin role or higher; you are ${auth.role}. Use --scope personal for a record only your runs use`,
    );
}

export const secretRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/secrets',
    {
      schema: {
        tags: ['secrets'],
        summary: 'List secret records',
        description:
          'Secret records you can use: workspace records and your personal ones (names only, never values).',
        querystring: ListSecretsQuery,
        response: { 200: ListSecretsResponse, ...STANDARD_ERROR_RESPONSES },
      },
    },
    async (request) => listSecrets(app.db, callerOf(request.auth), request.query),
  );

  app.put(
    '/secrets/:name',
    {
      schema: {
        tags: ['secrets'],
        summary: 'Set a secret record',
        description: 'Create or replace a secret record (personal by default). The value is never returned.',
        params: SecretParams,
        body: SetSecretBody,
        response: { 200: SetSecretResponse, 201: SetSecretResponse, ...STANDARD_ERROR_RESPONSES },
      },
    },
    async (request, reply) => {
      const { name } = request.params;
      const { scope, value } = request.body;
      assertMayWrite(request.auth, scope, 'setting');
      const data = await setSecret(app.db, callerOf(request.auth), { name, scope, value });
      request.log.info({ secret_name: name, scope, created: data.created }, 'secret record set');
      reply.code(data.created ? 201 : 200);
      return { data };
    },
  );

  app.delete(
    '/secrets/:name',
    {
      schema: {
        tags: ['secrets'],
        summary: 'Delete a secret record',
        description:
          'Delete a secret record (your personal one by default; workspace records: admins and owners).',
        params: SecretParams,
        querystring: DeleteSecretQuery,
        response: { 200: DeleteSecretResponse, ...STANDARD_ERROR_RESPONSES },
      },
    },
    async (request) => {
      const { name } = request.params;
      const { scope } = request.query;
      assertMayWrite(request.auth, scope, 'deleting');
      await removeSecret(app.db, callerOf(request.auth), name, scope);
      request.log.info({ secret_name: name, scope }, 'secret record deleted');
      return { data: { name, scope, deleted: true as const } };
    },
  );
};
