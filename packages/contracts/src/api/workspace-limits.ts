// The workspace's limits, set by its admins within the operator's maximum.
//   GET /v1/workspace/limits   every member: the limit in force, the workspace's own setting, the
//                              operator's maximum and the attempts in flight now
//   PUT /v1/workspace/limits   admins and owners: a positive whole number up to the operator's
//                              maximum, or null to go back to the operator's maximum
// A run config whose `[execution] max_concurrent_attempts` is above the limit in force is refused
// at submit (WORKSPACE_LIMIT_EXCEEDED, 422), not capped: what runs is what the config says.
import { z } from 'zod';
import { dataOf } from './common.ts';

/** The largest value any limit can take (the operator's setting is bounded by the same). */
export const MAX_WORKSPACE_CONCURRENT_ATTEMPTS = 1_000_000;

export const WorkspaceLimits = z.object({
  max_concurrent_attempts: z
    .number()
    .int()
    .describe("the limit in force: the workspace's setting, or the operator's maximum when it has none"),
  workspace_max_concurrent_attempts: z
    .number()
    .int()
    .nullable()
    .describe("what the workspace's admins set; null: none (the operator's maximum applies)"),
  operator_max_concurrent_attempts: z
    .number()
    .int()
    .describe('OSMOSIS_WORKSPACE_MAX_CONCURRENT_ATTEMPTS: the most the admins may set'),
  attempts_in_flight: z
    .number()
    .int()
    .describe("attempts of the workspace's runs running or handed to a worker now"),
});
export type WorkspaceLimits = z.infer<typeof WorkspaceLimits>;
export const WorkspaceLimitsResponse = dataOf(WorkspaceLimits);
export type WorkspaceLimitsResponse = z.infer<typeof WorkspaceLimitsResponse>;

export const SetWorkspaceLimitsBody = z.strictObject({
  max_concurrent_attempts: z
    .number({ error: 'must be a whole number of attempts, or null to use the operator’s maximum' })
    .int('must be a whole number')
    .min(1, 'must be at least 1 (null resets it to the operator’s maximum)')
    .max(MAX_WORKSPACE_CONCURRENT_ATTEMPTS, `must be at most ${MAX_WORKSPACE_CONCURRENT_ATTEMPTS}`)
    .nullable()
    .describe(
      "Attempts in flight at once across the workspace's runs (a whole number from 1 up to the operator's maximum), or null for the operator's maximum",
    ),
});
export type SetWorkspaceLimitsBody = z.infer<typeof SetWorkspaceLimitsBody>;

/** `details` of WORKSPACE_LIMIT_EXCEEDED (submit and preview). */
export const WorkspaceLimitExceededDetails = z.object({
  file_name: z.string(),
  path: z.literal('execution.max_concurrent_attempts'),
  requested: z.number().int(),
  max_concurrent_attempts: z.number().int(),
  operator_max_concurrent_attempts: z.number().int(),
});
export type WorkspaceLimitExceededDetails = z.infer<typeof WorkspaceLimitExceededDetails>;
