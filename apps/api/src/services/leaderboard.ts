// A benchmark's leaderboard (GET /v1/benchmarks/:key/leaderboard, `benchmark info`, the benchmark
// and quality pages): one entry per (harness, model) from its most recent qualifying run, ranked
// by pass@1; newer runs over the errored-share limit listed as unranked with the reason.
//
//   computeLeaderboard(db, benchmark, {maxErroredShare, comparableOnly, includeImported}) → Leaderboard
//   findBenchmark(db, workspaceId, key | name | id)                      → {id, key} | null
import type { Leaderboard, LeaderboardEntry } from '@osmosis/contracts';
import {
  agentLabel,
  DEFAULT_RANKED_MAX_ERRORED_SHARE,
  emptyUsageSums,
  perTaskUsage,
  rankAgents,
  scoreAgent,
  unrankedReason,
} from '@osmosis/core';
import {
  agentAggregates,
  type Db,
  type LeaderboardCandidate,
  leaderboardCandidates,
  unrankedCandidates,
} from '@osmosis/db';
import { isUuid } from '../auth.ts';
import { candidatesComparability } from './quality.ts';

export const LEADERBOARD_SELECTION_RULE =
  'one entry per (harness, model): its most recent finished run on the full task set or a recommended task set whose errored share is within the limit';

type Column = Leaderboard['columns'][number];

/** Scored and ranked entries of `candidates` (one ranking among them alone). */
async function rankedEntries(
  db: Db,
  benchmarkId: string,
  all: LeaderboardCandidate[],
  comparableOnly: boolean,
  imported: boolean,
): Promise<{ entries: LeaderboardEntry[]; candidates: LeaderboardCandidate[] }> {
  const comparability = await candidatesComparability(db, benchmarkId, all);
  const candidates = comparableOnly ? all.filter((c) => comparability.get(c.agent_id)?.comparable) : all;
  const aggregates = await agentAggregates(db, {
    runIds: [...new Set(candidates.map((c) => c.run_id))],
    agentIds: candidates.map((c) => c.agent_id),
  });
  const scored = candidates.map((c) => {
    const agg = aggregates.get(c.agent_id);
    const score = scoreAgent(agg?.buckets ?? [], c.attempts_per_task);
    const usage = perTaskUsage(agg?.scored_usage ?? emptyUsageSums(), c.harness);
    return { c, score, usage };
  });
  const ranks = rankAgents(scored.map((s) => s.score));
  const entries: LeaderboardEntry[] = scored.map(({ c, score, usage }, i) => ({
    ...(ranks[i] as (typeof ranks)[number]),
    harness: c.harness,
    model: c.model,
    label: agentLabel(c.model, c.harness),
    pass_at_1: score.pass_at_1,
    interval: score.interval,
    pass_at_k: score.deepest,
    per_task: usage,
    run_id: c.run_id,
    run_name: c.run_name,
    run_finished_at: c.finished_at ? c.finished_at.toISOString() : null,
    attempts_per_task: c.attempts_per_task,
    task_set: c.task_set,
    tasks_scored: score.tasks_scored,
    comparability: comparability.get(c.agent_id) ?? null,
    imported,
  }));
  entries.sort(
    (a, b) =>
      (a.rank ?? Number.MAX_SAFE_INTEGER) - (b.rank ?? Number.MAX_SAFE_INTEGER) ||
      a.label.localeCompare(b.label),
  );
  return { entries, candidates };
}

/**
 * `includeImported`: imported runs (read from Harbor job directories) are ranked too, among
 * themselves, in `imported_entries`; they never displace or outrank a run made here.
 */
export async function computeLeaderboard(
  db: Db,
  benchmark: { id: string; key: string },
  options: { comparableOnly?: boolean; maxErroredShare?: number; includeImported?: boolean } = {},
): Promise<Leaderboard> {
  const maxErroredShare = options.maxErroredShare ?? DEFAULT_RANKED_MAX_ERRORED_SHARE;
  const comparableOnly = options.comparableOnly ?? false;
  const [all, overLimit, importedAll] = await Promise.all([
    leaderboardCandidates(db, benchmark.id, maxErroredShare),
    unrankedCandidates(db, benchmark.id, maxErroredShare),
    options.includeImported ? leaderboardCandidates(db, benchmark.id, maxErroredShare, true) : [],
  ]);
  const { entries, candidates } = await rankedEntries(db, benchmark.id, all, comparableOnly, false);
  const imported = await rankedEntries(db, benchmark.id, importedAll, comparableOnly, true);
  const shown = [...entries, ...imported.entries];
  const columns: Column[] = ['rank', 'agent', 'pass_at_1'];
  if (shown.some((e) => e.pass_at_k && e.pass_at_k.k > 1 && e.pass_at_k.value !== null))
    columns.push('pass_at_k');
  if (shown.some((e) => e.per_task.cost_usd !== null)) columns.push('cost_per_task');
  if (shown.some((e) => e.per_task.time_ms !== null)) columns.push('time_per_task');
  if (shown.some((e) => e.per_task.tokens !== null)) columns.push('tokens_per_task');
  // an over-the-limit run is worth naming only when it is newer than what is ranked for its pair
  const ranked = new Map(
    candidates.map((c) => [`${c.harness}\u0000${c.model}`, c.finished_at?.getTime() ?? 0]),
  );
  const unranked = overLimit
    .filter((u) => (u.finished_at?.getTime() ?? 0) > (ranked.get(`${u.harness}\u0000${u.model}`) ?? -1))
    .map((u) => ({
      harness: u.harness,
      model: u.model,
      label: agentLabel(u.model, u.harness),
      run_id: u.run_id,
      run_name: u.run_name,
      run_finished_at: u.finished_at ? u.finished_at.toISOString() : null,
      errored_share: u.errored / u.scored,
      reason:
        unrankedReason(
          'finished',
          { passed: u.scored - u.errored, failed: 0, errored: u.errored },
          maxErroredShare,
        ) ?? '',
    }));
  return {
    benchmark_id: benchmark.id,
    benchmark_key: benchmark.key,
    selection_rule: LEADERBOARD_SELECTION_RULE,
    columns,
    entries,
    imported_entries: imported.entries,
    max_errored_share: maxErroredShare,
    unranked,
  };
}

/** A benchmark of the workspace by key, exact name or id. */
export async function findBenchmark(
  db: Db,
  workspaceId: string,
  ref: string,
): Promise<{ id: string; key: string } | null> {
  const or: { key?: string; name?: string; id?: string }[] = [{ key: ref }, { name: ref }];
  if (isUuid(ref)) or.push({ id: ref });
  return db.benchmark.findFirst({ where: { workspaceId, OR: or }, select: { id: true, key: true } });
}
