// Run submission:
//   POST /v1/runs/preview   validate a config against the workspace and show what would run
//   POST /v1/runs           the same validation, then ONE transaction creates the run, its agents,
//                           every planned attempt and the first events; then the run is enqueued
// (HTTP only here: validation is services/submit-prepare.ts, creation services/submit-create.ts)
//
// The API never trusts the CLI: the TOML is parsed and every rule re-checked here. Failures, in
// order: INVALID_CONFIG (400, details {file_name, issues}), NOT_FOUND (benchmark), BENCHMARK_NOT_READY
// (409), INVALID_CONFIG for rules needing the benchmark (tasks, harness, judge), MISSING_SECRETS
// (422, every missing record at once), INVALID_CONFIG for secrets sent where they may not go
// (model-destinations.ts). WORKSPACE_LIMIT_EXCEEDED (422) right after the config parses:
// services/workspace-limits.ts. A failed request leaves no rows and no jobs.
import {
  RunPreviewResponse,
  STANDARD_ERROR_RESPONSES,
  SubmitRunBody,
  SubmitRunResponse,
  type SubmittedRun,
} from '@osmosis/contracts';
import { enqueueRunDispatch } from '@osmosis/queues';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { ApiError } from '../errors.ts';
import { iso } from '../services/serialize.ts';
import { type CreateRunOptions, createRun, removeUnqueuedRun } from '../services/submit-create.ts';
import { type Prepared, prepareRun } from '../services/submit-prepare.ts';
import { previewReuse } from '../services/submit-reuse-preview.ts';

export const submitRoutes: FastifyPluginAsyncZod = async (app) => {
  app.post(
    '/runs/preview',
    {
      schema: {
        tags: ['runs'],
        summary: 'Preview a run',
        description:
          'Validate a run config against the workspace (benchmark, tasks, harnesses, secrets) and show what would run; writes nothing.',
        body: SubmitRunBody,
        response: {
          200: RunPreviewResponse,
          422: STANDARD_ERROR_RESPONSES[400],
          ...STANDARD_ERROR_RESPONSES,
        },
      },
    },
    async (request) => {
      const prepared = await prepareRun(app, request.auth, request.body);
      await previewReuse(app.db, request.auth.workspace.id, request.body, prepared);
      return { data: prepared.preview };
    },
  );

  app.post(
    '/runs',
    {
      schema: {
        tags: ['runs'],
        summary: 'Submit a run',
        description:
          'Submit a run: the config is validated again, then the run, its agents and every attempt are created in one transaction and the run is queued.',
        body: SubmitRunBody,
        response: { 201: SubmitRunResponse, 422: STANDARD_ERROR_RESPONSES[400], ...STANDARD_ERROR_RESPONSES },
      },
    },
    async (request, reply) => {
      const prepared = await prepareRun(app, request.auth, request.body);
      reply.code(201);
      return { data: await createAndEnqueue(app, request, request.body, prepared) };
    },
  );
};

/**
 * Creates the prepared run and queues it (POST /v1/runs, and POST /v1/runs/:name/reproduce); a run
 * whose job cannot be queued is removed again (503). Returns the SubmittedRun data.
 */
export async function createAndEnqueue(
  app: FastifyInstance,
  request: FastifyRequest,
  body: SubmitRunBody,
  prepared: Prepared,
  options: CreateRunOptions = {},
): Promise<SubmittedRun> {
  const run = await createRun(app.db, request.auth, body, prepared, options);
  try {
    await enqueueRunDispatch(app.queues, run.id);
  } catch (error) {
    // nothing may stay behind: the run without its job would never start
    request.log.error({ err: error, run_id: run.id }, 'could not enqueue the run; removing it');
    await removeUnqueuedRun(app.db, run.id);
    throw new ApiError(
      'UNAVAILABLE',
      'the run could not be queued (the job queue did not answer); nothing was created — submit again',
    );
  }
  request.log.info(
    {
      run_id: run.id,
      run_name: run.name,
      task_count: run.taskCount,
      total_attempts: prepared.resolved.totalAttempts,
    },
    'run submitted',
  );
  return {
    id: run.id,
    name: run.name,
    status: run.status,
    task_count: run.taskCount,
    created_at: iso(run.createdAt),
    platform_url: `${app.config.publicUrl.replace(/\/+$/, '')}/runs/${encodeURIComponent(run.name)}`,
    total_attempts: prepared.resolved.totalAttempts,
    reuse: run.reuse,
    warnings: prepared.warnings,
  };
}
