// `[execution] reuse_from = "RUN"` (or `--reuse-from RUN`): the new run takes over the finished,
// scored attempts (passed or failed) of an earlier run of the same workspace and benchmark whose
// task+agent fingerprint (core's taskAgentFingerprint) matches, attempt index for attempt index,
// and queues only the rest. Refused: a run of another workspace (not found), a run still going on
// (409), another benchmark or no task+agent that matches (400 naming the differing fields).
import {
  isActiveRunStatus,
  type RunLockRecord,
  RunLockRecord as RunLockRecordSchema,
} from '@osmosis/contracts';
import { diffFields, taskAgentFields, taskAgentFingerprint } from '@osmosis/core';
import type { Db } from '@osmosis/db';
import { ApiError } from '../errors.ts';
import { runNotFound } from './not-found.ts';
import type { Prepared } from './submit-prepare.ts';

export interface ReusePlan {
  sourceRunId: string;
  sourceName: string;
  /** `${agentIndex}/${taskId}/${index}` of the new run → the earlier attempt's id */
  attempts: Map<string, string>;
  /** agent index → how many of its attempts are taken over */
  perAgent: Map<number, number>;
}

export const reuseKey = (agentIndex: number, taskId: string, index: number) =>
  `${agentIndex}/${taskId}/${index}`;

/** At most this many differing fields are named in a refusal. */
const MAX_NAMED_FIELDS = 20;

function refuse(fileName: string, message: string, differing: string[] = []): ApiError {
  const issue = { code: 'REUSE_NOT_MATCHING' as const, path: 'execution.reuse_from', message };
  return new ApiError('INVALID_CONFIG', `${fileName}: ${message}`, {
    file_name: fileName,
    issues: [issue],
    differing_fields: differing,
  });
}

/** The (task, agent) pairs whose fingerprints match, or a refusal naming what differs. */
function matchingPairs(fileName: string, name: string, before: RunLockRecord, now: RunLockRecord) {
  const matched = new Set<string>();
  const differing = new Set<string>();
  for (const task of now.tasks) {
    for (const agent of now.agents) {
      const key = `${agent.index}/${task.name}`;
      const was = taskAgentFingerprint(before, task.name, agent.index);
      if (was !== null && was === taskAgentFingerprint(now, task.name, agent.index)) {
        matched.add(key);
        continue;
      }
      const a = taskAgentFields(before, task.name, agent.index);
      if (!a)
        differing.add(
          before.agents.some((x) => x.index === agent.index) ? `tasks.${task.name}` : `agents.${agent.index}`,
        );
      else
        for (const f of diffFields(a, taskAgentFields(now, task.name, agent.index)))
          differing.add(
            f.replace(/^task\./, `tasks.${task.name}.`).replace(/^agent\./, `agents.${agent.index}.`),
          );
    }
  }
  if (matched.size === 0) {
    const named = [...differing].sort().slice(0, MAX_NAMED_FIELDS);
    throw refuse(
      fileName,
      `reuse_from = "${name}": no task and agent of this run matches run ${name} (differing: ${named.join(', ')}); make the config match it, or leave reuse_from out`,
      named,
    );
  }
  return matched;
}

/** What the new run takes over from `name`, checked as the module header says. */
export async function planReuse(
  db: Db,
  workspaceId: string,
  name: string,
  prepared: Prepared,
  record: RunLockRecord,
  fileName: string,
): Promise<ReusePlan> {
  const source = await db.run.findUnique({
    where: { workspaceId_name: { workspaceId, name } },
    select: { id: true, name: true, status: true, benchmarkId: true, lock: true },
  });
  if (!source) throw await runNotFound(db, workspaceId, name);
  if (isActiveRunStatus(source.status)) {
    throw ApiError.conflict(
      `reuse_from = "${name}": run ${name} is ${source.status}; only an ended run's attempts can be taken over — wait until it ends or stop it (osmosis benchmark runs stop ${name})`,
      { status: source.status },
    );
  }
  if (source.benchmarkId !== prepared.benchmark.id) {
    throw refuse(
      fileName,
      `reuse_from = "${name}": run ${name} is of another benchmark than ${prepared.benchmark.key}; only a run of the same benchmark can be reused`,
      ['benchmark'],
    );
  }
  if (source.lock === null) {
    throw ApiError.conflict(
      `reuse_from = "${name}": run ${name} has no lock (it was submitted before the platform kept locks), so its attempts cannot be matched; leave reuse_from out`,
    );
  }
  const matched = matchingPairs(fileName, name, RunLockRecordSchema.parse(source.lock), record);
  const taskIds = new Map(prepared.resolved.selection.tasks.map((t) => [t.name, t.id]));
  const scored = await db.attempt.findMany({
    where: { runId: source.id, status: 'finished', outcome: { in: ['passed', 'failed'] } },
    select: { id: true, index: true, agent: { select: { index: true } }, task: { select: { name: true } } },
  });
  const attempts = new Map<string, string>();
  const perAgent = new Map<number, number>();
  for (const a of scored) {
    const taskId = taskIds.get(a.task.name);
    if (!taskId || a.index >= record.execution.attempts_per_task) continue;
    if (!matched.has(`${a.agent.index}/${a.task.name}`)) continue;
    attempts.set(reuseKey(a.agent.index, taskId, a.index), a.id);
    perAgent.set(a.agent.index, (perAgent.get(a.agent.index) ?? 0) + 1);
  }
  return { sourceRunId: source.id, sourceName: source.name, attempts, perAgent };
}

/** Result columns of an attempt that a reused copy takes over as they are. */
const RESULT_COLUMNS = [
  'try_count',
  'status',
  'outcome',
  'reward',
  'rewards',
  'error_class',
  'error_message',
  'cost_usd',
  'input_tokens',
  'output_tokens',
  'cache_tokens',
  'judge_cost_usd',
  'judge_input_tokens',
  'judge_output_tokens',
  'env_ms',
  'agent_setup_ms',
  'agent_ms',
  'verifier_ms',
  'agent_exit_code',
  'agent_timed_out',
  'harness_info',
  'image_info',
  'steps',
  'history',
  'started_at',
  'finished_at',
] as const;

type Tx = Parameters<Parameters<Db['$transaction']>[0]>[0];

/**
 * Writes the reused attempts of the new run `runId` (copies of the earlier results, marked with
 * reused_from_attempt_id) and gives the run the earlier run's image pins, so the attempts it
 * still runs get the very images the reused ones ran with, and its judge templates (the reused
 * attempts were graded with them).
 */
export async function writeReusedAttempts(tx: Tx, runId: string, agentIds: string[], plan: ReusePlan) {
  const oldIds: string[] = [];
  const newAgents: string[] = [];
  const newTasks: string[] = [];
  for (const [key, oldId] of plan.attempts) {
    const [agentIndex, taskId] = key.split('/');
    oldIds.push(oldId);
    newAgents.push(agentIds[Number(agentIndex)]!);
    newTasks.push(taskId!);
  }
  if (oldIds.length > 0) {
    const cols = RESULT_COLUMNS.join(', ');
    const from = RESULT_COLUMNS.map((c) => `a.${c}`).join(', ');
    await tx.$executeRawUnsafe(
      `INSERT INTO attempts (id, run_id, agent_id, task_id, "index", ${cols}, reused_from_attempt_id)
       SELECT gen_random_uuid(), $1::uuid, m.agent_id, m.task_id, a."index", ${from}, a.id
       FROM unnest($2::uuid[], $3::uuid[], $4::uuid[]) AS m(old_id, agent_id, task_id)
       JOIN attempts a ON a.id = m.old_id`,
      runId,
      oldIds,
      newAgents,
      newTasks,
    );
  }
  await copyImagePins(tx, plan.sourceRunId, runId);
  if (oldIds.length > 0) await copyJudgeTemplates(tx, plan.sourceRunId, runId);
}

/**
 * Gives `toRunId` the judge prompts `fromRunId` was graded with: its reused attempts were judged
 * with them (all of the earlier run's are listed: which attempt used which is not kept).
 */
async function copyJudgeTemplates(tx: Tx, fromRunId: string, toRunId: string): Promise<void> {
  await tx.$executeRaw`
    INSERT INTO run_judge_templates (run_id, template)
    SELECT ${toRunId}::uuid, template FROM run_judge_templates WHERE run_id = ${fromRunId}::uuid
    ON CONFLICT (run_id, template) DO NOTHING`;
}

/** Gives `toRunId` the image pins of `fromRunId` (its attempts then get exactly those digests). */
export async function copyImagePins(tx: Tx, fromRunId: string, toRunId: string): Promise<void> {
  await tx.$executeRaw`
    INSERT INTO run_image_pins (run_id, reference, digest, attempt_id)
    SELECT ${toRunId}::uuid, reference, digest, NULL FROM run_image_pins WHERE run_id = ${fromRunId}::uuid
    ON CONFLICT (run_id, reference) DO NOTHING`;
}
