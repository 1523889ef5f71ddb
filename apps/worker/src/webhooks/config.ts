// The worker's webhook settings, spread into WorkerConfig (config.ts) like the sources settings.
import { z } from 'zod';

const int = (min: number, max: number) => z.coerce.number().int().min(min).max(max);

export const webhookConfigShape = {
  /** tries of one delivery before it is `failed` (the first included) */
  webhookMaxAttempts: int(1, 20),
  /** wait before the second try; doubles per try, at most an hour */
  webhookBackoffMs: int(0, 3_600_000),
  /** how long a receiver has to answer (headers); its body is never read */
  webhookTimeoutMs: int(100, 60_000),
};

export const WEBHOOK_ENV_NAMES = {
  webhookMaxAttempts: 'OSMOSIS_WEBHOOK_MAX_ATTEMPTS',
  webhookBackoffMs: 'OSMOSIS_WEBHOOK_BACKOFF_MS',
  webhookTimeoutMs: 'OSMOSIS_WEBHOOK_TIMEOUT_MS',
} as const;

export const DEFAULT_WEBHOOK_CONFIG = {
  webhookMaxAttempts: 6,
  webhookBackoffMs: 10_000,
  webhookTimeoutMs: 10_000,
};

/** Delay before try `next` (2, 3, ...): base · 2^(next − 2), at most an hour. */
export function webhookBackoff(baseMs: number, next: number): number {
  return Math.min(baseMs * 2 ** Math.max(0, next - 2), 3_600_000);
}
