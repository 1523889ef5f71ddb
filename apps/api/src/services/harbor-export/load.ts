// Reads what a Harbor export needs of one run: the run and its agents, every attempt with its
// task, usage, phase durations and steps, and its artifacts (the download's query, so an export
// holds the same files a download would).
import { AttemptSteps } from '@osmosis/contracts';
import { type ArtifactRow, type Db, runArtifacts } from '@osmosis/db';
import type { RunForResults } from '../run-results.ts';
import type { ExportAttempt, ExportRun } from './model.ts';

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

function numberMap(v: unknown): Record<string, number> | null {
  if (!isRecord(v)) return null;
  const out: Record<string, number> = {};
  for (const [k, n] of Object.entries(v)) if (typeof n === 'number' && Number.isFinite(n)) out[k] = n;
  return out;
}

export interface LoadedExport {
  run: ExportRun;
  attempts: ExportAttempt[];
  /** the run's artifacts by attempt id, as the download lists them */
  artifacts: Map<string, ArtifactRow[]>;
}

export async function loadExport(db: Db, found: RunForResults): Promise<LoadedExport> {
  const row = await db.run.findUniqueOrThrow({
    where: { id: found.id },
    include: { agents: { orderBy: { index: 'asc' } } },
  });
  const rows = await db.attempt.findMany({
    where: { runId: row.id },
    include: { task: { select: { name: true, digest: true } }, agent: { select: { index: true } } },
    orderBy: [{ createdAt: 'asc' }, { index: 'asc' }, { id: 'asc' }],
  });
  const artifacts = new Map<string, ArtifactRow[]>();
  for (const a of await runArtifacts(db, row.id)) {
    const list = artifacts.get(a.attempt_id) ?? [];
    list.push(a);
    artifacts.set(a.attempt_id, list);
  }
  const agentParams = (index: number): Record<string, unknown> => {
    const agents = isRecord(row.config) && Array.isArray(row.config.agents) ? row.config.agents : [];
    const params = (agents[index] as Record<string, unknown> | undefined)?.params;
    return isRecord(params) ? params : {};
  };
  const run: ExportRun = {
    id: row.id,
    name: row.name,
    status: row.status,
    benchmarkKey: found.benchmark.key,
    timeoutMultiplier: row.timeoutMultiplier,
    attemptsPerTask: row.attemptsPerTask,
    maxConcurrentAttempts: row.maxConcurrentAttempts,
    maxRetries: row.maxRetries,
    createdAt: row.createdAt,
    startedAt: row.startedAt,
    finishedAt: row.finishedAt,
    agents: row.agents.map((a) => ({
      index: a.index,
      harness: a.harness,
      modelType: a.modelType,
      model: a.model,
      params: agentParams(a.index),
    })),
    taskNames: [...new Set(rows.map((a) => a.task.name))].sort(),
  };
  const attempts: ExportAttempt[] = rows.map((a) => {
    const steps = AttemptSteps.safeParse(a.steps);
    const info = isRecord(a.harnessInfo) ? a.harnessInfo : null;
    return {
      id: a.id,
      agentIndex: a.agent.index,
      taskName: a.task.name,
      taskDigest: a.taskDigest ?? a.task.digest,
      index: a.index,
      tryCount: a.tryCount,
      status: a.status,
      outcome: a.outcome,
      reward: a.reward,
      rewards: numberMap(a.rewards),
      errorClass: a.errorClass,
      errorMessage: a.errorMessage,
      inputTokens: a.inputTokens,
      outputTokens: a.outputTokens,
      cacheTokens: a.cacheTokens,
      costUsd: a.costUsd,
      envMs: a.envMs,
      agentSetupMs: a.agentSetupMs,
      agentMs: a.agentMs,
      verifierMs: a.verifierMs,
      startedAt: a.startedAt,
      finishedAt: a.finishedAt,
      harnessVersion: typeof info?.version === 'string' ? info.version : null,
      steps: steps.success ? steps.data : null,
      artifactPaths: (artifacts.get(a.id) ?? []).map((x) => x.path),
    };
  });
  return { run, attempts, artifacts };
}
