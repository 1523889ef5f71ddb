// Webhooks of the caller's workspace: admins and owners register a URL, the events it hears and
// an HMAC secret; the worker delivers (apps/worker/src/queues/webhook-delivery.ts). The secret is
// write-only like a secret record: encrypted here with the OSMOSIS_SECRET_KEYS ring, never
// returned, logged or put into an error. The URL's address is checked against the egress policy
// now (a 400 naming body.url) and again by the worker at every delivery (DNS may change).
import {
  CreateWebhookBody,
  CreateWebhookResponse,
  DeleteWebhookResponse,
  ListWebhookDeliveriesQuery,
  ListWebhookDeliveriesResponse,
  ListWebhooksQuery,
  ListWebhooksResponse,
  MAX_WEBHOOKS_PER_WORKSPACE,
  STANDARD_ERROR_RESPONSES,
  type WebhookDelivery,
  type WebhookEvent,
  type WebhookInfo,
  WebhookParams,
} from '@osmosis/contracts';
import { encryptSecretValue, webhookSecretRef } from '@osmosis/core';
import type { Db } from '@osmosis/db';
import { checkUrl, EgressError } from '@osmosis/egress';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { requireRole, uuidOr404 } from '../auth.ts';
import { ApiError } from '../errors.ts';
import { secretKeyRing } from '../secret-records.ts';
import { iso, page, userSummary } from '../services/serialize.ts';

interface WebhookRow {
  id: string;
  url: string;
  events: string[];
  description: string | null;
  createdById: string;
  createdAt: Date;
}

/** Never the secret's columns. */
const WEBHOOK_SELECT = {
  id: true,
  url: true,
  events: true,
  description: true,
  createdById: true,
  createdAt: true,
} as const;

async function describe(db: Db, rows: WebhookRow[]): Promise<WebhookInfo[]> {
  const userIds = [...new Set(rows.map((r) => r.createdById))];
  const [users, last] = await Promise.all([
    userIds.length
      ? db.user.findMany({
          where: { id: { in: userIds } },
          select: { id: true, email: true, displayName: true },
        })
      : [],
    rows.length
      ? db.webhookDelivery.findMany({
          where: { webhookId: { in: rows.map((r) => r.id) } },
          select: { webhookId: true, status: true, event: true, createdAt: true },
          orderBy: { createdAt: 'desc' },
          distinct: ['webhookId'],
        })
      : [],
  ]);
  const byUser = new Map(users.map((u) => [u.id, userSummary(u)]));
  const lastBy = new Map(last.map((d) => [d.webhookId, d]));
  return rows.map((r) => {
    const d = lastBy.get(r.id);
    return {
      id: r.id,
      url: r.url,
      events: r.events as WebhookEvent[],
      description: r.description,
      created_by: byUser.get(r.createdById) ?? null,
      created_at: iso(r.createdAt),
      last_delivery: d
        ? { status: d.status, event: d.event as WebhookEvent, created_at: iso(d.createdAt) }
        : null,
    };
  });
}

export const webhookRoutes: FastifyPluginAsyncZod = async (app) => {
  async function ownWebhook(workspaceId: string, rawId: string): Promise<WebhookRow> {
    const id = uuidOr404(rawId, 'webhook');
    const row = await app.db.webhook.findFirst({ where: { id, workspaceId }, select: WEBHOOK_SELECT });
    if (!row)
      throw new ApiError('NOT_FOUND', `this workspace has no webhook ${id}`, {
        hint: 'see `osmosis webhook list`',
      });
    return row;
  }

  app.get(
    '/webhooks',
    {
      preHandler: requireRole('admin'),
      schema: {
        tags: ['webhooks'],
        summary: "The workspace's webhooks (never their secrets); admins and owners",
        querystring: ListWebhooksQuery,
        response: { 200: ListWebhooksResponse, ...STANDARD_ERROR_RESPONSES },
      },
    },
    async (request) => {
      const { limit, offset } = request.query;
      const where = { workspaceId: request.auth.workspace.id };
      const [total, rows] = await Promise.all([
        app.db.webhook.count({ where }),
        app.db.webhook.findMany({
          where,
          select: WEBHOOK_SELECT,
          orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
          skip: offset,
          take: limit,
        }),
      ]);
      return page(await describe(app.db, rows), total, offset);
    },
  );

  app.post(
    '/webhooks',
    {
      preHandler: requireRole('admin'),
      schema: {
        tags: ['webhooks'],
        summary:
          'Register a webhook: run notifications POSTed to `url`, signed with HMAC-SHA256 of `secret` (write-only); admins and owners',
        body: CreateWebhookBody,
        response: { 201: CreateWebhookResponse, ...STANDARD_ERROR_RESPONSES },
      },
    },
    async (request, reply) => {
      const { url, events, secret, description } = request.body;
      const workspaceId = request.auth.workspace.id;
      try {
        await checkUrl(url, app.config.sources.egress, {
          schemes: ['https', 'http'],
          ...(app.config.egressResolve ? { resolve: app.config.egressResolve } : {}),
        });
      } catch (error) {
        if (!(error instanceof EgressError)) throw error;
        throw ApiError.validation(error.message, [{ path: 'body.url', message: error.message }]);
      }
      const count = await app.db.webhook.count({ where: { workspaceId } });
      if (count >= MAX_WEBHOOKS_PER_WORKSPACE)
        throw ApiError.conflict(
          `workspace ${request.auth.workspace.name} already has ${count} webhooks, the most it may hold: delete one first (\`osmosis webhook delete ID\`)`,
          { limit: MAX_WEBHOOKS_PER_WORKSPACE },
        );
      const ring = secretKeyRing();
      const id = crypto.randomUUID();
      const sealed = encryptSecretValue(ring, webhookSecretRef({ id, workspaceId }), secret);
      const row = await app.db.webhook.create({
        data: {
          id,
          workspaceId,
          url,
          events,
          description: description ?? null,
          secretCiphertext: Buffer.from(sealed.ciphertext),
          secretIv: Buffer.from(sealed.iv),
          secretAuthTag: Buffer.from(sealed.authTag),
          secretKeyId: sealed.keyId,
          createdById: request.auth.user.id,
        },
        select: WEBHOOK_SELECT,
      });
      request.log.info({ webhook_id: id, events }, 'webhook registered');
      reply.code(201);
      return { data: (await describe(app.db, [row]))[0]! };
    },
  );

  app.delete(
    '/webhooks/:id',
    {
      preHandler: requireRole('admin'),
      schema: {
        tags: ['webhooks'],
        summary:
          'Delete a webhook and its delivery log (deliveries not yet made are dropped); admins and owners',
        params: WebhookParams,
        response: { 200: DeleteWebhookResponse, ...STANDARD_ERROR_RESPONSES },
      },
    },
    async (request) => {
      const row = await ownWebhook(request.auth.workspace.id, request.params.id);
      await app.db.webhook.deleteMany({ where: { id: row.id, workspaceId: request.auth.workspace.id } });
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
        summary:
          "A webhook's delivery log, newest first: status, tries, last HTTP status and error; admins and owners",
        params: WebhookParams,
        querystring: ListWebhookDeliveriesQuery,
        response: { 200: ListWebhookDeliveriesResponse, ...STANDARD_ERROR_RESPONSES },
      },
    },
    async (request) => {
      const hook = await ownWebhook(request.auth.workspace.id, request.params.id);
      const { limit, offset } = request.query;
      const where = { webhookId: hook.id };
      const [total, rows] = await Promise.all([
        app.db.webhookDelivery.count({ where }),
        app.db.webhookDelivery.findMany({
          where,
          orderBy: [{ createdAt: 'desc' }, { id: 'asc' }],
          skip: offset,
          take: limit,
          select: {
            id: true,
            webhookId: true,
            event: true,
            runId: true,
            runName: true,
            status: true,
            attempts: true,
            maxAttempts: true,
            lastStatusCode: true,
            lastError: true,
            nextAttemptAt: true,
            deliveredAt: true,
            createdAt: true,
          },
        }),
      ]);
      const items: WebhookDelivery[] = rows.map((d) => ({
        id: d.id,
        webhook_id: d.webhookId,
        event: d.event as WebhookEvent,
        run_id: d.runId,
        run_name: d.runName,
        status: d.status,
        attempts: d.attempts,
        max_attempts: d.maxAttempts,
        last_status_code: d.lastStatusCode,
        last_error: d.lastError,
        next_attempt_at: d.status === 'pending' || d.status === 'retrying' ? iso(d.nextAttemptAt) : null,
        delivered_at: iso(d.deliveredAt),
        created_at: iso(d.createdAt),
      }));
      return page(items, total, offset);
    },
  );
};
