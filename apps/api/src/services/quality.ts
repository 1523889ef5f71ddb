// The scores beside pass@1 for a run's agents and the leaderboard (docs/terminus-2.md,
// docs/scores.md): "comparable with published terminus-2 scores" and why not, HLE's calibration
// error, and the mean rubric score of partial-credit judges. Pure scorers from @osmosis/core over
// rows from @osmosis/db.
import { type AgentQuality, type Comparability, HarnessInfo, type RunResults } from '@osmosis/contracts';
import { calibrationBeta, calibrationError, meanTaskScore, terminus2Comparability } from '@osmosis/core';
import { type AgentQualityNeeds, type AgentQualityRows, agentQualityRows, type Db } from '@osmosis/db';

interface BenchmarkFacts {
  defaultHarness: string;
  judgeKind: string | null;
}

const parseInfo = (v: unknown) => {
  const parsed = HarnessInfo.safeParse(v);
  return parsed.success ? parsed.data : null;
};

function comparabilityOf(
  benchmark: BenchmarkFacts,
  harness: string,
  rows: AgentQualityRows | undefined,
): Comparability | null {
  return terminus2Comparability({
    benchmarkDefaultHarness: benchmark.defaultHarness,
    judgeKind: benchmark.judgeKind,
    harness,
    infos: (rows?.infos ?? []).map((i) => ({
      info: i.info === null ? null : parseInfo(i.info),
      attempts: i.attempts,
    })),
  });
}

/** The inputs qualityOf reads for this benchmark (comparability's rule asked with no infos). */
function needsOf(benchmark: BenchmarkFacts): AgentQualityNeeds {
  return {
    infos: comparabilityOf(benchmark, 'terminus-2', undefined) !== null,
    confidences: benchmark.judgeKind === 'hle',
    tasks: benchmark.judgeKind === 'gdpval',
  };
}

function qualityOf(
  benchmark: BenchmarkFacts,
  taskSet: string | null,
  harness: string,
  rows: AgentQualityRows | undefined,
): AgentQuality {
  const quality: AgentQuality = { comparability: comparabilityOf(benchmark, harness, rows) };
  if (benchmark.judgeKind === 'hle') {
    const beta = calibrationBeta(taskSet);
    const points = rows?.confidences ?? [];
    quality.calibration_error = { value: calibrationError(points, beta), beta, n: points.length };
    quality.grader = 'reference';
  }
  if (benchmark.judgeKind === 'gdpval') {
    quality.mean_score = meanTaskScore(rows?.tasks ?? []);
    quality.grader = 'platform';
  }
  return quality;
}

/** The run's results with each agent's comparability, calibration error and mean score added. */
export async function withQuality(
  db: Db,
  run: { id: string },
  results: RunResults,
  asOf: Date | null,
): Promise<RunResults> {
  const facts = await db.run.findUnique({
    where: { id: run.id },
    select: { selection: true, benchmark: { select: { defaultHarness: true, judgeKind: true } } },
  });
  if (!facts) return results;
  const taskSet = (facts.selection as { task_set?: unknown } | null)?.task_set;
  const rows = await agentQualityRows(db, { runIds: [run.id], asOf, need: needsOf(facts.benchmark) });
  return {
    ...results,
    agents: results.agents.map((a) => ({
      ...a,
      ...qualityOf(
        facts.benchmark,
        typeof taskSet === 'string' ? taskSet : null,
        a.harness,
        rows.get(a.agent_id),
      ),
    })),
  };
}

/** Comparability of leaderboard candidates (agent ids of their runs). */
export async function candidatesComparability(
  db: Db,
  benchmarkId: string,
  candidates: { agent_id: string; run_id: string; harness: string }[],
): Promise<Map<string, Comparability | null>> {
  const out = new Map<string, Comparability | null>();
  const benchmark = await db.benchmark.findUnique({
    where: { id: benchmarkId },
    select: { defaultHarness: true, judgeKind: true },
  });
  if (!benchmark || candidates.length === 0) return out;
  const rows = await agentQualityRows(db, {
    runIds: [...new Set(candidates.map((c) => c.run_id))],
    agentIds: candidates.map((c) => c.agent_id),
    need: { ...needsOf(benchmark), confidences: false, tasks: false },
  });
  for (const c of candidates)
    out.set(c.agent_id, comparabilityOf(benchmark, c.harness, rows.get(c.agent_id)));
  return out;
}
