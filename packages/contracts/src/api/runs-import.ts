// Importing a Harbor job directory as a run: POST /v1/runs/import (`runs import DIR`). The body
// is the directory as a tar(.gz); the run is stored finished and marked imported, and never
// queued. See docs/reproducibility.md "Import".
import { z } from 'zod';

/** A run name chosen at import (`--name`): lower-case letters, digits and dashes. */
export const IMPORTED_RUN_NAME_PATTERN = /^[a-z0-9][a-z0-9-]{0,62}$/;

export const RunImportQuery = z.object({
  benchmark: z
    .string()
    .min(1)
    .max(255)
    .optional()
    .describe(
      "The benchmark (key, exact name or id); default: the workspace's benchmark whose tasks match the most trials",
    ),
  name: z
    .string()
    .regex(
      IMPORTED_RUN_NAME_PATTERN,
      'use 1–63 lower-case letters, digits and dashes, starting with a letter or digit',
    )
    .optional()
    .describe("The new run's name (1–63 lower-case letters, digits and dashes); default: a generated one"),
});
export type RunImportQuery = z.infer<typeof RunImportQuery>;

/** A trial that was not imported, and why. */
export const RunImportMismatch = z.object({
  trial: z.string().describe("The trial's folder name in the job directory"),
  task_name: z
    .string()
    .nullable()
    .describe('The task the trial ran, as Harbor names it; null when its result.json is missing'),
  reason: z.string().describe('Why it was not imported'),
});
export type RunImportMismatch = z.infer<typeof RunImportMismatch>;

/** What an imported run keeps of its origin (runs.import_info; also in runs info). */
export const RunImportInfo = z.object({
  source: z.literal('harbor').describe('The tool that wrote the job: `harbor`'),
  job_name: z
    .string()
    .nullable()
    .describe("The job's name (its config's job_name, else its folder); null when neither is known"),
  job_id: z.string().nullable().describe("The job's id from its result.json; null when it has none"),
  matched_by: z
    .literal('name')
    .describe(
      "How trials were matched to tasks: by name (Harbor's task_checksum hashes another thing than the task digest)",
    ),
  trials: z.number().int().nonnegative().describe('Trial folders in the job, imported or not'),
  imported_attempts: z.number().int().nonnegative().describe('Attempts the imported run holds'),
  mismatches: z
    .array(RunImportMismatch)
    .describe('The trials not imported (unfinished, or of a task the benchmark lacks), with why'),
});
export type RunImportInfo = z.infer<typeof RunImportInfo>;

export const RunImportResult = RunImportInfo.extend({
  run_id: z.string().describe("The imported run's id"),
  run_name: z.string().describe("The imported run's name"),
  benchmark_key: z.string().describe('The benchmark the trials were matched against'),
  platform_url: z.string().describe("The run's page in the web app"),
  checksum_note: z.string().describe('Why tasks are matched by name only'),
});
export type RunImportResult = z.infer<typeof RunImportResult>;

export const RunImportResponse = z.object({ data: RunImportResult.describe('The imported run') });
export type RunImportResponse = z.infer<typeof RunImportResponse>;
