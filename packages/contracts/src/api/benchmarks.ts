import { z } from 'zod';
import { TaskManifest } from '../task.ts';
import { BoundedJsonRecord, dataOf, listOf } from './common.ts';
import { LeaderboardEntry, UnrankedEntry } from './results.ts';

/** Shell-safe slug: `terminal-bench-2-1`. */
export const BenchmarkKey = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[a-z0-9][a-z0-9-]*$/, 'lowercase letters, digits and dashes, starting with a letter or digit');

export const SyncStatus = z.enum(['pending', 'syncing', 'ready', 'failed']);
export type SyncStatus = z.infer<typeof SyncStatus>;

export const SourceKind = z.enum(['archive', 'git', 'registry', 'catalog']);
export type SourceKind = z.infer<typeof SourceKind>;

/** A named subset of a benchmark's tasks, given as task names or as another registry dataset. */
export const TaskSetSpec = z.object({
  name: z.string().min(1),
  description: z.string().nullable().default(null),
  recommended: z.boolean().default(false),
  task_names: z.array(z.string()).optional(),
  /** a dataset ref of the same registry whose task names make the set (`hle@parity`) */
  dataset: z.string().optional(),
});
export type TaskSetSpec = z.infer<typeof TaskSetSpec>;

const metadataFields = {
  key: BenchmarkKey,
  name: z.string().min(1).max(200),
  description: z.string().nullable(),
  source_url: z.string().nullable(),
  default_harness: z.string().min(1),
  harness_requirements: BoundedJsonRecord,
  requires_judge_model: z.boolean(),
  judge_model_default: z.string().nullable(),
  judge_kind: z.string().nullable(),
  pass_threshold: z.number().min(0).max(1),
  required_secret_names: z.array(z.string().regex(/^[A-Z][A-Z0-9_]*$/)),
  task_sets: z.array(TaskSetSpec),
};

/** What a benchmark is besides its tasks: the catalog's entries and explicit metadata on add. */
export const BenchmarkMetadata = z.object({
  ...metadataFields,
  description: metadataFields.description.default(null),
  source_url: metadataFields.source_url.default(null),
  default_harness: metadataFields.default_harness.default('terminus-2'),
  harness_requirements: metadataFields.harness_requirements.default({}),
  requires_judge_model: metadataFields.requires_judge_model.default(false),
  judge_model_default: metadataFields.judge_model_default.default(null),
  judge_kind: metadataFields.judge_kind.default(null),
  pass_threshold: metadataFields.pass_threshold.default(1),
  required_secret_names: metadataFields.required_secret_names.default([]),
  task_sets: metadataFields.task_sets.default([]),
});
export type BenchmarkMetadata = z.infer<typeof BenchmarkMetadata>;
export type BenchmarkMetadataInput = z.input<typeof BenchmarkMetadata>;

// ---- source strings -------------------------------------------------------------------------
// A benchmark source names a URL, a ref and a sub-folder, and every one of them reaches `git` or
// the filesystem. They are checked as they land (API schemas below, registry documents, and the
// worker again before it acts), so none can be read as an option (`-…`) or leave the checkout.

/** Schemes a git source may use. ssh is left out: the worker holds no SSH keys, and ssh adds
 * its own option surface (`ssh://-oProxyCommand=…`); an on-prem server can serve https. */
export const GIT_URL_SCHEMES = ['https', 'http', 'git'] as const;
/** Schemes a registry document may be fetched with. */
export const REGISTRY_URL_SCHEMES = ['https', 'http'] as const;

function hasControlOrBackslash(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x20 || c === 0x7f || c === 0x5c) return true;
  }
  return false;
}

/** Why a sub-folder of a checkout or archive is refused, or null: relative, no `..`, no `-x`. */
export function sourcePathIssue(value: string): string | null {
  if (value.length > 1024) return 'is longer than 1024 characters';
  if (hasControlOrBackslash(value)) return 'must not contain control characters or backslashes';
  if (value.startsWith('/'))
    return 'must be relative to the root of the repository or archive (no leading /)';
  const parts = value.split('/').filter((p) => p !== '' && p !== '.');
  if (parts.includes('..')) return 'must not contain .. (it has to stay inside the repository or archive)';
  if (parts.some((p) => p.startsWith('-'))) return 'must not have a folder name starting with -';
  return null;
}

/** A sub-folder path with `.`, empty components and trailing slashes removed ('' for the root). */
export function normalizeSourcePath(value: string): string {
  return value
    .split('/')
    .filter((p) => p !== '' && p !== '.')
    .join('/');
}

/** Why a git ref (branch, tag or commit id) is refused, or null. */
export function gitRefIssue(value: string): string | null {
  if (value.length === 0 || value.length > 255) return 'must be 1 to 255 characters';
  if (value.startsWith('-')) return 'must not start with - (git would read it as an option)';
  if (!/^[A-Za-z0-9._/-]+$/.test(value) || value.includes('..') || value.endsWith('/')) {
    return 'must be a branch, tag or commit id (letters, digits, . _ / -)';
  }
  return null;
}

/** Why a URL is refused before any connection is tried (scheme, shape), or null. */
export function urlIssue(value: string, schemes: readonly string[]): string | null {
  if (value.length > 2048) return 'is longer than 2048 characters';
  if (value.startsWith('-')) return 'must not start with - (git would read it as an option)';
  if (hasControlOrBackslash(value) || /\s/.test(value))
    return 'must not contain spaces, control characters or backslashes';
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return `must be a URL (${schemes.map((s) => `${s}://…`).join(', ')})`;
  }
  const scheme = url.protocol.replace(/:$/, '');
  if (!schemes.includes(scheme)) {
    return `uses the scheme "${scheme}", which is not allowed; use ${schemes.map((s) => `${s}://`).join(', ')}`;
  }
  if (!url.hostname) return 'has no host';
  if (url.hostname.startsWith('-')) return 'has a host starting with -';
  return null;
}

function checked(name: string, issue: (value: string) => string | null) {
  return z.string().superRefine((value, ctx) => {
    const problem = issue(value);
    if (problem) ctx.addIssue({ code: 'custom', message: `${name} ${problem}` });
  });
}

/** A sub-folder given with a source (`tasks`, `benchmarks/tb2`). */
export const SourcePath = checked('path', sourcePathIssue);
export const GitRef = checked('ref', gitRefIssue);
export const GitUrl = checked('url', (v) => urlIssue(v, GIT_URL_SCHEMES));
export const RegistryUrl = checked('registry_url', (v) => urlIssue(v, REGISTRY_URL_SCHEMES));

/** Benchmark.source, by kind. */
export const GitSource = z.object({
  url: z.string().min(1),
  ref: z.string().nullable().default(null),
  path: z.string().nullable().default(null),
});
export const RegistrySource = z.object({
  /** where the registry document is fetched from; null when it was uploaded */
  registry_url: z.string().nullable().default(null),
  /** storage key of an uploaded registry document */
  registry_key: z.string().nullable().default(null),
  /** `name@version` as given (version may be absent: highest) */
  dataset: z.string().min(1),
  /** the version it resolved to at sync */
  resolved_version: z.string().nullable().default(null),
});
export const ArchiveSource = z.object({
  archive_key: z.string().min(1),
  path: z.string().nullable().default(null),
});
export const CatalogSource = RegistrySource.extend({ catalog_key: z.string() });
export type GitSource = z.infer<typeof GitSource>;
export type RegistrySource = z.infer<typeof RegistrySource>;
export type ArchiveSource = z.infer<typeof ArchiveSource>;
export type CatalogSource = z.infer<typeof CatalogSource>;

// ---- requests ---------------------------------------------------------------------------------

/** Metadata fields a user may give when adding (all optional; the catalog or source fills the rest). */
export const BenchmarkMetadataOverrides = z.object(metadataFields).partial();
export type BenchmarkMetadataOverrides = z.infer<typeof BenchmarkMetadataOverrides>;

/**
 * POST /v1/benchmarks (JSON). Archives are uploaded with POST /v1/benchmarks/archive instead
 * (raw `application/gzip` body, metadata in the query string).
 */
export const AddBenchmarkRequest = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('git'),
    /** https://, http:// or git:// (GIT_URL_SCHEMES); loopback and private hosts only if the operator allows them */
    url: GitUrl,
    ref: GitRef.optional(),
    /** sub-folder holding the tasks, relative, without `..` */
    path: SourcePath.optional(),
    metadata: BenchmarkMetadataOverrides.optional(),
  }),
  z.object({
    kind: z.literal('registry'),
    /** `name@version`; without a version, the highest */
    dataset: z.string().min(1),
    registry_url: RegistryUrl.optional(),
    /** an uploaded registry document, instead of registry_url */
    registry: z.unknown().optional(),
    metadata: BenchmarkMetadataOverrides.optional(),
  }),
  z.object({
    kind: z.literal('catalog'),
    catalog_key: z.string().min(1),
    /** fetch the catalog dataset from this registry instead of the catalog's (mirrors, tests) */
    registry_url: RegistryUrl.optional(),
    registry: z.unknown().optional(),
    metadata: BenchmarkMetadataOverrides.optional(),
  }),
]);
export type AddBenchmarkRequest = z.infer<typeof AddBenchmarkRequest>;

/** Query string of POST /v1/benchmarks/archive (the body is the tar.gz). */
export const AddArchiveQuery = z.object({
  key: BenchmarkKey.optional(),
  name: z.string().min(1).optional(),
  description: z.string().optional(),
  source_url: z.string().optional(),
  default_harness: z.string().optional(),
  pass_threshold: z.coerce.number().min(0).max(1).optional(),
  requires_judge_model: z
    .enum(['true', 'false'])
    .transform((v) => v === 'true')
    .optional(),
  judge_model_default: z.string().min(1).optional(),
  judge_kind: z.string().min(1).optional(),
  /** comma-separated secret record names (`HF_TOKEN,OTHER`) */
  required_secret_names: z
    .string()
    .transform((v) =>
      v
        .split(',')
        .map((x) => x.trim())
        .filter(Boolean),
    )
    .pipe(z.array(z.string().regex(/^[A-Z][A-Z0-9_]*$/)))
    .optional(),
  /** sub-folder of the archive holding the tasks */
  path: SourcePath.optional(),
});
export type AddArchiveQuery = z.infer<typeof AddArchiveQuery>;

// ---- responses --------------------------------------------------------------------------------

export const TaskSetSummary = z.object({
  name: z.string(),
  task_count: z.number().int(),
  recommended: z.boolean(),
  description: z.string().nullable(),
});
export type TaskSetSummary = z.infer<typeof TaskSetSummary>;

export const BenchmarkRunRef = z.object({
  id: z.string(),
  name: z.string(),
  status: z.string(),
  created_at: z.string(),
});

export const Benchmark = z.object({
  id: z.string(),
  key: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  source_kind: SourceKind,
  source: z.record(z.string(), z.unknown()),
  source_url: z.string().nullable(),
  default_harness: z.string(),
  harness_requirements: z.record(z.string(), z.unknown()),
  requires_judge_model: z.boolean(),
  judge_model_default: z.string().nullable(),
  judge_kind: z.string().nullable(),
  pass_threshold: z.number(),
  required_secret_names: z.array(z.string()),
  sync_status: SyncStatus,
  synced_task_count: z.number().int(),
  expected_task_count: z.number().int().nullable(),
  sync_error: z.string().nullable(),
  task_count: z.number().int(),
  categories: z.array(z.string()),
  category_count: z.number().int(),
  task_sets: z.array(TaskSetSummary),
  last_run: BenchmarkRunRef.nullable(),
  platform_url: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
  /** this workspace's runs on the benchmark (upstream's `run_count`) */
  run_count: z.number().int().nonnegative(),
  /** of them pending, queued or running (upstream's `running_count`) */
  running_count: z.number().int().nonnegative(),
  /** who added the benchmark (display name, else e-mail; null when unknown) */
  creator_name: z.string().nullable(),
});
export type Benchmark = z.infer<typeof Benchmark>;

/** One task in `benchmark info --json`: the full manifest. */
export const BenchmarkTask = TaskManifest.extend({ id: z.string() });
export type BenchmarkTask = z.infer<typeof BenchmarkTask>;

/** The newest runs `GET /v1/benchmarks/:key` includes; `run_count` says how many there are. */
export const BENCHMARK_DETAIL_MAX_RUNS = 20;

export const BenchmarkDetail = Benchmark.extend({
  /** tasks per difficulty (`none`: no difficulty given); every key always present */
  difficulty_counts: z.object({
    easy: z.number().int(),
    medium: z.number().int(),
    hard: z.number().int(),
    none: z.number().int(),
  }),
  unsupported_task_count: z.number().int(),
  tasks: z.array(BenchmarkTask),
  /** ranked entries; empty until runs on the full (or a recommended) set exist */
  leaderboard: z.array(LeaderboardEntry),
  /** newer finished runs left off the leaderboard for their errors, with why (the leaderboard's `unranked`) */
  leaderboard_unranked: z.array(UnrankedEntry),
  /** with `include_imported`: imported runs ranked among themselves (the leaderboard's `imported_entries`) */
  leaderboard_imported: z.array(LeaderboardEntry).default([]),
  /** this workspace's runs on the benchmark, newest first (at most BENCHMARK_DETAIL_MAX_RUNS) */
  runs: z.array(BenchmarkRunRef.extend({ task_count: z.number().int(), finished_at: z.string().nullable() })),
  /** every run of this workspace on the benchmark; above runs.length, page GET /v1/runs?benchmark=ID */
  run_count: z
    .number()
    .int()
    .nonnegative()
    .describe(
      'How many runs of this workspace the benchmark has. `runs` holds the newest 20; when run_count is larger, list them all with GET /v1/runs?benchmark=<id>.',
    ),
});
export type BenchmarkDetail = z.infer<typeof BenchmarkDetail>;

export const BenchmarkResponse = dataOf(Benchmark);
export type BenchmarkResponse = z.infer<typeof BenchmarkResponse>;
export const BenchmarkDetailResponse = dataOf(BenchmarkDetail);
export type BenchmarkDetailResponse = z.infer<typeof BenchmarkDetailResponse>;
export const ListBenchmarksResponse = listOf(Benchmark);
export type ListBenchmarksResponse = z.infer<typeof ListBenchmarksResponse>;
export const BenchmarkKeyParams = z.object({ key: z.string().min(1) });
export const DeleteBenchmarkResponse = dataOf(
  z.object({ id: z.string(), key: z.string(), deleted: z.literal(true) }),
);
