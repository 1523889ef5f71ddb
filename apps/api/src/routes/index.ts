// Every /v1 route module, registered in this order under the /v1 prefix with authentication
// already applied (see apps/api/README.md). To add a resource: write
// `routes/<resource>.ts` exporting a FastifyPluginAsyncZod and append one line to the list.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { attemptRoutes } from './attempts.ts';
import { benchmarkRoutes } from './benchmarks.ts';
import { downloadRoutes } from './downloads.ts';
import { endpointHostRoutes } from './endpoint-hosts.ts';
import { eventStreamRoutes } from './events-stream.ts';
import { gitLinkRoutes } from './git-links.ts';
import { invitationRoutes } from './invitations.ts';
import { leaderboardRoutes } from './leaderboard.ts';
import { meRoutes } from './me.ts';
import { memberRoutes } from './members.ts';
import { queueRoutes } from './queues.ts';
import { resultRoutes } from './results.ts';
import { runExportRoutes } from './run-export.ts';
import { runLockRoutes, runReproduceRoutes } from './run-lock.ts';
import { runRoutes } from './runs.ts';
import { runCompareRoutes } from './runs-compare.ts';
import { runImportRoutes } from './runs-import.ts';
import { runRetryRoutes } from './runs-retry.ts';
import { secretRoutes } from './secrets.ts';
import { submitRoutes } from './submit.ts';
import { tokenRoutes } from './tokens.ts';
import { userRoutes } from './users.ts';
import { webhookRoutes } from './webhooks.ts';
import { workerRoutes } from './workers.ts';
import { workspaceLimitRoutes } from './workspace-limits.ts';
import { workspaceRoutes } from './workspaces.ts';

export const routes: FastifyPluginAsyncZod[] = [
  meRoutes,
  workspaceRoutes,
  memberRoutes,
  tokenRoutes,
  resultRoutes,
  leaderboardRoutes,
  downloadRoutes,
  eventStreamRoutes,
  secretRoutes,
  benchmarkRoutes,
  runRoutes,
  attemptRoutes,
  submitRoutes,
  endpointHostRoutes,
  workerRoutes,
  webhookRoutes,
  queueRoutes,
  gitLinkRoutes,
  runCompareRoutes,
  runRetryRoutes,
  workspaceLimitRoutes,
  invitationRoutes,
  userRoutes,
  runExportRoutes,
  runImportRoutes,
  runLockRoutes,
  runReproduceRoutes,
  // append route modules above this line, one per line
];
