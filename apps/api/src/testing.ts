// Test support for any package's tests: a real API on an ephemeral loopback port, on a fresh
// test database (clone of the migrated template) and the test Redis, plus seeding helpers.
//
//   const api = await startTestApi();
//   const a = await api.seedWorkspace();                 // workspace + owner + token
//   const res = await api.request('GET', '/v1/me', { token: a.token });
//   await api.close();
import type { MemberRole } from '@osmosis/contracts';
import type { Db } from '@osmosis/db';
import { createRedis } from '@osmosis/queues';
import type { FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { createTestDatabase, type TestDatabase } from '../../../test/helpers/db.ts';
import { TEST_REDIS_URL, testQueuePrefix } from '../../../test/helpers/redis.ts';
import { buildApp } from './app.ts';
import { type ApiConfig, loadConfig } from './config.ts';
import { addMemberWithToken, createWorkspaceWithOwner } from './services/workspaces.ts';

export interface SeededMember {
  workspaceId: string;
  workspaceName: string;
  userId: string;
  email: string;
  role: MemberRole;
  tokenId: string;
  token: string;
}

export interface TestResponse<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface TestApi {
  app: FastifyInstance;
  /** http://127.0.0.1:<port> */
  url: string;
  db: Db;
  redis: Redis;
  database: TestDatabase;
  /** `operator`: the owner is an operator of the deployment (bootstrap.ts marks the first owner) */
  seedWorkspace(options?: { name?: string; email?: string; operator?: boolean }): Promise<SeededMember>;
  /** `confined`: the member's token works in this workspace only (a row as older deployments hold) */
  addMember(
    workspaceId: string,
    role: MemberRole,
    email?: string,
    options?: { confined?: boolean },
  ): Promise<SeededMember>;
  // biome-ignore lint/suspicious/noExplicitAny: tests read response bodies loosely
  request<T = any>(
    method: string,
    path: string,
    options?: { token?: string; body?: unknown; headers?: Record<string, string> },
  ): Promise<TestResponse<T>>;
  close(): Promise<void>;
}

let counter = 0;
function unique(): string {
  counter += 1;
  return `${Date.now().toString(36)}${process.pid.toString(36)}${counter}`;
}

export interface StartTestApiOptions {
  config?: Partial<ApiConfig>;
  /** OSMOSIS_PRIVATE_NETWORK_ALLOWLIST of this API (e.g. '127.0.0.1' for a loopback fake); default empty */
  privateNetworkAllowlist?: string;
  logger?: Logger;
  /** register extra routes (e.g. a route that throws) before the app starts listening */
  beforeListen?: (app: FastifyInstance) => void | Promise<void>;
}

export async function startTestApi(options: StartTestApiOptions = {}): Promise<TestApi> {
  const database = await createTestDatabase();
  const redis = createRedis(TEST_REDIS_URL);
  const app = await buildApp({
    db: database.db,
    redis,
    // a generous auth-failure limit so tests that probe bad tokens are not rate limited (override to test it)
    config: {
      queuePrefix: testQueuePrefix(),
      authFailureLimit: 1000,
      ...(options.privateNetworkAllowlist !== undefined
        ? {
            sources: loadConfig({ OSMOSIS_PRIVATE_NETWORK_ALLOWLIST: options.privateNetworkAllowlist })
              .sources,
          }
        : {}),
      ...options.config,
    },
    ...(options.logger ? { logger: options.logger } : { logLevel: 'silent' as const }),
  });
  await options.beforeListen?.(app);
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const url = `http://127.0.0.1:${port}`;

  const toMember = (
    s: {
      workspace: { id: string; name: string };
      user: { id: string; email: string };
      token: { id: string; token: string };
    },
    role: MemberRole,
  ): SeededMember => ({
    workspaceId: s.workspace.id,
    workspaceName: s.workspace.name,
    userId: s.user.id,
    email: s.user.email,
    role,
    tokenId: s.token.id,
    token: s.token.token,
  });

  return {
    app,
    url,
    db: database.db,
    redis,
    database,
    async seedWorkspace(seed = {}) {
      const id = unique();
      const created = await createWorkspaceWithOwner(database.db, {
        name: seed.name ?? `ws-${id}`,
        ownerEmail: seed.email ?? `owner-${id}@example.test`,
      });
      if (seed.operator) {
        await database.db.user.update({ where: { id: created.user.id }, data: { isOperator: true } });
      }
      return toMember(created, 'owner');
    },
    async addMember(workspaceId, role, email, options = {}) {
      const added = await addMemberWithToken(database.db, {
        workspaceId,
        email: email ?? `${role}-${unique()}@example.test`,
        role,
        confined: options.confined,
      });
      return toMember(added, role);
    },
    async request<T>(
      method: string,
      path: string,
      opts: { token?: string; body?: unknown; headers?: Record<string, string> } = {},
    ) {
      const headers: Record<string, string> = { ...opts.headers };
      if (opts.token) headers.authorization = `Bearer ${opts.token}`;
      let body: string | undefined;
      if (opts.body !== undefined) {
        headers['content-type'] ??= 'application/json';
        body = typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body);
      }
      const response = await fetch(url + path, { method, headers, body });
      const text = await response.text();
      let parsed: unknown = text;
      try {
        parsed = text ? JSON.parse(text) : null;
      } catch {
        // not JSON: keep the text
      }
      return { status: response.status, headers: response.headers, body: parsed as T, text };
    },
    async close() {
      await app.close();
      redis.disconnect();
      await database.drop();
    },
  };
}

// What the cross-process tests in test/ call directly (they import `@osmosis/api/testing`).
export type { AccountsConfig, OidcSettings } from './accounts-config.ts';
export { buildApp } from './app.ts';
export { loadConfig } from './config.ts';
export { createLogger, loggerOptions } from './logger.ts';
export { INLINE_TEXT_MAX_BYTES } from './pages/artifact-view.ts';
export { paretoFront } from './pages/chart-bench.ts';
export { STEP_TEXT_MAX } from './pages/trajectory-view.ts';
export { STREAM_ACCESS_RECHECK_MS } from './routes/events-stream.ts';
export { TIMELINE_ROWS } from './services/attempt-timeline.ts';
export { csvLine, RESULTS_COLUMNS, resultsCsv } from './services/download-csv.ts';
export { harborJob } from './services/harbor-export/job-files.ts';
export { harborJobLock, harborTaskDigest } from './services/harbor-export/job-lock.ts';
export {
  leaderboardModels,
  metadataYaml,
  submissionFolder,
} from './services/harbor-export/leaderboard-metadata.ts';
export { leaderboardBreaks, reuseFromHint } from './services/harbor-export/leaderboard-rules.ts';
export type { ExportAttempt, ExportRun } from './services/harbor-export/model.ts';
export { trialNames } from './services/harbor-export/trial-names.ts';
export { computeLeaderboard } from './services/leaderboard.ts';
export { hashPassword } from './services/passwords.ts';
export { runGrid } from './services/run-page.ts';
export { bestPassAt1ByRun, findRunForResults, loadRunResults, resultsInput } from './services/run-results.ts';
export { stopRun } from './services/run-stop.ts';
export { addMemberWithToken, createWorkspaceWithOwner } from './services/workspaces.ts';
