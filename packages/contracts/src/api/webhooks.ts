// Run notifications: a workspace's admins register webhooks; the worker POSTs each event to them,
// signed with HMAC-SHA256 of a secret that is write-only (encrypted at rest, never returned).
//   GET    /v1/webhooks                    admins and owners
//   POST   /v1/webhooks                    admins and owners; 201
//   DELETE /v1/webhooks/:id                admins and owners (its delivery log goes with it)
//   GET    /v1/webhooks/:id/deliveries     admins and owners: status, tries, last error
import { z } from 'zod';
import { dataOf, listOf, PageQuery, Timestamp } from './common.ts';
import { SecretUser } from './secrets.ts';

/**
 * Events a webhook can subscribe to. `budget.reached` is sent once workspace budgets exist
 * (a later issue); it is accepted now so a subscription does not have to change.
 */
export const WEBHOOK_EVENTS = ['run.finished', 'run.failed', 'run.stopped', 'budget.reached'] as const;
export const WebhookEvent = z.enum(WEBHOOK_EVENTS);
export type WebhookEvent = z.infer<typeof WebhookEvent>;

/** The run events, in the order a run's status names them (`finished` → `run.finished`). */
export const RUN_WEBHOOK_EVENTS = ['run.finished', 'run.failed', 'run.stopped'] as const;

export const MAX_WEBHOOKS_PER_WORKSPACE = 20;
export const MAX_WEBHOOK_URL_LENGTH = 2048;
export const MIN_WEBHOOK_SECRET_LENGTH = 16;
export const MAX_WEBHOOK_SECRET_LENGTH = 256;

/** Headers of every delivery. The signature is `sha256=` + hex HMAC-SHA256(secret, `${timestamp}.${body}`). */
export const WEBHOOK_HEADERS = {
  event: 'x-osmosis-event',
  delivery: 'x-osmosis-delivery',
  timestamp: 'x-osmosis-timestamp',
  signature: 'x-osmosis-signature',
} as const;

/** An http(s) URL without credentials: what a webhook may be sent to (its address is checked apart). */
export const WebhookUrl = z
  .string()
  .min(1, 'the URL is empty')
  .max(MAX_WEBHOOK_URL_LENGTH, `a webhook URL has at most ${MAX_WEBHOOK_URL_LENGTH} characters`)
  .superRefine((value, ctx) => {
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      ctx.addIssue({ code: 'custom', message: 'not a URL: give an absolute http:// or https:// URL' });
      return;
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:')
      ctx.addIssue({
        code: 'custom',
        message: `the scheme ${url.protocol} is not allowed: use https:// or http://`,
      });
    if (url.username || url.password)
      ctx.addIssue({
        code: 'custom',
        message:
          'a webhook URL may not carry a user name or password (it is stored as text and shown to admins): the receiver checks the signature header instead',
      });
    if (url.hash) ctx.addIssue({ code: 'custom', message: 'a webhook URL has no #fragment' });
  });

export const CreateWebhookBody = z.strictObject({
  url: WebhookUrl.describe('Where deliveries are POSTed: an http(s) URL without credentials or #fragment'),
  events: z
    .array(WebhookEvent)
    .min(1, 'name at least one event')
    .max(WEBHOOK_EVENTS.length)
    .refine((events) => new Set(events).size === events.length, 'an event is listed twice')
    .default([...RUN_WEBHOOK_EVENTS])
    .describe('Events to deliver; default: every run event'),
  secret: z
    .string()
    .min(MIN_WEBHOOK_SECRET_LENGTH, `the secret needs at least ${MIN_WEBHOOK_SECRET_LENGTH} characters`)
    .max(MAX_WEBHOOK_SECRET_LENGTH, `the secret has at most ${MAX_WEBHOOK_SECRET_LENGTH} characters`)
    .describe('the HMAC-SHA256 key; write-only: encrypted at rest, never returned or logged'),
  description: z.string().max(200).optional().describe('A note for people (at most 200 characters)'),
});
export type CreateWebhookBody = z.infer<typeof CreateWebhookBody>;

export const WebhookParams = z.object({ id: z.string().max(64).describe("The webhook's id") });
export type WebhookParams = z.infer<typeof WebhookParams>;

export const ListWebhooksQuery = PageQuery;
export const ListWebhookDeliveriesQuery = PageQuery;

export const WebhookDeliveryStatus = z.enum(['pending', 'delivering', 'retrying', 'succeeded', 'failed']);
export type WebhookDeliveryStatus = z.infer<typeof WebhookDeliveryStatus>;

/** A webhook as admins see it: never its secret. */
export const WebhookInfo = z.object({
  id: z.string().describe("The webhook's id"),
  url: z.string().describe('Where deliveries are POSTed'),
  events: z.array(WebhookEvent).describe('Events delivered'),
  description: z.string().nullable().describe('A note for people; null when none'),
  created_by: SecretUser.nullable().describe('The admin who registered it; null when that account is gone'),
  created_at: Timestamp.describe('When it was registered'),
  last_delivery: z
    .object({
      status: WebhookDeliveryStatus.describe('How that delivery stands'),
      event: WebhookEvent.describe('Its event'),
      created_at: Timestamp.describe('When the event happened'),
    })
    .nullable()
    .describe('the most recent delivery, if any'),
});
export type WebhookInfo = z.infer<typeof WebhookInfo>;

export const ListWebhooksResponse = listOf(WebhookInfo);
export type ListWebhooksResponse = z.infer<typeof ListWebhooksResponse>;
export const CreateWebhookResponse = dataOf(WebhookInfo);
export type CreateWebhookResponse = z.infer<typeof CreateWebhookResponse>;
export const DeleteWebhookResponse = dataOf(
  z.object({
    id: z.string().describe('The webhook deleted'),
    deleted: z.literal(true).describe('Always true'),
  }),
);
export type DeleteWebhookResponse = z.infer<typeof DeleteWebhookResponse>;

/** One event's delivery to one webhook: its tries so far and how the last one went. */
export const WebhookDelivery = z.object({
  id: z.string().describe("The delivery's id (the x-osmosis-delivery header; the same on every retry)"),
  webhook_id: z.string().describe('The webhook delivered to'),
  event: WebhookEvent.describe('The event delivered'),
  run_id: z.string().nullable().describe('The run it is about; null when about none'),
  run_name: z.string().nullable().describe("That run's name; null when about none"),
  status: WebhookDeliveryStatus.describe(
    'pending, delivering, retrying, succeeded or failed (no tries left)',
  ),
  attempts: z.number().int().min(0).describe('tries made so far'),
  max_attempts: z.number().int().min(1).describe('Tries it gets before it fails'),
  last_status_code: z
    .number()
    .int()
    .nullable()
    .describe('HTTP status of the last try; null when no answer came'),
  last_error: z.string().nullable().describe('Why the last try failed; null when it did not'),
  next_attempt_at: Timestamp.nullable().describe('When the next try is due; null when none is'),
  delivered_at: Timestamp.nullable().describe('When a try succeeded; null until then'),
  created_at: Timestamp.describe('When the event happened'),
});
export type WebhookDelivery = z.infer<typeof WebhookDelivery>;

export const ListWebhookDeliveriesResponse = listOf(WebhookDelivery);
export type ListWebhookDeliveriesResponse = z.infer<typeof ListWebhookDeliveriesResponse>;

/** The JSON body POSTed to a receiver. */
export const WebhookPayload = z.object({
  id: z
    .string()
    .describe(
      'the delivery id (also the `x-osmosis-delivery` header): the same on every retry, for de-duplication',
    ),
  event: WebhookEvent,
  created_at: Timestamp,
  workspace: z.string(),
  run: z
    .object({
      id: z.string(),
      name: z.string(),
      status: z.string(),
      benchmark: z.string(),
      task_count: z.number().int(),
      created_at: Timestamp,
      finished_at: Timestamp.nullable(),
      error_message: z.string().nullable(),
      totals: z.object({
        passed: z.number().int(),
        failed: z.number().int(),
        errored: z.number().int(),
        cancelled: z.number().int(),
      }),
    })
    .nullable(),
});
export type WebhookPayload = z.infer<typeof WebhookPayload>;

/** The worker's delivery queue: one job per try of a delivery (job id `<delivery>-<try>`). */
export const WEBHOOK_QUEUE = 'webhook-delivery';
export const WebhookDeliveryJob = z.object({ deliveryId: z.uuid() });
export type WebhookDeliveryJob = z.infer<typeof WebhookDeliveryJob>;
