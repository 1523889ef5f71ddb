// Webhook secrets and signatures, shared by the API (encrypts the secret an admin gives) and the
// worker (decrypts it to sign each delivery). The secret is kept like a secret record: AES-256-GCM
// with the OSMOSIS_SECRET_KEYS ring, bound to its webhook by the additional authenticated data
// (a ciphertext copied onto another webhook does not decrypt).
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { SecretRecordRef } from './secret-crypto.ts';

/** The record reference a webhook's secret is encrypted under (its AAD). */
export function webhookSecretRef(webhook: { id: string; workspaceId: string }): SecretRecordRef {
  return {
    workspaceId: webhook.workspaceId,
    scope: 'workspace',
    ownerId: null,
    name: `webhook:${webhook.id}`,
  };
}

/** `sha256=<hex>`: HMAC-SHA256 of `${timestamp}.${body}` (the timestamp in seconds, as sent). */
export function webhookSignature(secret: string, timestamp: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}

/** What a receiver does: recompute and compare in constant time. */
export function verifyWebhookSignature(
  secret: string,
  timestamp: string,
  body: string,
  signature: string,
): boolean {
  const expected = Buffer.from(webhookSignature(secret, timestamp, body));
  const given = Buffer.from(signature);
  return expected.length === given.length && timingSafeEqual(expected, given);
}
