// Importing a Harbor job directory (extracted at `root`) as a run of the workspace: read as
// hostile input (harbor-job-read.ts), matched to a benchmark and its tasks
// (run-import-match.ts), then written in one transaction as a finished run marked imported,
// with one agent per (Harbor agent, model) and one finished attempt per trial. The queue never
// sees it. Each trial's files (logs, the ATIF trajectory at agent/trajectory.json, the verifier's
// output, result.json) are stored as the attempt's artifacts, under the paths Harbor gave them.
import { createReadStream } from 'node:fs';
import type { RunImportInfo, RunImportQuery, RunImportResult } from '@osmosis/contracts';
import { randomRunBaseName, uniqueRunName } from '@osmosis/core';
import { appendRunEvents, type Db } from '@osmosis/db';
import { type ArtifactStorage, encodeKeyName } from '@osmosis/storage';
import { mapLimit } from '@osmosis/tasks';
import { ApiError } from '../errors.ts';
import { isUniqueViolation } from './db-errors.ts';
import { readHarborJob } from './harbor-job-read.ts';
import { trialAgent, trialAttempt } from './harbor-trial-attempt.ts';
import { CHECKSUM_NOTE, importBenchmark, type MatchedTrial, matchTrials } from './run-import-match.ts';
import { runPlatformUrl } from './run-list.ts';

export interface ImportDeps {
  db: Db;
  storage: ArtifactStorage;
  publicUrl: string;
}

interface PlannedAttempt {
  matched: MatchedTrial;
  agentIndex: number;
  index: number;
}

/** Agents in order of first appearance; attempts numbered per (agent, task) in trial order. */
function plan(matched: MatchedTrial[]) {
  const agents: { harness: string; model: string }[] = [];
  const agentIndex = new Map<string, number>();
  const counts = new Map<string, number>();
  const attempts: PlannedAttempt[] = [];
  const ordered = [...matched].sort(
    (a, b) =>
      (a.trial.result.started_at ?? '').localeCompare(b.trial.result.started_at ?? '') ||
      a.trial.folder.localeCompare(b.trial.folder),
  );
  for (const m of ordered) {
    const agent = trialAgent(m.trial.result);
    const key = `${agent.harness}\u0000${agent.model}`;
    if (!agentIndex.has(key)) {
      agentIndex.set(key, agents.length);
      agents.push(agent);
    }
    const a = agentIndex.get(key)!;
    const slot = `${a}\u0000${m.taskId}`;
    const index = counts.get(slot) ?? 0;
    counts.set(slot, index + 1);
    attempts.push({ matched: m, agentIndex: a, index });
  }
  return { agents, attempts, attemptsPerTask: Math.max(1, ...counts.values()) };
}

async function freeName(db: Db, workspaceId: string, wanted: string | undefined): Promise<string> {
  if (wanted) {
    const taken = await db.run.findFirst({ where: { workspaceId, name: wanted }, select: { id: true } });
    if (taken) throw ApiError.conflict(`a run named ${wanted} already exists; choose another --name`);
    return wanted;
  }
  const base = randomRunBaseName();
  const taken = await db.run.findMany({
    where: { workspaceId, name: { startsWith: base } },
    select: { name: true },
  });
  return uniqueRunName(
    base,
    taken.map((r) => r.name),
  );
}

/** The run's tasks (the whole benchmark, or a sample of named tasks the leaderboard leaves out) and span. */
async function runShape(db: Db, benchmarkId: string, matched: MatchedTrial[]) {
  const taskCount = new Set(matched.map((m) => m.taskId)).size;
  const benchmarkTasks = await db.task.count({ where: { benchmarkId } });
  const taskNames = [...new Set(matched.map((m) => m.taskName))].sort();
  const selection =
    taskCount === benchmarkTasks ? { full_set: true } : { full_set: false, task_names: taskNames };
  const times = (pick: (r: MatchedTrial['trial']['result']) => string | null | undefined) =>
    matched
      .map((m) => pick(m.trial.result))
      .filter((s): s is string => !!s)
      .map((s) => Date.parse(s))
      .sort((a, b) => a - b);
  const started = times((r) => r.started_at);
  const finished = times((r) => r.finished_at);
  return {
    taskCount,
    selection,
    startedAt: new Date(started[0] ?? Date.now()),
    finishedAt: new Date(finished.at(-1) ?? Date.now()),
  };
}

export async function importHarborJob(
  deps: ImportDeps,
  caller: { workspaceId: string; userId: string; email: string },
  root: string,
  query: RunImportQuery,
): Promise<RunImportResult> {
  const { db } = deps;
  const job = await readHarborJob(root);
  const benchmark = await importBenchmark(db, caller.workspaceId, query.benchmark, job.trials);
  const { matched, mismatches } = await matchTrials(db, benchmark, job.trials);
  if (matched.length === 0)
    throw ApiError.validation(
      `none of the job’s ${job.trials.length} trials ran a task of benchmark ${benchmark.key}: ${mismatches[0]?.reason ?? ''}`,
      [{ path: 'query.benchmark', message: 'no trial matches' }],
    );
  const planned = plan(matched);
  const info: RunImportInfo = {
    source: 'harbor',
    job_name: job.jobName,
    job_id: job.jobId,
    matched_by: 'name',
    trials: job.trials.length + job.skipped.length,
    imported_attempts: planned.attempts.length,
    mismatches: [...job.skipped, ...mismatches],
  };
  const name = await freeName(db, caller.workspaceId, query.name);
  const { taskCount, selection, startedAt, finishedAt } = await runShape(db, benchmark.id, matched);
  let run: { id: string };
  try {
    run = await db.$transaction(
      async (tx) => {
        const created = await tx.run.create({
          data: {
            workspaceId: caller.workspaceId,
            benchmarkId: benchmark.id,
            name,
            status: 'finished',
            configToml: '',
            config: { imported: 'harbor', job: job.config ?? null } as object,
            selection,
            taskCount,
            attemptsPerTask: planned.attemptsPerTask,
            maxConcurrentAttempts: 1,
            timeoutMultiplier: job.config?.timeout_multiplier ?? 1,
            maxRetries: 0,
            passThreshold: benchmark.passThreshold,
            createdById: caller.userId,
            startedAt,
            finishedAt,
            imported: true,
            importInfo: info as object,
          },
          select: { id: true },
        });
        const agentIds: string[] = [];
        for (const [index, agent] of planned.agents.entries()) {
          const row = await tx.runAgent.create({
            data: {
              runId: created.id,
              index,
              harness: agent.harness,
              modelType: agent.model === 'none' ? 'none' : 'provider',
              model: agent.model,
              spec: { imported: true },
            },
            select: { id: true },
          });
          agentIds.push(row.id);
        }
        await tx.attempt.createMany({
          data: planned.attempts.map((p) => {
            const a = trialAttempt(p.matched.trial.result, benchmark.passThreshold);
            return {
              runId: created.id,
              agentId: agentIds[p.agentIndex]!,
              taskId: p.matched.taskId,
              index: p.index,
              tryCount: 1,
              status: 'finished' as const,
              ...a,
              rewards: a.rewards ?? undefined,
            };
          }),
        });
        await appendRunEvents(tx, [
          {
            runId: created.id,
            level: 'info',
            step: 'run.imported',
            message: `run imported by ${caller.email} from Harbor job ${job.jobName ?? job.jobId ?? '(unnamed)'}: ${planned.attempts.length} attempts of ${taskCount} tasks${info.mismatches.length ? `, ${info.mismatches.length} trials not imported` : ''}`,
            details: { job_name: job.jobName, job_id: job.jobId, mismatches: info.mismatches.length },
          },
        ]);
        return created;
      },
      { timeout: 120_000, maxWait: 10_000 },
    );
  } catch (error) {
    if (isUniqueViolation(error))
      throw ApiError.conflict(`a run named ${name} already exists; choose another --name`);
    throw error;
  }
  try {
    await storeTrialFiles(deps, run.id, planned.attempts);
  } catch (error) {
    await db.run.delete({ where: { id: run.id } }).catch(() => undefined);
    throw error;
  }
  return {
    ...info,
    run_id: run.id,
    run_name: name,
    benchmark_key: benchmark.key,
    platform_url: runPlatformUrl(deps.publicUrl, name),
    checksum_note: CHECKSUM_NOTE,
  };
}

/** Each trial's files as its attempt's artifacts (`runs/<run>/attempts/<attempt>/imported/…`). */
async function storeTrialFiles(deps: ImportDeps, runId: string, attempts: PlannedAttempt[]): Promise<void> {
  const rows = await deps.db.attempt.findMany({
    where: { runId },
    select: { id: true, index: true, taskId: true, agent: { select: { index: true } } },
  });
  const idOf = new Map(rows.map((r) => [`${r.agent.index}\u0000${r.taskId}\u0000${r.index}`, r.id]));
  const files = attempts.flatMap((p) => {
    const attemptId = idOf.get(`${p.agentIndex}\u0000${p.matched.taskId}\u0000${p.index}`)!;
    return p.matched.trial.files.map((f) => ({ attemptId, file: f }));
  });
  const stored = await mapLimit(files, 8, async ({ attemptId, file }) => {
    const storageKey = `runs/${runId}/attempts/${attemptId}/imported/${encodeKeyName(file.path)}`;
    const put = await deps.storage.put(storageKey, createReadStream(file.abs));
    return { attemptId, path: file.path, size: put.size, storageKey };
  });
  for (let at = 0; at < stored.length; at += 1000)
    await deps.db.artifact.createMany({ data: stored.slice(at, at + 1000) });
}
