// The worker's /metrics settings, spread into WorkerConfig (config.ts).
import { z } from 'zod';

export const metricsConfigShape = {
  /** port of the worker's /metrics server; unset: no server (0: any free port, for tests) */
  metricsPort: z.coerce.number().int().min(0).max(65535).optional(),
  /** address it listens on; anything but loopback needs a token */
  metricsHost: z.string().min(1),
  /** bearer token /metrics requires (the API reads the same variable) */
  metricsToken: z.string().min(16, 'must be at least 16 characters').optional(),
};

export const METRICS_ENV_NAMES = {
  metricsPort: 'OSMOSIS_WORKER_METRICS_PORT',
  metricsHost: 'OSMOSIS_WORKER_METRICS_HOST',
  metricsToken: 'OSMOSIS_METRICS_TOKEN',
} as const;

export const DEFAULT_METRICS_CONFIG = { metricsHost: '127.0.0.1' };
