// A run's downloads: GET /v1/runs/:name/downloads/manifest lists the files of the types asked
// for, GET /v1/runs/:name/downloads/file sends one of them (docs/downloads.md).
import { z } from 'zod';
import { RunStatusName } from '../run-statuses.ts';

/** `trajectories`: each attempt's ATIF trajectory (agent/trajectory.json, a step's too), the artifacts alone */
export const DownloadType = z.enum(['summary', 'results', 'artifacts', 'logs', 'trajectories', 'lock']);
export type DownloadType = z.infer<typeof DownloadType>;
export const DEFAULT_DOWNLOAD_TYPES: readonly DownloadType[] = ['summary', 'results'];

export const ManifestFile = z.object({
  type: DownloadType.describe('Which kind of output the file is'),
  path: z
    .string()
    .describe('relative to the run folder, `/`-separated: summary.csv, artifacts/<result-id>/<path>'),
  size: z.number().int().nonnegative().describe('Size in bytes'),
});
export type ManifestFile = z.infer<typeof ManifestFile>;

export const DownloadManifest = z.object({
  run_id: z.string().describe("The run's id"),
  run_name: z.string().describe("The run's name"),
  status: RunStatusName.describe("The run's status when the manifest was made"),
  snapshot: z.boolean().describe('true when the run is still running: the files are a current snapshot'),
  generated_at: z
    .string()
    .describe('the time the generated files (CSVs, logs) were computed; pass it back as `at`'),
  types: z.array(DownloadType).describe('The file types listed'),
  files: z
    .array(ManifestFile)
    .describe('The files, each fetched with GET /v1/runs/{name}/downloads/file?path='),
  total_size: z.number().int().nonnegative().describe("Sum of the files' sizes, bytes"),
});
export type DownloadManifest = z.infer<typeof DownloadManifest>;

export const DownloadManifestResponse = z.object({ data: DownloadManifest.describe('The manifest') });
export type DownloadManifestResponse = z.infer<typeof DownloadManifestResponse>;

export const DownloadManifestQuery = z.object({
  types: z
    .string()
    .optional()
    .describe('comma-separated: summary, results, artifacts, logs, trajectories, lock, or all'),
});

export const DownloadFileQuery = z.object({
  path: z
    .string()
    .min(1)
    .describe('A `path` from the manifest, e.g. summary.csv or artifacts/<result-id>/<path>'),
  /** the manifest's generated_at: generated files are reproduced as of this time */
  at: z
    .string()
    .datetime({ offset: true })
    // ISO allows year 0000, which Postgres refuses (a 500 from the first query)
    .refine((at) => Date.parse(at) >= 0, {
      error:
        "must be the generated_at of the run's manifest (GET /v1/runs/:name/downloads/manifest), a time from 1970 on; leave it out for the file as it is now",
    })
    .optional()
    .describe("the manifest's generated_at"),
});

/**
 * Parses a `--type` / `?types=` list: comma-separated names from DownloadType, or `all`.
 * Returns null on an unknown name.
 */
export function parseDownloadTypes(value: string | undefined): DownloadType[] | null {
  if (value === undefined || value.trim() === '') return [...DEFAULT_DOWNLOAD_TYPES];
  const out = new Set<DownloadType>();
  for (const raw of value.split(',')) {
    const name = raw.trim();
    if (name === '') continue;
    if (name === 'all') {
      for (const t of DownloadType.options) out.add(t);
      continue;
    }
    const parsed = DownloadType.safeParse(name);
    if (!parsed.success) return null;
    out.add(parsed.data);
  }
  return DownloadType.options.filter((t) => out.has(t));
}
