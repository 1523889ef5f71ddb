// A run's lock as read (contracts' RunLock): the record stored at submit (runs.lock) completed with
// what its attempts resolved so far (the image digests the run pinned, the harness versions,
// template digests and CLI versions its attempts reported, the judge prompts its attempts were
// graded with), and the fingerprint over the fields
// that count (core's lockFingerprint). The export to Harbor's format calls runLockFor too.
import {
  HarnessInfo,
  isActiveRunStatus,
  type RunLock,
  type RunLockHarnessRun,
  RunLockRecord,
} from '@osmosis/contracts';
import { canonicalJson, lockFingerprint } from '@osmosis/core';
import type { Db } from '@osmosis/db';
import { ApiError } from '../errors.ts';
import { runNotFound } from './not-found.ts';

function harnessRun(info: HarnessInfo): RunLockHarnessRun {
  return {
    version: info.version,
    reference: info.reference
      ? `${info.reference.project}@${info.reference.version}:${info.reference.commit}`
      : null,
    templates: info.templates
      ? { kind: info.templates.kind, digest: info.templates.digest, files: info.templates.files }
      : null,
    tools: Object.fromEntries((info.tools ?? []).map((t) => [t.name, t.version])),
    max_turns: info.max_turns,
    summarize_threshold_tokens: info.summarize_threshold_tokens,
  };
}

/** The distinct harness setups per agent index its attempts reported. */
async function harnessRuns(db: Db, runId: string): Promise<Map<number, RunLockHarnessRun[]>> {
  const rows = await db.agentHarnessInfo.findMany({
    where: { runId, n: { gt: 0 } },
    select: { info: true, agent: { select: { index: true } } },
  });
  const byAgent = new Map<number, Map<string, RunLockHarnessRun>>();
  for (const row of rows) {
    const parsed = HarnessInfo.safeParse(row.info);
    if (!parsed.success) continue;
    const run = harnessRun(parsed.data);
    const seen = byAgent.get(row.agent.index) ?? new Map<string, RunLockHarnessRun>();
    seen.set(canonicalJson(run), run);
    byAgent.set(row.agent.index, seen);
  }
  return new Map(
    [...byAgent].map(([i, m]) => [
      i,
      [...m.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([, r]) => r),
    ]),
  );
}

/**
 * The registry images the run pinned (run_image_pins: every attempt got exactly these digests).
 * Built images are not listed: a task's env_digest is its image's identity. Read from the pins
 * alone, never the run's attempts, so a lock costs the same at 300,000 attempts.
 */
async function runImages(db: Db, runId: string): Promise<RunLock['images']> {
  return db.runImagePin.findMany({
    where: { runId },
    select: { reference: true, digest: true },
    orderBy: { reference: 'asc' },
  });
}

/**
 * The judge prompts the run's attempts were graded with (run_judge_templates, recorded by the
 * worker), with any the record names, sorted: a few rows, never the run's attempts.
 */
async function judgeTemplates(db: Db, runId: string, recorded: readonly string[]): Promise<string[]> {
  const rows = await db.runJudgeTemplate.findMany({ where: { runId }, select: { template: true } });
  return [...new Set([...recorded, ...rows.map((r) => r.template)])].sort();
}

/** The run's lock, or null when there is no such run or it was submitted before locks were kept. */
export async function runLockFor(db: Db, runId: string): Promise<RunLock | null> {
  const run = await db.run.findUnique({
    where: { id: runId },
    select: { id: true, name: true, status: true, createdAt: true, lock: true },
  });
  if (!run || run.lock === null) return null;
  const record = RunLockRecord.parse(run.lock);
  const [images, runs, templates, open] = await Promise.all([
    runImages(db, runId),
    harnessRuns(db, runId),
    judgeTemplates(db, runId, record.judge.template_digests),
    db.attempt.count({ where: { runId, status: { in: ['queued', 'running'] } } }),
  ]);
  const lock: Omit<RunLock, 'fingerprint'> = {
    ...record,
    run: { id: run.id, name: run.name, created_at: run.createdAt.toISOString(), status: run.status },
    images,
    agents: record.agents.map((a) => ({ ...a, runs: runs.get(a.index) ?? [] })),
    judge: { ...record.judge, template_digests: templates },
    complete: open === 0 && !isActiveRunStatus(run.status),
  };
  return { ...lock, fingerprint: lockFingerprint(lock) };
}

/** The lock of the workspace's run `name`: 404 for no such run, 409 for a run older than locks. */
export async function runLockByName(db: Db, workspaceId: string, name: string): Promise<RunLock> {
  const run = await db.run.findUnique({
    where: { workspaceId_name: { workspaceId, name } },
    select: { id: true },
  });
  if (!run) throw await runNotFound(db, workspaceId, name);
  const lock = await runLockFor(db, run.id);
  if (!lock) {
    throw new ApiError(
      'CONFLICT',
      `run ${name} has no lock: it was submitted before the platform kept locks; submit it again to get one`,
    );
  }
  return lock;
}
