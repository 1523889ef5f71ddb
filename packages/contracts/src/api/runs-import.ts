// Importing a Harbor job directory as a run: POST /v1/runs/import (`runs import DIR`). The body
// is the directory as a tar(.gz); the run is stored finished and marked imported, and never
// queued. See docs/reproducibility.md "Import".
import { z } from 'zod';

/** A run name chosen at import (`--name`): lower-case letters, digits and dashes. */
export const IMPORTED_RUN_NAME_PATTERN = /^[a-z0-9][a-z0-9-]{0,62}$/;

export const RunImportQuery = z.object({
  /** the benchmark (key, exact name or id); default: the workspace's benchmark whose tasks match */
  benchmark: z.string().min(1).max(255).optional(),
  name: z
    .string()
    .regex(
      IMPORTED_RUN_NAME_PATTERN,
      'use 1–63 lower-case letters, digits and dashes, starting with a letter or digit',
    )
    .optional(),
});
export type RunImportQuery = z.infer<typeof RunImportQuery>;

/** A trial that was not imported, or imported with a remark, and why. */
export const RunImportMismatch = z.object({
  trial: z.string(),
  task_name: z.string().nullable(),
  reason: z.string(),
});
export type RunImportMismatch = z.infer<typeof RunImportMismatch>;

/** What an imported run keeps of its origin (runs.import_info; also in runs info). */
export const RunImportInfo = z.object({
  source: z.literal('harbor'),
  job_name: z.string().nullable(),
  job_id: z.string().nullable(),
  /** how tasks were matched: by name (Harbor's task_checksum hashes another thing than our digest) */
  matched_by: z.literal('name'),
  trials: z.number().int().nonnegative(),
  imported_attempts: z.number().int().nonnegative(),
  mismatches: z.array(RunImportMismatch),
});
export type RunImportInfo = z.infer<typeof RunImportInfo>;

export const RunImportResult = RunImportInfo.extend({
  run_id: z.string(),
  run_name: z.string(),
  benchmark_key: z.string(),
  platform_url: z.string(),
  /** why tasks are matched by name only */
  checksum_note: z.string(),
});
export type RunImportResult = z.infer<typeof RunImportResult>;

export const RunImportResponse = z.object({ data: RunImportResult });
export type RunImportResponse = z.infer<typeof RunImportResponse>;
