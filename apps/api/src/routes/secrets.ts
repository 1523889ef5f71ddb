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
  type SecretInfo,
  SecretParams,
  type SecretScope,
  SetSecretBody,
  SetSecretResponse,
  STANDARD_ERROR_RESPONSES,
} from '@osmosis/contracts';
import type { Db } from '@osmosis/db';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AuthContext } from '../auth.ts';
import { ApiError } from '../errors.ts';
import { deleteSecret, SECRET_ROW_SELECT, type SecretRow, upsertSecret } from '../secret-records.ts';
import { iso, page } from '../services/serialize.ts';

async function usersById(db: Db, ids: (string | null)[]) {
  const wanted = [...new Set(ids.filter((id): id is string => !!id))];
  const users = wanted.length
    ? await db.user.findMany({
        where: { id: { in: wanted } },
        select: { id: true, email: true, displayName: true },
      })
    : [];
  return new Map(users.map((u) => [u.id, { id: u.id, email: u.email, display_name: u.displayName }]));
}

/** A user as upstream's `creator_name` / `updater_name` show one: the display name, else the e-mail. */
function nameOf(user: { email: string; display_name: string | null } | undefined): string | null {
  return user ? (user.display_name ?? user.email) : null;
}

function secretInfo(row: SecretRow, users: Awaited<ReturnType<typeof usersById>>): SecretInfo {
  return {
    id: row.id,
    name: row.name,
    scope: row.scope,
    owner: row.ownerId ? (users.get(row.ownerId) ?? null) : null,
    set_by: users.get(row.setById) ?? null,
    creator_name: nameOf(users.get(row.createdById ?? row.setById)),
    updater_name: nameOf(users.get(row.setById)),
    created_at: iso(row.createdAt),
    updated_at: iso(row.updatedAt),
  };
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
        summary:
          'Secret records you can use: workspace records and your personal ones (names only, never values)',
        querystring: ListSecretsQuery,
        response: { 200: ListSecretsResponse, ...STANDARD_ERROR_RESPONSES },
      },
    },
    async (request) => {
      const { scope, limit, offset } = request.query;
      const { workspace, user } = request.auth;
      const visible = [
        ...(scope !== 'personal' ? [{ scope: 'workspace' as const }] : []),
        ...(scope !== 'workspace' ? [{ scope: 'personal' as const, ownerId: user.id }] : []),
      ];
      const where = { workspaceId: workspace.id, OR: visible };
      const [total, rows] = await Promise.all([
        app.db.secret.count({ where }),
        app.db.secret.findMany({
          where,
          select: SECRET_ROW_SELECT,
          orderBy: [{ name: 'asc' }, { scope: 'asc' }],
          skip: offset,
          take: limit,
        }),
      ]);
      const users = await usersById(
        app.db,
        rows.flatMap((r) => [r.ownerId, r.setById, r.createdById]),
      );
      return page(
        rows.map((r) => secretInfo(r as SecretRow, users)),
        total,
        offset,
      );
    },
  );

  app.put(
    '/secrets/:name',
    {
      schema: {
        tags: ['secrets'],
        summary: 'Create or replace a secret record (personal by default). The value is never returned',
        params: SecretParams,
        body: SetSecretBody,
        response: { 200: SetSecretResponse, 201: SetSecretResponse, ...STANDARD_ERROR_RESPONSES },
      },
    },
    async (request, reply) => {
      const { name } = request.params;
      const { scope, value } = request.body;
      assertMayWrite(request.auth, scope, 'setting');
      const { row, created } = await upsertSecret(app.db, {
        workspaceId: request.auth.workspace.id,
        name,
        scope,
        userId: request.auth.user.id,
        value,
      });
      request.log.info({ secret_name: name, scope, created }, 'secret record set');
      const users = await usersById(app.db, [row.ownerId, row.setById, row.createdById]);
      reply.code(created ? 201 : 200);
      return { data: { ...secretInfo(row, users), created } };
    },
  );

  app.delete(
    '/secrets/:name',
    {
      schema: {
        tags: ['secrets'],
        summary:
          'Delete a secret record (your personal one by default; workspace records: admins and owners)',
        params: SecretParams,
        querystring: DeleteSecretQuery,
        response: { 200: DeleteSecretResponse, ...STANDARD_ERROR_RESPONSES },
      },
    },
    async (request) => {
      const { name } = request.params;
      const { scope } = request.query;
      assertMayWrite(request.auth, scope, 'deleting');
      const deleted = await deleteSecret(app.db, {
        workspaceId: request.auth.workspace.id,
        name,
        scope,
        userId: request.auth.user.id,
      });
      if (!deleted)
        throw new ApiError('NOT_FOUND', `no ${scope} secret record named ${name}`, {
          hint: `see \`osmosis secret list --scope ${scope}\``,
        });
      request.log.info({ secret_name: name, scope }, 'secret record deleted');
      return { data: { name, scope, deleted: true as const } };
    },
  );
};
