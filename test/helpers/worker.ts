// A real worker (queues, dispatch, Docker sandboxes) behind a test API: the same database,
// Redis key prefix and artifact storage, with a quick reconciler so tests do not wait on it.
//
// Model calls of the worker (terminus-2, the judge) read the operator's allowlist of non-public
// destinations from the process environment, as a deployed worker does. Tests reach the fake
// model server on 127.0.0.1, so a test worker starts with 127.0.0.1 on that list (the operator
// of a test platform allows its loopback model server); pass `privateNetworkAllowlist` to change it.
import type { TestApi } from '@osmosis/api/testing';
import {
  type RunningWorker,
  startWorker,
  testLogger,
  type WorkerConfig,
  workerConfig,
} from '@osmosis/worker/testing';
import { TEST_REDIS_URL } from './redis.ts';

/** @osmosis/egress ALLOWLIST_ENV */
const ALLOWLIST_ENV = 'OSMOSIS_PRIVATE_NETWORK_ALLOWLIST';
export const TEST_PRIVATE_NETWORK_ALLOWLIST = '127.0.0.1';

/** The worker's trial options (its sandboxes' network mode, tool store, image supplier, …). */
type PipelineOptions = NonNullable<Parameters<typeof startWorker>[1]>['pipeline'];

export function startTestWorker(
  api: TestApi,
  dataDir: string,
  overrides: Partial<WorkerConfig> = {},
  options: { privateNetworkAllowlist?: string; pipeline?: PipelineOptions } = {},
): Promise<RunningWorker> {
  const allowlist = options.privateNetworkAllowlist ?? TEST_PRIVATE_NETWORK_ALLOWLIST;
  process.env[ALLOWLIST_ENV] = allowlist;
  const prefix = api.app.config.queuePrefix;
  return startWorker(
    workerConfig({
      databaseUrl: api.database.url,
      redisUrl: TEST_REDIS_URL,
      queuePrefix: prefix,
      workerId: `${prefix}-worker`,
      dataDir,
      reconcileMs: 1000,
      ...overrides,
    }),
    { logger: testLogger(), ...(options.pipeline ? { pipeline: options.pipeline } : {}) },
  );
}
