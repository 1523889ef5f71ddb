// The caller's workspace's limits (services/workspace-limits.ts). The workspace is the token's:
// no route addresses another workspace, so a member of A can neither read nor set B's limit.
//   GET /v1/workspace/limits   every member, viewers included
//   PUT /v1/workspace/limits   admins and owners
import {
  SetWorkspaceLimitsBody,
  STANDARD_ERROR_RESPONSES,
  WorkspaceLimitsResponse,
} from '@osmosis/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { requireRole } from '../auth.ts';
import { readWorkspaceLimits, setWorkspaceLimit } from '../services/workspace-limits.ts';

export const workspaceLimitRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/workspace/limits',
    {
      schema: {
        tags: ['workspaces'],
        summary: "Get the workspace's limits",
        description:
          "The workspace's limit on attempts in flight across its runs: in force, its own setting, the operator's maximum, and how many are in flight now.",
        response: { 200: WorkspaceLimitsResponse, ...STANDARD_ERROR_RESPONSES },
      },
    },
    async (request) => ({
      data: await readWorkspaceLimits(
        app.db,
        request.auth.workspace.id,
        app.config.workspaceMaxConcurrentAttempts,
      ),
    }),
  );

  app.put(
    '/workspace/limits',
    {
      preHandler: requireRole('admin'),
      schema: {
        tags: ['workspaces'],
        summary: "Set the workspace's limits",
        description:
          "Set the workspace's limit on attempts in flight across its runs (admins and owners): a positive whole number up to the operator's maximum, or null for the maximum.",
        body: SetWorkspaceLimitsBody,
        response: { 200: WorkspaceLimitsResponse, ...STANDARD_ERROR_RESPONSES },
      },
    },
    async (request) => ({
      data: await setWorkspaceLimit(
        app.db,
        request.auth.workspace.id,
        request.body.max_concurrent_attempts,
        app.config.workspaceMaxConcurrentAttempts,
      ),
    }),
  );
};
