// Which fields of a run's lock count for its identity, and the fingerprints over them. Volatile
// fields never count: ids, names of runs, times, hostnames and ports (an endpoint's URL), secret
// record names and values, and operational limits (concurrency, retries, budget).
import { createHash } from 'node:crypto';
import type { RunLock, RunLockAgent, RunLockRecord, RunLockTask } from '@osmosis/contracts';
import { canonicalJson } from './canonical-json.ts';

const sha256Hex = (text: string) => createHash('sha256').update(text).digest('hex');

/** An agent's configured identity: what it is asked to be, before any attempt ran. */
function agentRecipe(agent: RunLockAgent) {
  return {
    harness: agent.harness,
    harness_version: agent.harness_version,
    model: { type: agent.model.type, name: agent.model.name },
    params: agent.params,
    env: agent.env,
  };
}

function taskFields(task: RunLockTask) {
  return { digest: task.digest, image: task.image };
}

/**
 * The fields of a lock that count, keyed so that a diff can name them: tasks by name, agents by
 * index, images by reference.
 */
export function countedLockFields(lock: Omit<RunLock, 'fingerprint'>): Record<string, unknown> {
  return {
    tasks: Object.fromEntries(lock.tasks.map((t) => [t.name, taskFields(t)])),
    images: Object.fromEntries(lock.images.map((i) => [i.reference, i.digest])),
    agents: Object.fromEntries(
      lock.agents.map((a) => [
        String(a.index),
        {
          ...agentRecipe(a),
          runs: a.runs
            .map((r) => ({
              version: r.version,
              reference: r.reference,
              templates: r.templates?.digest ?? null,
              tools: r.tools,
              max_turns: r.max_turns,
              summarize_threshold_tokens: r.summarize_threshold_tokens,
            }))
            .sort((x, y) => (canonicalJson(x) < canonicalJson(y) ? -1 : 1)),
        },
      ]),
    ),
    judge: {
      kind: lock.judge.kind,
      model: lock.judge.model,
      templates: [...lock.judge.template_digests].sort(),
    },
    execution: {
      attempts_per_task: lock.execution.attempts_per_task,
      timeout_multiplier: lock.execution.timeout_multiplier,
      pass_threshold: lock.execution.pass_threshold,
    },
  };
}

/** The run's fingerprint: SHA-256 (hex) of the canonical JSON of its counted fields. */
export function lockFingerprint(lock: Omit<RunLock, 'fingerprint'>): string {
  return sha256Hex(canonicalJson(countedLockFields(lock)));
}

/**
 * The fields one (task, agent) pair's attempts depend on, as known at submit: the task's digest
 * and image, the agent's configured identity, the judge, the timeouts and pass threshold, and the
 * platform's version (its harnesses are part of it). Equal for two runs → an attempt of one is an
 * attempt of the other.
 */
export function taskAgentFields(record: RunLockRecord, taskName: string, agentIndex: number) {
  const task = record.tasks.find((t) => t.name === taskName);
  const agent = record.agents.find((a) => a.index === agentIndex);
  if (!task || !agent) return null;
  return {
    task: { name: task.name, ...taskFields(task) },
    agent: agentRecipe(agent),
    judge: { kind: record.judge.kind, model: record.judge.model },
    execution: {
      timeout_multiplier: record.execution.timeout_multiplier,
      pass_threshold: record.execution.pass_threshold,
    },
    platform: record.platform.version,
  };
}

/** The fingerprint of one (task, agent) pair (null when the lock has no such task or agent). */
export function taskAgentFingerprint(
  record: RunLockRecord,
  taskName: string,
  agentIndex: number,
): string | null {
  const fields = taskAgentFields(record, taskName, agentIndex);
  return fields ? sha256Hex(canonicalJson(fields)) : null;
}
