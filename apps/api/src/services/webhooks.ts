// A workspace's webhooks (the /v1/webhooks routes): list with each one's last delivery, register
// (its secret sealed with the OSMOSIS_SECRET_KEYS ring, never selected back), find, delete, and
// the delivery log. The worker delivers (apps/worker/src/queues/webhook-delivery.ts).
import {
  MAX_WEBHOOKS_PER_WORKSPACE,
  type WebhookDelivery,
  type WebhookEvent,
  type WebhookInfo,
} from '@osmosis/contracts';
import { encryptSecretValue, webhookSecretRef } from '@osmosis/core';
import type { Db, Prisma } from '@osmosis/db';
import { uuidOr404 } from '../auth.ts';
import { ApiError } from '../errors.ts';
import { secretKeyRing } from '../secret-records.ts';
import { iso, pageOfRows } from './serialize.ts';
import { usersById } from './workspace-entries.ts';

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
  const [byUser, last] = await Promise.all([
    usersById(
      db,
      rows.map((r) => r.createdById),
    ),
    rows.length
      ? db.webhookDelivery.findMany({
          where: { webhookId: { in: rows.map((r) => r.id) } },
          select: { webhookId: true, status: true, event: true, createdAt: true },
          orderBy: { createdAt: 'desc' },
          distinct: ['webhookId'],
        })
      : [],
  ]);
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

export function listWebhooks(db: Db, workspaceId: string, p: { limit: number; offset: number }) {
  const where = { workspaceId };
  return pageOfRows(
    p.offset,
    db.webhook.count({ where }),
    db.webhook.findMany({
      where,
      select: WEBHOOK_SELECT,
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
      skip: p.offset,
      take: p.limit,
    }),
    (rows) => describe(db, rows),
  );
}

/** Registers a webhook whose URL the caller has checked; 409 once the workspace holds the most. */
export async function createWebhook(
  db: Db,
  input: {
    workspace: { id: string; name: string };
    url: string;
    events: WebhookEvent[];
    secret: string;
    description: string | null;
    userId: string;
  },
): Promise<WebhookInfo> {
  const workspaceId = input.workspace.id;
  const count = await db.webhook.count({ where: { workspaceId } });
  if (count >= MAX_WEBHOOKS_PER_WORKSPACE)
    throw ApiError.conflict(
      `workspace ${input.workspace.name} already has ${count} webhooks, the most it may hold: delete one first (\`osmosis webhook delete ID\`)`,
      { limit: MAX_WEBHOOKS_PER_WORKSPACE },
    );
  const id = crypto.randomUUID();
  const sealed = encryptSecretValue(secretKeyRing(), webhookSecretRef({ id, workspaceId }), input.secret);
  const row = await db.webhook.create({
    data: {
      id,
      workspaceId,
      url: input.url,
      events: input.events,
      description: input.description,
      secretCiphertext: Buffer.from(sealed.ciphertext),
      secretIv: Buffer.from(sealed.iv),
      secretAuthTag: Buffer.from(sealed.authTag),
      secretKeyId: sealed.keyId,
      createdById: input.userId,
    },
    select: WEBHOOK_SELECT,
  });
  return (await describe(db, [row]))[0]!;
}

/** The workspace's webhook `rawId`; 404 naming it otherwise. */
export async function ownWebhook(db: Db, workspaceId: string, rawId: string): Promise<WebhookRow> {
  const id = uuidOr404(rawId, 'webhook');
  const row = await db.webhook.findFirst({ where: { id, workspaceId }, select: WEBHOOK_SELECT });
  if (!row)
    throw new ApiError('NOT_FOUND', `this workspace has no webhook ${id}`, {
      hint: 'see `osmosis webhook list`',
    });
  return row;
}

export async function deleteWebhook(db: Db, workspaceId: string, id: string): Promise<void> {
  await db.webhook.deleteMany({ where: { id, workspaceId } });
}

const DELIVERY_SELECT = {
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
} as const;
type DeliveryRow = Prisma.WebhookDeliveryGetPayload<{ select: typeof DELIVERY_SELECT }>;

function deliveryInfo(d: DeliveryRow): WebhookDelivery {
  return {
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
  };
}

/** A webhook's delivery log, newest first. */
export function listDeliveries(db: Db, webhookId: string, p: { limit: number; offset: number }) {
  const where = { webhookId };
  return pageOfRows(
    p.offset,
    db.webhookDelivery.count({ where }),
    db.webhookDelivery.findMany({
      where,
      orderBy: [{ createdAt: 'desc' }, { id: 'asc' }],
      skip: p.offset,
      take: p.limit,
      select: DELIVERY_SELECT,
    }),
    (rows) => rows.map(deliveryInfo),
  );
}
