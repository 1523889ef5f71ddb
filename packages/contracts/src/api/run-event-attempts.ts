// What `runs logs` needs to tell the attempts of a run apart: each attempt event of
// GET /v1/runs/:name/events names its task, agent and try (additive fields, left out on run events).
import { z } from 'zod';

export const RunEventAttemptFields = z.object({
  /** the task of the event's attempt */
  task_name: z.string().nullable().optional(),
  /** the agent (index as in runs info, and `model (harness)`) */
  agent_index: z.number().int().nonnegative().nullable().optional(),
  agent_label: z.string().nullable().optional(),
  /** which of attempts_per_task tries of the task (0-based, as `index` in runs info) */
  attempt_index: z.number().int().nonnegative().nullable().optional(),
  /** the execution the event belongs to (1 = first; retries count up); null before the first start */
  try: z.number().int().positive().nullable().optional(),
});
export type RunEventAttemptFields = z.infer<typeof RunEventAttemptFields>;
