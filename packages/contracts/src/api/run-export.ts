import { z } from 'zod';

/** What `GET /v1/runs/:name/export` writes: a Harbor job directory, or a Terminal-Bench 2 leaderboard submission. */
export const RunExportFormat = z.enum(['harbor', 'tb-leaderboard']);
export type RunExportFormat = z.infer<typeof RunExportFormat>;

const DisplayName = z
  .string()
  .trim()
  .min(1)
  .max(200)
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what we refuse
  .refine((s) => !/[\u0000-\u001f\u007f]/.test(s), 'must not hold control characters');

export const RunExportQuery = z
  .object({
    format: RunExportFormat.describe('harbor (a Harbor 0.9 job directory) or tb-leaderboard'),
    agent_url: z
      .url({ protocol: /^https?$/ })
      .max(2000)
      .optional()
      .describe("tb-leaderboard: metadata.yaml's agent_url (the agent's repository or docs)"),
    agent_name: DisplayName.optional().describe("tb-leaderboard: metadata.yaml's agent_display_name"),
    org: DisplayName.optional().describe("tb-leaderboard: metadata.yaml's agent_org_display_name"),
  })
  .superRefine((q, ctx) => {
    if (q.format !== 'tb-leaderboard') return;
    for (const key of ['agent_url', 'agent_name', 'org'] as const) {
      if (q[key] === undefined)
        ctx.addIssue({
          code: 'custom',
          path: [key],
          message: `${key} is required with format=tb-leaderboard (metadata.yaml needs it)`,
        });
    }
  });
export type RunExportQuery = z.infer<typeof RunExportQuery>;
