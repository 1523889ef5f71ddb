// What `runs logs` needs to tell the attempts of a run apart: each attempt event of
// GET /v1/runs/:name/events names its task, agent and try (additive fields, left out on run events).
import { z } from 'zod';

export const RunEventAttemptFields = z.object({
  task_name: z.string().nullable().optional().describe("the task of the event's attempt"),
  agent_index: z
    .number()
    .int()
    .nonnegative()
    .nullable()
    .optional()
    .describe('the agent (index as in runs info, and `model (harness)`)'),
  agent_label: z
    .string()
    .nullable()
    .optional()
    .describe('The agent as `model (harness)`; null on run events'),
  attempt_index: z
    .number()
    .int()
    .nonnegative()
    .nullable()
    .optional()
    .describe('which of attempts_per_task tries of the task (0-based, as `index` in runs info)'),
  try: z
    .number()
    .int()
    .positive()
    .nullable()
    .optional()
    .describe(
      'the execution the event belongs to (1 = first; retries count up); null before the first start',
    ),
});
export type RunEventAttemptFields = z.infer<typeof RunEventAttemptFields>;
