// Webhooks of the caller's workspace: admins and owners register a URL, the events it hears and
// an HMAC secret; the worker delivers (apps/worker/src/queues/webhook-delivery.ts). The secret is
// write-only like a secret record: encrypted here with the OSMOSIS_SECRET_KEYS ring, never
// returned, logged or put into an error. The URL's address is checked against the egress policy
// now (a 400 naming body.url) and again by the worker at every delivery (DNS may change).
// The rows: services/webhooks.ts.
import {
  CreateWebhookBody,
  CreateWebhookResponse,
  DeleteWebhookResponse,
  ListWebhookDeliveriesQuery,
  ListWebhookDeliveriesResponse,
  ListWebhooksQuery,
  ListWebhooksResponse,
  STANDARD_ERROR_RESPONSES,
  WebhookParams,
} from '@osmosis/contracts';
import { checkUrl, EgressError } from '@osmosis/egress';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { requireRole } from '../auth.ts';
import { ApiError } from '../errors.ts';
import {
  createWebhook,
  deleteWebhook,
  listDeliveries,
  listWebhooks,
  ownWebhook,
} from '../services/webhooks.ts';

export const webhookRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/webhooks',
    {
      preHandler: requireRole('admin'),
      schema: {
        tags: ['webhooks'],
        summary: 'List webhooks',
        description: "The workspace's webhooks (never their secrets); admins and owners.",
        querystring: ListWebhooksQuery,
        response: { 200: ListWebhooksResponse, ...STANDARD_ERROR_RESPONSES },
      },
    },
    async (request) => listWebhooks(app.db, request.auth.workspace.id, request.query),
  );

  app.post(
    '/webhooks',
    {
      preHandler: requireRole('admin'),
      schema: {
        tags: ['webhooks'],
        summary: 'Register a webhook',
        description:
          'Register a webhook: run notifications POSTed to `url`, signed with HMAC-SHA256 of `secret` (write-only); admins and owners.',
        body: CreateWebhookBody,
        response: { 201: CreateWebhookResponse, ...STANDARD_ERROR_RESPONSES },
      },
    },
    async (request, reply) => {
      const { url, events, secret, description } = request.body;
      try {
        await checkUrl(url, app.config.sources.egress, {
          schemes: ['https', 'http'],
          ...(app.config.egressResolve ? { resolve: app.config.egressResolve } : {}),
        });
      } catch (error) {
        if (!(error instanceof EgressError)) throw error;
        throw ApiError.validation(error.message, [{ path: 'body.url', message: error.message }]);
      }
      const data = await createWebhook(app.db, {
        workspace: request.auth.workspace,
        url,
        events,
        secret,
        description: description ?? null,
        userId: request.auth.user.id,
      });
      request.log.info({ webhook_id: data.id, events }, 'webhook registered');
      reply.code(201);
      return { data };
    },
  );

  app.delete(
    '/webhooks/:id',
    {
      preHandler: requireRole('admin'),
      schema: {
        tags: ['webhooks'],
        summary: 'Delete a webhook',
        description:
          'Delete a webhook and its delivery log (deliveries not yet made are dropped); admins and owners.',
        params: WebhookParams,
        response: { 200: DeleteWebhookResponse, ...STANDARD_ERROR_RESPONSES },
      },
    },
    async (request) => {
      const row = await ownWebhook(app.db, request.auth.workspace.id, request.params.id);
      await deleteWebhook(app.db, request.auth.workspace.id, row.id);
      request.log.info({ webhook_id: row.id }, 'webhook deleted');
      return { data: { id: row.id, deleted: true as const } };
    },
  );

  app.get(
    '/webhooks/:id/deliveries',
    {
      preHandler: requireRole('admin'),
      schema: {
        tags: ['webhooks'],
        summary: "List a webhook's deliveries",
        description:
          "A webhook's delivery log, newest first: status, tries, last HTTP status and error; admins and owners.",
        params: WebhookParams,
        querystring: ListWebhookDeliveriesQuery,
        response: { 200: ListWebhookDeliveriesResponse, ...STANDARD_ERROR_RESPONSES },
      },
    },
    async (request) => {
      const hook = await ownWebhook(app.db, request.auth.workspace.id, request.params.id);
      return listDeliveries(app.db, hook.id, request.query);
    },
  );
};
