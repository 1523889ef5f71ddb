// POST /v1/runs/:name/retry — re-queue the errored and cancelled attempts of an ended run
// (services/run-retry.ts); `?dry_run=true` previews (counts per agent, estimated cost) and writes
// nothing. Admins and the run's creator only (403), another workspace's run is 404, an active
// run or a run whose tasks changed since is 409.
import { RetryRunQuery, RetryRunResponse, STANDARD_ERROR_RESPONSES } from '@osmosis/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { previewRetry, retryRunAndDispatch } from '../services/run-retry.ts';
import { RunNameParams } from './results.ts';

export const runRetryRoutes: FastifyPluginAsyncZod = async (app) => {
  app.post(
    '/runs/:name/retry',
    {
      schema: {
        tags: ['runs'],
        summary: "Retry a run's unscored attempts",
        description:
          'Retry the unscored (errored and cancelled) attempts of an ended run under the same run; ?dry_run=true previews counts per agent and the estimated cost.',
        params: RunNameParams,
        querystring: RetryRunQuery,
        response: { 200: RetryRunResponse, ...STANDARD_ERROR_RESPONSES },
      },
    },
    async (request) => {
      const { workspace, user, role } = request.auth;
      const caller = { userId: user.id, role, email: user.email };
      if (request.query.dry_run) {
        return { data: await previewRetry(app.db, workspace.id, request.params.name, caller) };
      }
      const result = await retryRunAndDispatch(
        { db: app.db, queues: app.queues, log: request.log },
        workspace.id,
        request.params.name,
        caller,
      );
      return { data: result };
    },
  );
};
