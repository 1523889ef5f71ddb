import type { Benchmark, BenchmarkDetail } from '@osmosis/contracts';
import { describe, expect, it } from 'vitest';
import { NO_COLOR } from '../style.ts';
import { renderTable } from '../table.ts';
import { benchmarkColumns, renderBenchmarkInfo, syncText } from './benchmark-render.ts';

const base: Benchmark = {
  id: '00000000-0000-4000-8000-000000000001',
  key: 'terminal-bench-2-1',
  name: 'Terminal-Bench 2.1',
  description: null,
  source_kind: 'catalog',
  source: {
    catalog_key: 'terminal-bench-2-1',
    dataset: 'terminal-bench@2.1',
    registry_url: 'https://r/registry.json',
  },
  source_commit: null,
  source_url: 'https://github.com/laude-institute/terminal-bench-2',
  default_harness: 'terminus-2',
  harness_requirements: {},
  requires_judge_model: false,
  judge_model_default: null,
  judge_kind: null,
  pass_threshold: 1,
  required_secret_names: [],
  sync_status: 'ready',
  synced_task_count: 89,
  expected_task_count: 89,
  sync_error: null,
  task_count: 89,
  categories: ['security', 'software-engineering'],
  category_count: 2,
  task_sets: [],
  last_run: null,
  platform_url: 'http://127.0.0.1:8787/benchmarks/terminal-bench-2-1',
  created_at: '2026-01-01T00:00:00.000Z',
  updated_at: '2026-01-01T00:00:00.000Z',
  run_count: 0,
  running_count: 0,
  creator_name: null,
};

describe('benchmark list rows', () => {
  it('shows sync progress, failures and task counts', () => {
    const rows: Benchmark[] = [
      { ...base, sync_status: 'syncing', synced_task_count: 12, task_count: 12 },
      {
        ...base,
        key: 'hle',
        name: "Humanity's Last Exam",
        sync_status: 'failed',
        sync_error: 'task q1: boom',
      },
      { ...base, key: 'pending', name: 'Pending', sync_status: 'pending', expected_task_count: null },
      {
        ...base,
        key: 'sample',
        name: 'Osmosis Sample',
        task_count: 7,
        last_run: {
          id: 'r',
          name: 'bright-otter',
          status: 'finished',
          created_at: '2026-02-03T04:05:06.000Z',
        },
      },
    ];
    expect(renderTable(benchmarkColumns(), rows).split('\n')).toEqual([
      'Name                  Key                 Last Run                                                 Tasks',
      'Terminal-Bench 2.1    terminal-bench-2-1  Syncing · 12 / 89 tasks                                      –',
      "Humanity's Last Exam  hle                 Sync failed: task q1: boom                         unavailable",
      'Pending               pending             Waiting to sync                                              –',
      'Osmosis Sample        sample              bright-otter · finished · 2026-02-03 04:05:06 UTC            7',
    ]);
    expect(
      syncText({ ...base, sync_status: 'syncing', synced_task_count: 3, expected_task_count: null }),
    ).toBe('Syncing · 3 tasks');
    expect(syncText(base)).toBeNull();
  });
});

describe('benchmark info', () => {
  it('renders every field, then the leaderboard and runs sections', () => {
    const detail: BenchmarkDetail = {
      ...base,
      key: 'hle',
      name: "Humanity's Last Exam",
      source_kind: 'catalog',
      source: {
        catalog_key: 'hle',
        dataset: 'hle',
        resolved_version: '1.0',
        registry_url: 'https://r/registry.json',
      },
      requires_judge_model: true,
      judge_kind: 'hle',
      judge_model_default: 'openai/o3-mini',
      required_secret_names: ['HF_TOKEN'],
      harness_requirements: { network: 'needs Hugging Face' },
      task_sets: [
        { name: 'parity', task_count: 10, recommended: true, description: 'the validated subset' },
        { name: 'smoke', task_count: 1, recommended: false, description: null },
      ],
      difficulty_counts: { easy: 0, medium: 0, hard: 0, none: 89 },
      unsupported_task_count: 1,
      tasks: [],
      leaderboard: [],
      leaderboard_unranked: [],
      leaderboard_imported: [],
      runs: [
        {
          id: 'r1',
          name: 'bright-otter',
          status: 'running',
          created_at: '2026-02-03T04:05:06.000Z',
          finished_at: null,
          task_count: 10,
        },
      ],
      run_count: 1,
    };
    expect(renderBenchmarkInfo(detail, NO_COLOR, 10)).toBe(
      [
        'Key                   hle',
        "Name                  Humanity's Last Exam",
        'Description           –',
        'Source URL            https://github.com/laude-institute/terminal-bench-2',
        'Source                catalog hle: registry dataset hle → 1.0 from https://r/registry.json',
        'Sync                  ready · 89 tasks',
        'Tasks                 89 (easy 0, medium 0, hard 0, unrated 89); 1 not runnable',
        'Categories            2: security, software-engineering',
        'Task sets             parity (10 tasks, recommended): the validated subset; smoke (1 task)',
        'Default harness       terminus-2',
        'Harness requirements  network: needs Hugging Face',
        'Judge model           required (hle); default model openai/o3-mini',
        'Pass threshold        1',
        'Required secrets      HF_TOKEN',
        'Platform URL          http://127.0.0.1:8787/benchmarks/terminal-bench-2-1',
        '',
        'Leaderboard',
        'No leaderboard entries yet: runs on the full task set (or a recommended set) appear here.',
        '',
        'Runs',
        'Name          Status   Tasks  Created',
        'bright-otter  running     10  2026-02-03 04:05:06 UTC',
      ].join('\n'),
    );
  });

  it('says how many runs and entries are left out, and that --all shows them', () => {
    const run = (i: number) => ({
      id: `r${i}`,
      name: `run-${i}`,
      status: 'finished',
      created_at: `2026-02-0${i}T00:00:00.000Z`,
      finished_at: null,
      task_count: 3,
    });
    const entry = (i: number) => ({
      rank: i,
      tied: false,
      rank_label: `#${i}`,
      harness: 'oracle',
      model: `m${i}`,
      label: `m${i} (oracle)`,
      pass_at_1: 1 / i,
      interval: null,
      pass_at_k: null,
      per_task: { cost_usd: null, time_ms: null, tokens: null },
      run_id: `r${i}`,
      run_name: `run-${i}`,
      run_finished_at: null,
      attempts_per_task: 1,
      task_set: 'full',
      tasks_scored: 3,
      imported: false,
    });
    const detail: BenchmarkDetail = {
      ...base,
      difficulty_counts: { easy: 0, medium: 0, hard: 0, none: 89 },
      unsupported_task_count: 0,
      tasks: [],
      leaderboard: [1, 2, 3].map(entry),
      leaderboard_unranked: [],
      leaderboard_imported: [],
      // the API sent the newest 3 of 25 runs
      runs: [1, 2, 3].map(run),
      run_count: 25,
    };
    const text = renderBenchmarkInfo(detail, NO_COLOR, 2);
    const [board, runs] = (text.split('\nLeaderboard\n')[1] ?? '').split('\nRuns\n');
    expect(board?.trimEnd().split('\n').slice(1)).toEqual([
      expect.stringMatching(/^#1\s+m1 \(oracle\)/),
      expect.stringMatching(/^#2\s+m2 \(oracle\)/),
      'showing 2 of 3; --all for every entry',
    ]);
    expect(runs?.split('\n').slice(1)).toEqual([
      expect.stringMatching(/^run-1\s/),
      expect.stringMatching(/^run-2\s/),
      'showing 2 of 25; --all for every run',
    ]);
    // --all (limit null) with every run fetched: no note
    const all = renderBenchmarkInfo(
      { ...detail, runs: Array.from({ length: 25 }, (_, i) => run(i + 1)) },
      NO_COLOR,
      null,
    );
    expect(all).not.toContain('showing');
    expect(all.match(/^run-\d+ /gm)).toHaveLength(25);
  });

  it("shows a git benchmark's ref and the commit its sync checked out", () => {
    const detail: BenchmarkDetail = {
      ...base,
      key: 'mine',
      source_kind: 'git',
      source: { url: 'https://example.test/r.git', ref: 'main', path: 'tasks' },
      source_url: null,
      source_commit: '0123456789abcdef0123456789abcdef01234567',
      difficulty_counts: { easy: 0, medium: 0, hard: 0, none: 89 },
      unsupported_task_count: 0,
      tasks: [],
      leaderboard: [],
      leaderboard_unranked: [],
      leaderboard_imported: [],
      runs: [],
      run_count: 0,
    };
    const source = (b: BenchmarkDetail) =>
      renderBenchmarkInfo(b, NO_COLOR, 10)
        .split('\n')
        .find((l) => l.startsWith('Source  '));
    expect(source(detail)).toBe(
      'Source                git https://example.test/r.git @ main (tasks), synced at commit 0123456789abcdef0123456789abcdef01234567',
    );
    expect(source({ ...detail, source_commit: null })).toBe(
      'Source                git https://example.test/r.git @ main (tasks)',
    );
  });
});
