// The JSON shapes of benchmarks as the upstream Osmosis CLI 0.3 prints them
// (osmosis_ai/platform/cli/benchmark.py `_benchmark_resource`, `_benchmark_list_resource`,
// `benchmark_info`), with this platform's keys beside upstream's. Where both name the same thing
// in another shape (`categories`, a leaderboard entry's `pass_at_1` and `pass_at_k`), upstream's
// shape wins and ours stays under another key (docs/cli-compat.md).
import type { Benchmark, BenchmarkDetail, LeaderboardEntry, RunSummary } from '@osmosis/contracts';
import { passAt1Object, runItem } from './run-shapes.ts';

/** upstream's `_benchmark_resource` keys (`key` = `source_ref`, `source_type`). */
function benchmarkResource(b: Benchmark): Record<string, unknown> {
  return {
    id: b.id,
    name: b.name,
    key: b.key,
    description: b.description,
    source_type: b.source_kind,
    source_ref: b.key,
    source_url: b.source_url,
    task_count: b.task_count,
    category_count: b.category_count,
    task_sets: b.task_sets,
    sync_status: b.sync_status,
    synced_task_count: b.synced_task_count,
    sync_error: b.sync_error,
    platform_url: b.platform_url,
  };
}

/** A `benchmark list` item: upstream's keys (run counts, the last run flattened), then ours. */
export function benchmarkItem(b: Benchmark): Record<string, unknown> {
  return {
    ...b,
    ...benchmarkResource(b),
    run_count: b.run_count,
    running_count: b.running_count,
    last_run_at: b.last_run?.created_at ?? null,
    last_run_status: b.last_run?.status ?? null,
    last_run_name: b.last_run?.name ?? null,
    creator_name: b.creator_name,
  };
}

/** A leaderboard entry: upstream's pass_at_1 {value, ci_low, ci_high, n}, pass_at_k [...], per-task metrics. */
export function leaderboardItem(e: LeaderboardEntry): Record<string, unknown> {
  return {
    ...e,
    rank: e.rank,
    tied: e.tied,
    model: e.model,
    harness: e.harness,
    task_set: e.task_set,
    pass_at_1: passAt1Object(e.pass_at_1, e.interval, e.tasks_scored),
    pass_at_k: e.pass_at_k ? [e.pass_at_k] : [],
    cost_per_task: e.per_task.cost_usd,
    mean_duration_seconds: e.per_task.time_ms === null ? null : e.per_task.time_ms / 1000,
    tokens_per_task: e.per_task.tokens,
  };
}

/**
 * `benchmark info --json` data: upstream's {benchmark, leaderboard, runs, runs_total_count}. The
 * benchmark holds upstream's keys (categories with their task counts, the full task list, the
 * tasks the platform cannot run) and every key of this platform's benchmark view.
 */
export function benchmarkInfoData(
  d: BenchmarkDetail,
  runs: { items: RunSummary[]; total_count: number },
): Record<string, unknown> {
  const { leaderboard, runs: _newest, ...detail } = d;
  const perCategory = new Map<string, number>();
  for (const t of d.tasks)
    if (t.category) perCategory.set(t.category, (perCategory.get(t.category) ?? 0) + 1);
  return {
    benchmark: {
      ...detail,
      ...benchmarkItem(d),
      runner_family: 'harbor',
      supports_harness: true,
      requires_harness: false,
      default_harness: d.default_harness,
      requires_judge_model: d.requires_judge_model,
      requires_judge_api_key: d.requires_judge_model || d.judge_kind !== null,
      judge_model_default: d.judge_model_default,
      pass_threshold: d.pass_threshold,
      categories: d.categories.map((name) => ({ name, task_count: perCategory.get(name) ?? 0 })),
      category_names: d.categories,
      tasks: d.tasks,
      unavailable_tasks: d.tasks
        .filter((t) => t.unsupported_reason || t.parse_error)
        .map((t) => ({ name: t.name, reason: t.unsupported_reason ?? t.parse_error })),
    },
    leaderboard: leaderboard.map(leaderboardItem),
    runs: runs.items.map(runItem),
    runs_total_count: runs.total_count,
  };
}
