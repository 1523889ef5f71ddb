// Golden shapes: the upstream Osmosis CLI 0.3's keys (src/upstream-keys.ts, each set cited there)
// in this CLI's JSON items, upstream's shapes where a key of both differs.
import type { Benchmark, BenchmarkDetail, LeaderboardEntry, RunSummary } from '@osmosis/contracts';
import { describe, expect, it } from 'vitest';
import {
  BENCHMARK_INFO_BENCHMARK_KEYS,
  BENCHMARK_INFO_KEYS,
  BENCHMARK_LIST_ITEM_KEYS,
  BENCHMARK_RUN_KEYS,
  LEADERBOARD_ENTRY_KEYS,
  LOG_ITEM_KEYS,
  missingKeys,
  PASS_AT_1_KEYS,
  PROGRESS_KEYS,
  SECRET_KEYS,
  TASK_SET_KEYS,
} from '../upstream-keys.ts';
import { benchmarkInfoData, benchmarkItem, leaderboardItem } from './benchmark-shapes.ts';
import { runItem, runLogsItem, runProgress } from './run-shapes.ts';
import { secretItem } from './secret.ts';

const benchmark: Benchmark = {
  id: 'b1',
  key: 'hle',
  name: "Humanity's Last Exam",
  description: null,
  source_kind: 'catalog',
  source: {},
  source_commit: null,
  source_url: null,
  default_harness: 'terminus-2',
  harness_requirements: {},
  requires_judge_model: true,
  judge_model_default: 'openai/o3-mini',
  judge_kind: 'hle',
  pass_threshold: 1,
  required_secret_names: ['HF_TOKEN'],
  sync_status: 'ready',
  synced_task_count: 2,
  expected_task_count: 2,
  sync_error: null,
  task_count: 2,
  categories: ['math'],
  category_count: 1,
  task_sets: [{ name: 'parity', task_count: 1, recommended: true, description: null }],
  last_run: { id: 'r1', name: 'bright-otter', status: 'finished', created_at: '2026-01-02T00:00:00.000Z' },
  platform_url: 'http://p/benchmarks/hle',
  created_at: '2026-01-01T00:00:00.000Z',
  updated_at: '2026-01-01T00:00:00.000Z',
  run_count: 3,
  running_count: 1,
  creator_name: 'Ada',
};

const progress = {
  total: 4,
  done: 3,
  running: 1,
  queued: 0,
  passed: 2,
  failed: 1,
  errored: 0,
  cancelled: 0,
  fraction: 0.75,
};

const run: RunSummary = {
  imported: false,
  id: 'r1',
  name: 'bright-otter',
  status: 'running',
  benchmark_id: 'b1',
  benchmark_key: 'hle',
  benchmark_name: "Humanity's Last Exam",
  task_count: 2,
  agent_count: 2,
  attempts_per_task: 1,
  max_concurrent_attempts: 4,
  best_pass_at_1: 0.5,
  progress,
  created_by: 'ada@example.com',
  created_at: '2026-01-02T00:00:00.000Z',
  started_at: '2026-01-02T00:01:00.000Z',
  finished_at: null,
  duration_ms: 1000,
  platform_url: 'http://p/runs/bright-otter',
  creator_name: 'Ada',
  creator_email: 'ada@example.com',
  errored_share: 0,
  unranked_reason: null,
  waiting: [],
  waiting_reason: null,
};

const entry: LeaderboardEntry = {
  imported: false,
  rank: 1,
  tied: false,
  rank_label: '#1',
  harness: 'terminus-2',
  model: 'openai/gpt-5',
  label: 'openai/gpt-5 (terminus-2)',
  pass_at_1: 0.75,
  interval: {
    lower: 0.6,
    upper: 0.86,
    level: 0.95,
    method: 'wilson',
    effective_n: 100,
    icc: null,
    design_effect: 1,
  },
  pass_at_k: { k: 3, value: 0.9, tasks: 100 },
  per_task: { cost_usd: 0.02, time_ms: 12_000, tokens: 5000 },
  run_id: 'r1',
  run_name: 'bright-otter',
  run_finished_at: null,
  attempts_per_task: 3,
  task_set: 'full',
  tasks_scored: 100,
};

describe('benchmark shapes', () => {
  it('benchmark list items hold upstream’s _benchmark_list_resource keys, key = source_ref', () => {
    const item = benchmarkItem(benchmark);
    expect(missingKeys(item, BENCHMARK_LIST_ITEM_KEYS)).toEqual([]);
    expect(item).toMatchObject({
      key: 'hle',
      source_ref: 'hle',
      source_type: 'catalog',
      run_count: 3,
      running_count: 1,
      last_run_at: '2026-01-02T00:00:00.000Z',
      last_run_status: 'finished',
      last_run_name: 'bright-otter',
      creator_name: 'Ada',
    });
    for (const set of item.task_sets as object[]) expect(missingKeys(set, TASK_SET_KEYS)).toEqual([]);
    expect(benchmarkItem({ ...benchmark, last_run: null })).toMatchObject({
      last_run_at: null,
      last_run_status: null,
      last_run_name: null,
    });
  });

  it('a leaderboard entry has upstream’s pass_at_1 object, pass_at_k list and per-task metrics', () => {
    const item = leaderboardItem(entry);
    expect(missingKeys(item, LEADERBOARD_ENTRY_KEYS)).toEqual([]);
    expect(item.pass_at_1).toEqual({ value: 0.75, ci_low: 0.6, ci_high: 0.86, n: 100 });
    expect(missingKeys(item.pass_at_1, PASS_AT_1_KEYS)).toEqual([]);
    expect(item.pass_at_k).toEqual([{ k: 3, value: 0.9, tasks: 100 }]);
    expect(item).toMatchObject({ cost_per_task: 0.02, mean_duration_seconds: 12, tokens_per_task: 5000 });
    expect(leaderboardItem({ ...entry, interval: null, pass_at_k: null, pass_at_1: null })).toMatchObject({
      pass_at_1: { value: null, ci_low: null, ci_high: null },
      pass_at_k: [],
    });
  });

  it('benchmark info data is {benchmark, leaderboard, runs, runs_total_count} with upstream’s benchmark keys', () => {
    const detail: BenchmarkDetail = {
      ...benchmark,
      difficulty_counts: { easy: 0, medium: 0, hard: 0, none: 2 },
      unsupported_task_count: 1,
      tasks: [
        { name: 'a', category: 'math', unsupported_reason: null, parse_error: null },
        { name: 'b', category: 'math', unsupported_reason: 'gpus', parse_error: null },
      ] as unknown as BenchmarkDetail['tasks'],
      leaderboard: [entry],
      leaderboard_unranked: [],
      leaderboard_imported: [],
      runs: [],
    };
    const data = benchmarkInfoData(detail, { items: [run], total_count: 7 });
    expect(missingKeys(data, BENCHMARK_INFO_KEYS)).toEqual([]);
    expect(missingKeys(data.benchmark, BENCHMARK_INFO_BENCHMARK_KEYS)).toEqual([]);
    expect((data.benchmark as { categories: unknown }).categories).toEqual([{ name: 'math', task_count: 2 }]);
    expect((data.benchmark as { unavailable_tasks: unknown }).unavailable_tasks).toEqual([
      { name: 'b', reason: 'gpus' },
    ]);
    expect(data.runs_total_count).toBe(7);
    expect(missingKeys((data.runs as object[])[0], BENCHMARK_RUN_KEYS)).toEqual([]);
    expect(missingKeys((data.leaderboard as object[])[0], LEADERBOARD_ENTRY_KEYS)).toEqual([]);
  });
});

describe('run shapes', () => {
  it('a run holds the 15 keys of upstream’s golden serializer and progress {completed, total, unit}', () => {
    const item = runItem(run);
    expect(missingKeys(item, BENCHMARK_RUN_KEYS)).toEqual([]);
    expect(item).toMatchObject({
      ingested_results: 3,
      expected_results: 4,
      completed_at: null,
      creator_name: 'Ada',
      creator_email: 'ada@example.com',
    });
    expect(missingKeys(item.progress, PROGRESS_KEYS)).toEqual([]);
    expect(item.progress).toMatchObject({
      completed: 3,
      total: 4,
      unit: 'results',
      running: 1,
      fraction: 0.75,
    });
    expect(runProgress({ ...progress, done: 9 })).toMatchObject({ completed: 4 });
  });

  it('a log entry holds upstream’s keys', () => {
    const item = runLogsItem({
      id: '7',
      timestamp: '2026-01-02T00:00:00.000Z',
      level: 'info',
      step: 'queued',
      message: 'queued',
      details: null,
      attempt_id: null,
    });
    expect(missingKeys(item, LOG_ITEM_KEYS)).toEqual([]);
  });
});

describe('secret shapes', () => {
  it('a secret record holds upstream’s serialize_environment_secret keys, never a value', () => {
    const item = secretItem({
      id: 's1',
      name: 'OPENAI_API_KEY',
      scope: 'personal',
      owner: null,
      set_by: null,
      creator_name: 'Ada',
      updater_name: 'Ada',
      created_at: '2026-01-01T00:00:00.000Z',
      updated_at: '2026-01-01T00:00:00.000Z',
    });
    expect(missingKeys(item, SECRET_KEYS)).toEqual([]);
    expect(JSON.stringify(item)).not.toMatch(/"value"/);
  });
});
