// Basic run views and stop (HTTP only; the work is in services/run-*.ts):
//   GET  /v1/runs                 runs of the workspace, newest first (progress, best pass@1);
//                                 ?status=, ?benchmark= (key, exact name or id) filter them
//   GET  /v1/runs/:name           one run: settings, progress, scores, per-attempt outcomes
//   GET  /v1/runs/:name/events    lifecycle events (`runs logs`): keyset pages, newest page first,
//                                 oldest first within a page, `next_cursor` pages further back;
//                                 ?task=, ?agent=, ?level= (that level or more severe) filter them
//   POST /v1/runs/:name/stop      pending/queued/running only (else 409): queued attempts are
//                                 cancelled at once; workers abort running ones within ~1 s (they
//                                 poll the run's status with their lease heartbeat); status stopped
import {
  RunEventsQuery,
  RunEventsResponse,
  RunInfoResponse,
  RunListQuery,
  RunListResponse,
  STANDARD_ERROR_RESPONSES,
  StopRunResponse,
} from '@osmosis/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { runEventsPage } from '../services/run-events.ts';
import { runInfo } from '../services/run-info.ts';
import { listRuns } from '../services/run-list.ts';
import { runOr404 } from '../services/run-results.ts';
import { stopRunByName } from '../services/run-stop.ts';
import { RunNameParams } from './results.ts';

export const runRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/runs',
    {
      schema: {
        tags: ['runs'],
        summary: 'List runs',
        description: "The workspace's runs, newest first, with progress and best pass@1.",
        querystring: RunListQuery,
        response: { 200: RunListResponse, ...STANDARD_ERROR_RESPONSES },
      },
    },
    async (request) => listRuns(app, request.auth.workspace.id, request.query),
  );

  app.get(
    '/runs/:name',
    {
      schema: {
        tags: ['runs'],
        summary: 'Get one run',
        description: 'One run: status, settings, progress, scores and every attempt with its outcome.',
        params: RunNameParams,
        response: { 200: RunInfoResponse, ...STANDARD_ERROR_RESPONSES },
      },
    },
    async (request) => ({ data: await runInfo(app, request.auth.workspace.id, request.params.name) }),
  );

  app.get(
    '/runs/:name/events',
    {
      schema: {
        tags: ['runs'],
        summary: "List a run's events",
        description:
          "A run's lifecycle events: newest page first, oldest first within a page; next_cursor pages back.",
        params: RunNameParams,
        querystring: RunEventsQuery,
        response: { 200: RunEventsResponse, ...STANDARD_ERROR_RESPONSES },
      },
    },
    async (request) => {
      const run = await runOr404(app.db, request.auth.workspace.id, request.params.name);
      return runEventsPage(app.db, run, request.query);
    },
  );

  app.post(
    '/runs/:name/stop',
    {
      schema: {
        tags: ['runs'],
        summary: 'Stop a run',
        description:
          'Stop a pending, queued or running run: queued attempts are cancelled, running ones aborted.',
        params: RunNameParams,
        response: { 200: StopRunResponse, ...STANDARD_ERROR_RESPONSES },
      },
    },
    async (request) => {
      const stopped = await stopRunByName(
        { db: app.db, config: app.config, redis: app.redis, log: request.log },
        request.auth.workspace.id,
        request.params.name,
        request.auth.user.email,
      );
      return {
        data: {
          id: stopped.id,
          name: stopped.name,
          status: 'stopped' as const,
          previous_status: stopped.previousStatus,
          cancelled_attempts: stopped.cancelled,
          aborting_attempts: stopped.aborting,
        },
      };
    },
  );
};
