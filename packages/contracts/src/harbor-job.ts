// What `runs import` reads of a Harbor job directory: the job's result.json and config.json and
// each trial's result.json, as Harbor 0.9 writes them (models/trial/result.py,
// models/job/result.py, models/agent/context.py, models/verifier/result.py; unchanged since
// 0.6.4). Like pydantic, unknown keys are ignored; every field read is checked, with bounds,
// since the directory is untrusted.
import { z } from 'zod';

/** A Harbor name (task, trial, agent, model) as stored here. */
const HarborName = z.string().min(1).max(255);
const HarborText = z.string().max(65_536);
const Count = z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER);

/** pydantic writes datetimes as ISO 8601, with or without a zone (JobResult's are naive local). */
export const HarborDateTime = z
  .string()
  .max(64)
  .refine((s) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/.test(s) && !Number.isNaN(Date.parse(s)), {
    error: 'is not an ISO 8601 date and time',
  });

export const HarborTimingInfo = z.object({
  started_at: HarborDateTime.nullable().optional(),
  finished_at: HarborDateTime.nullable().optional(),
});
export type HarborTimingInfo = z.infer<typeof HarborTimingInfo>;

export const HarborAgentContext = z.object({
  n_input_tokens: Count.nullable().optional(),
  n_cache_tokens: Count.nullable().optional(),
  n_output_tokens: Count.nullable().optional(),
  cost_usd: z.number().nonnegative().nullable().optional(),
});

/** NaN and ±inf rewards are written by pydantic as null: kept as null, which is no score. */
export const HarborVerifierResult = z.object({
  rewards: z.record(HarborName, z.number().nullable()).nullable().optional(),
});

export const HarborExceptionInfo = z.object({
  exception_type: HarborName,
  exception_message: HarborText,
  exception_traceback: z.string().max(1_048_576),
  occurred_at: HarborDateTime,
});

export const HarborAgentInfo = z.object({
  name: HarborName,
  version: z.string().max(255),
  model_info: z
    .object({ name: HarborName, provider: HarborName.nullable().optional() })
    .nullable()
    .optional(),
});

export const HarborStepResult = z.object({
  step_name: HarborName,
  agent_result: HarborAgentContext.nullable().optional(),
  verifier_result: HarborVerifierResult.nullable().optional(),
  exception_info: HarborExceptionInfo.nullable().optional(),
  agent_execution: HarborTimingInfo.nullable().optional(),
  verifier: HarborTimingInfo.nullable().optional(),
});

export const HarborTrialResult = z.object({
  id: z.string().max(64).optional(),
  task_name: HarborName,
  trial_name: HarborName,
  trial_uri: z.string().max(4096),
  task_id: z.record(z.string(), z.unknown()),
  source: z.string().max(255).nullable().optional(),
  task_checksum: z.string().max(128),
  config: z.record(z.string(), z.unknown()),
  agent_info: HarborAgentInfo,
  agent_result: HarborAgentContext.nullable().optional(),
  verifier_result: HarborVerifierResult.nullable().optional(),
  exception_info: HarborExceptionInfo.nullable().optional(),
  started_at: HarborDateTime.nullable().optional(),
  finished_at: HarborDateTime.nullable().optional(),
  environment_setup: HarborTimingInfo.nullable().optional(),
  agent_setup: HarborTimingInfo.nullable().optional(),
  agent_execution: HarborTimingInfo.nullable().optional(),
  verifier: HarborTimingInfo.nullable().optional(),
  step_results: z.array(HarborStepResult).max(1000).nullable().optional(),
});
export type HarborTrialResult = z.infer<typeof HarborTrialResult>;

export const HarborJobResult = z.object({
  id: z.string().min(1).max(64),
  started_at: HarborDateTime,
  updated_at: HarborDateTime.nullable().optional(),
  finished_at: HarborDateTime.nullable().optional(),
  n_total_trials: Count,
  stats: z.record(z.string(), z.unknown()),
});
export type HarborJobResult = z.infer<typeof HarborJobResult>;

/** The few job settings an imported run shows (JobConfig); the rest is kept as written. */
export const HarborJobConfig = z.object({
  job_name: z.string().max(255).optional(),
  n_attempts: z.number().int().positive().max(100_000).optional(),
  timeout_multiplier: z.number().positive().max(1_000_000).optional(),
});
export type HarborJobConfig = z.infer<typeof HarborJobConfig>;
