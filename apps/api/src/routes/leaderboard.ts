// GET /v1/benchmarks/:key/leaderboard — one entry per (harness, model) from the most recent
// finished run on the full task set or a recommended set whose errored share is at most
// OSMOSIS_RANKED_MAX_ERRORED_SHARE (docs/scores.md), ranked by pass@1. Newer runs over that
// share are listed in `unranked` with the reason: an outage never replaces a good entry.
// The entries are computed by services/leaderboard.ts, which `benchmark info` and the pages call too.
import { LeaderboardResponse, STANDARD_ERROR_RESPONSES } from '@osmosis/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { computeLeaderboard, findBenchmark } from '../services/leaderboard.ts';
import { benchmarkNotFound } from '../services/not-found.ts';

export const leaderboardRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/benchmarks/:key/leaderboard',
    {
      schema: {
        tags: ['results'],
        summary: "Get a benchmark's leaderboard",
        description: "A benchmark's leaderboard: one entry per (harness, model), ranked by pass@1.",
        params: z.object({ key: z.string().min(1).describe("The benchmark's key, exact name or id") }),
        querystring: z.object({
          comparable: z
            .enum(['true', 'false', '1', '0'])
            .optional()
            .describe(
              'true: only entries comparable with the published terminus-2 scores (docs/terminus-2.md)',
            ),
          include_imported: z
            .enum(['true', 'false', '1', '0'])
            .optional()
            .describe('true: also rank imported runs (runs import), apart, in imported_entries'),
        }),
        response: { 200: LeaderboardResponse, ...STANDARD_ERROR_RESPONSES },
      },
    },
    async (request) => {
      const benchmark = await findBenchmark(app.db, request.auth.workspace.id, request.params.key);
      if (!benchmark) throw await benchmarkNotFound(app.db, request.auth.workspace.id, request.params.key);
      const comparableOnly = request.query.comparable === 'true' || request.query.comparable === '1';
      const includeImported =
        request.query.include_imported === 'true' || request.query.include_imported === '1';
      return {
        data: await computeLeaderboard(app.db, benchmark, {
          comparableOnly,
          includeImported,
          maxErroredShare: app.config.rankedMaxErroredShare,
        }),
      };
    },
  );
};
