import { z } from 'zod';
import { TaskManifest } from '../task.ts';
import { GitRef, GitUrl, RegistryUrl, SourcePath } from './benchmark-sources.ts';
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
  name: z.string().min(1).describe("The set's name, e.g. parity"),
  description: z.string().nullable().default(null).describe('What the set is for; null when not given'),
  recommended: z.boolean().default(false).describe('Whether the set is the one to run by default'),
  task_names: z.array(z.string()).optional().describe("The set's tasks by name"),
  dataset: z
    .string()
    .optional()
    .describe('a dataset ref of the same registry whose task names make the set (`hle@parity`)'),
});
export type TaskSetSpec = z.infer<typeof TaskSetSpec>;

const metadataFields = {
  key: BenchmarkKey.describe(
    'Shell-safe slug naming the benchmark in the workspace, e.g. terminal-bench-2-1',
  ),
  name: z.string().min(1).max(200).describe('Display name'),
  description: z.string().nullable().describe('What the benchmark measures; null when not given'),
  source_url: z.string().nullable().describe('Where people can read about it; null when not given'),
  default_harness: z
    .string()
    .min(1)
    .describe("Harness used when a run's agent names none (terminus-2 by default)"),
  harness_requirements: BoundedJsonRecord.describe(
    'What a harness needs to run the benchmark, as its source declares it (free-form JSON)',
  ),
  requires_judge_model: z.boolean().describe('Whether runs need a judge model'),
  judge_model_default: z.string().nullable().describe('Judge model used when a run names none; null: none'),
  judge_kind: z.string().nullable().describe('How a judge grades: hle, gdpval, or null when no judge'),
  pass_threshold: z.number().min(0).max(1).describe('Reward at or above which an attempt passes (0–1)'),
  required_secret_names: z
    .array(z.string().regex(/^[A-Z][A-Z0-9_]*$/))
    .describe('Secret records every run needs (e.g. HF_TOKEN), given to the verifier'),
  task_sets: z.array(TaskSetSpec).describe('Named subsets of the tasks'),
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
    kind: z.literal('git').describe('Tasks from a git repository (an archive: POST /v1/benchmarks/archive)'),
    url: GitUrl.describe(
      'https://, http:// or git:// (GIT_URL_SCHEMES); loopback and private hosts only if the operator allows them',
    ),
    ref: GitRef.optional().describe(
      "Branch, tag or commit id to check out; default: the repository's default branch",
    ),
    path: SourcePath.optional().describe('sub-folder holding the tasks, relative, without `..`'),
    metadata: BenchmarkMetadataOverrides.optional().describe(
      "Metadata to set instead of the source's (each key optional)",
    ),
  }),
  z.object({
    kind: z.literal('registry').describe('Tasks of a Harbor registry dataset'),
    dataset: z.string().min(1).describe('`name@version`; without a version, the highest'),
    registry_url: RegistryUrl.optional().describe(
      'Where the Harbor registry document is fetched from; required unless `registry` is uploaded',
    ),
    registry: z.unknown().optional().describe('An uploaded registry document, instead of registry_url'),
    metadata: BenchmarkMetadataOverrides.optional().describe(
      "Metadata to set instead of the source's (each key optional)",
    ),
  }),
  z.object({
    kind: z.literal('catalog').describe('A benchmark of the built-in catalog'),
    catalog_key: z
      .string()
      .min(1)
      .describe('The catalog entry: terminal-bench-2-0, terminal-bench-2-1, hle or gdpval'),
    registry_url: RegistryUrl.optional().describe(
      "fetch the catalog dataset from this registry instead of the catalog's (mirrors, tests)",
    ),
    registry: z.unknown().optional().describe('An uploaded registry document, instead of registry_url'),
    metadata: BenchmarkMetadataOverrides.optional().describe(
      "Metadata to set instead of the source's (each key optional)",
    ),
  }),
]);
export type AddBenchmarkRequest = z.infer<typeof AddBenchmarkRequest>;

/** Query string of POST /v1/benchmarks/archive (the body is the tar.gz). */
export const AddArchiveQuery = z.object({
  key: BenchmarkKey.optional().describe(
    "The benchmark's key; required unless the archive's benchmark.toml gives one",
  ),
  name: z.string().min(1).optional().describe("Display name; default: benchmark.toml's, else the key"),
  description: z.string().optional().describe('What the benchmark measures'),
  source_url: z.string().optional().describe('Where people can read about it'),
  default_harness: z.string().optional().describe("Harness used when a run's agent names none"),
  pass_threshold: z.coerce
    .number()
    .min(0)
    .max(1)
    .optional()
    .describe('Reward at or above which an attempt passes (0–1)'),
  requires_judge_model: z
    .enum(['true', 'false'])
    .transform((v) => v === 'true')
    .optional()
    .describe('true when runs need a judge model'),
  judge_model_default: z.string().min(1).optional().describe('Judge model used when a run names none'),
  judge_kind: z.string().min(1).optional().describe('How a judge grades (hle, gdpval)'),
  required_secret_names: z
    .string()
    .transform((v) =>
      v
        .split(',')
        .map((x) => x.trim())
        .filter(Boolean),
    )
    .pipe(z.array(z.string().regex(/^[A-Z][A-Z0-9_]*$/)))
    .optional()
    .describe('comma-separated secret record names (`HF_TOKEN,OTHER`)'),
  path: SourcePath.optional().describe('sub-folder of the archive holding the tasks'),
});
export type AddArchiveQuery = z.infer<typeof AddArchiveQuery>;

// ---- responses --------------------------------------------------------------------------------

export const TaskSetSummary = z.object({
  name: z.string().describe("The set's name"),
  task_count: z.number().int().describe('Tasks in the set'),
  recommended: z.boolean().describe('Whether it is the set to run by default'),
  description: z.string().nullable().describe('What the set is for; null when not given'),
});
export type TaskSetSummary = z.infer<typeof TaskSetSummary>;

export const BenchmarkRunRef = z.object({
  id: z.string().describe("The run's id"),
  name: z.string().describe("The run's name"),
  status: z.string().describe("The run's status"),
  created_at: z.string().describe('When it was submitted'),
});

export const Benchmark = z.object({
  id: z.string().describe("The benchmark's id"),
  key: z.string().describe('Shell-safe slug naming it in the workspace (used in URLs)'),
  name: z.string().describe('Display name'),
  description: z.string().nullable().describe('What it measures; null when not given'),
  source_kind: SourceKind.describe('Where its tasks come from: archive, git, registry or catalog'),
  source: z
    .record(z.string(), z.unknown())
    .describe("The source's settings by kind (git: url, ref, path; registry: registry_url, dataset, …)"),
  source_commit: z
    .string()
    .nullable()
    .describe(
      "git: the commit (40 or 64 hex) the benchmark's sync checked out, the ref resolved; it never changes once ready, and runs record it in their lock. Null for other kinds and until the sync completed",
    ),
  source_url: z.string().nullable().describe('Where people can read about it; null when not given'),
  default_harness: z.string().describe("Harness used when a run's agent names none"),
  harness_requirements: z
    .record(z.string(), z.unknown())
    .describe('What a harness needs to run it, as its source declares it (free-form JSON)'),
  requires_judge_model: z.boolean().describe('Whether runs need a judge model'),
  judge_model_default: z.string().nullable().describe('Judge model used when a run names none; null: none'),
  judge_kind: z.string().nullable().describe('How a judge grades: hle, gdpval, or null when no judge'),
  pass_threshold: z.number().describe('Reward at or above which an attempt passes (0–1)'),
  required_secret_names: z
    .array(z.string())
    .describe('Secret records every run needs, given to the verifier'),
  sync_status: SyncStatus.describe('pending, syncing, ready (runs may start) or failed (see sync_error)'),
  synced_task_count: z.number().int().describe('Tasks stored so far'),
  expected_task_count: z.number().int().nullable().describe('Tasks the source lists; null until known'),
  sync_error: z.string().nullable().describe('Why the last sync failed; null unless failed'),
  task_count: z.number().int().describe('Tasks stored'),
  categories: z.array(z.string()).describe("The tasks' categories, by name"),
  category_count: z.number().int().describe('How many categories'),
  task_sets: z.array(TaskSetSummary).describe('Named subsets of the tasks'),
  last_run: BenchmarkRunRef.nullable().describe("The workspace's newest run on it; null when none"),
  platform_url: z.string().describe("The benchmark's page on the web platform"),
  created_at: z.string().describe('When it was added'),
  updated_at: z.string().describe('When it last changed (a sync, an edit)'),
  run_count: z
    .number()
    .int()
    .nonnegative()
    .describe("this workspace's runs on the benchmark (upstream's `run_count`)"),
  running_count: z
    .number()
    .int()
    .nonnegative()
    .describe("of them pending, queued or running (upstream's `running_count`)"),
  creator_name: z
    .string()
    .nullable()
    .describe('who added the benchmark (display name, else e-mail; null when unknown)'),
});
export type Benchmark = z.infer<typeof Benchmark>;

/** One task in `benchmark info --json`: the full manifest. */
export const BenchmarkTask = TaskManifest.extend({ id: z.string().describe("The task's id") });
export type BenchmarkTask = z.infer<typeof BenchmarkTask>;

/** The newest runs `GET /v1/benchmarks/:key` includes; `run_count` says how many there are. */
export const BENCHMARK_DETAIL_MAX_RUNS = 20;

export const BenchmarkDetail = Benchmark.extend({
  difficulty_counts: z
    .object({
      easy: z.number().int().describe('Tasks marked easy'),
      medium: z.number().int().describe('Tasks marked medium'),
      hard: z.number().int().describe('Tasks marked hard'),
      none: z.number().int().describe('Tasks without a difficulty'),
    })
    .describe('tasks per difficulty (`none`: no difficulty given); every key always present'),
  unsupported_task_count: z
    .number()
    .int()
    .describe('Tasks the platform cannot run (unsupported or unparsable)'),
  tasks: z.array(BenchmarkTask).describe('Every task with its full manifest'),
  leaderboard: z
    .array(LeaderboardEntry)
    .describe('ranked entries; empty until runs on the full (or a recommended) set exist'),
  leaderboard_unranked: z
    .array(UnrankedEntry)
    .describe(
      "newer finished runs left off the leaderboard for their errors, with why (the leaderboard's `unranked`)",
    ),
  leaderboard_imported: z
    .array(LeaderboardEntry)
    .default([])
    .describe(
      "with `include_imported`: imported runs ranked among themselves (the leaderboard's `imported_entries`)",
    ),
  runs: z
    .array(
      BenchmarkRunRef.extend({
        task_count: z.number().int().describe('Tasks in the run'),
        finished_at: z.string().nullable().describe('When it ended; null before'),
      }),
    )
    .describe("this workspace's runs on the benchmark, newest first (at most BENCHMARK_DETAIL_MAX_RUNS)"),
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
export const BenchmarkKeyParams = z.object({
  key: z.string().min(1).describe("The benchmark's key, exact name or id"),
});
export const DeleteBenchmarkResponse = dataOf(
  z.object({
    id: z.string().describe("The deleted benchmark's id"),
    key: z.string().describe('Its key'),
    deleted: z.literal(true).describe('Always true'),
  }),
);
