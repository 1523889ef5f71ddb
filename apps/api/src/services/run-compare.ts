// The paired comparison behind GET /v1/runs/:name/compare and the run page's Comparison section:
// picks the two agents (two of one run, or one of each of two runs), refuses what cannot be
// paired (another benchmark, another pass threshold, changed task digests) with a message naming
// what differs, and hands the two agents' per-task tallies — grouped in SQL from the roll-up
// agent_task_tallies, a few rows whatever the number of tasks — to core's comparePairedGroups.
import {
  COMPARE_MAX_LISTED_TASKS,
  type CompareSide,
  type CompareTaskDifference,
  type RunComparison,
} from '@osmosis/contracts';
import {
  agentLabel,
  comparePairedGroups,
  listAgentRefs,
  type PairedTaskGroup,
  rateDifference,
  resolveAgentRef,
} from '@osmosis/core';
import { crossRunTasks, type Db, pairedDifferingTasks, pairedTallyGroups } from '@osmosis/db';
import { ApiError } from '../errors.ts';
import { runNotFound } from './not-found.ts';

export interface CompareRun {
  id: string;
  name: string;
  benchmarkId: string;
  passThreshold: number;
  taskCount: number;
  imported: boolean;
  benchmark: { key: string };
  agents: { id: string; index: number; harness: string; model: string }[];
}

const COMPARE_RUN_INCLUDE = {
  benchmark: { select: { key: true } },
  agents: { select: { id: true, index: true, harness: true, model: true }, orderBy: { index: 'asc' } },
} as const;

/** A run of the workspace by name, with what a comparison needs; 404 when there is none. */
export async function compareRunOr404(db: Db, workspaceId: string, name: string): Promise<CompareRun> {
  const run = await db.run.findFirst({ where: { workspaceId, name }, include: COMPARE_RUN_INCLUDE });
  if (!run) throw await runNotFound(db, workspaceId, name);
  return run;
}

function agentsIssue(message: string): ApiError {
  return ApiError.validation(message, [{ path: 'query.agents', message }]);
}

function listAgents(run: CompareRun): string {
  return listAgentRefs(run.agents);
}

/** An agent of `run` named by its index, harness, model or `model (harness)` label (core's resolveAgentRef). */
function findAgent(run: CompareRun, token: string): CompareRun['agents'][number] {
  const shown = JSON.stringify(token.slice(0, 100));
  const found = resolveAgentRef(run.agents, token);
  if ('agent' in found) return found.agent;
  if (found.error === 'unknown') {
    throw agentsIssue(`run ${run.name} has no agent ${shown}; its agents are ${listAgents(run)}`);
  }
  throw agentsIssue(
    `${shown} names ${found.matches.length} agents of run ${run.name}; use the index instead (${listAgents(run)})`,
  );
}

function side(run: CompareRun, agent: CompareRun['agents'][number]): CompareSide {
  return {
    run_id: run.id,
    run_name: run.name,
    agent_id: agent.id,
    agent_index: agent.index,
    harness: agent.harness,
    model: agent.model,
    label: agentLabel(agent.model, agent.harness),
    imported: run.imported,
  };
}

/** The two sides: `agents` is "A,B" (A of `run`, B of `other` or of `run`); defaults below. */
export function pickSides(
  run: CompareRun,
  other: CompareRun | null,
  agents: string | undefined,
): [CompareSide, CompareSide] {
  const second = other ?? run;
  if (agents !== undefined) {
    const tokens = agents.split(',').map((t) => t.trim());
    if (tokens.length !== 2 || tokens.some((t) => t === '')) {
      throw agentsIssue(
        'name two agents separated by a comma, e.g. 0,1 or oracle,nop (each an index, harness, model or "model (harness)")',
      );
    }
    const a = findAgent(run, tokens[0]!);
    const b = findAgent(second, tokens[1]!);
    if (a.id === b.id) throw agentsIssue(`the same agent is named twice (${agentLabel(a.model, a.harness)})`);
    return [side(run, a), side(second, b)];
  }
  if (!other) {
    // two agents of one run: the first two by default
    if (run.agents.length < 2) {
      throw agentsIssue(
        `run ${run.name} has ${run.agents.length} agent(s): name another run to compare it with`,
      );
    }
    return [side(run, run.agents[0]!), side(run, run.agents[1]!)];
  }
  for (const r of [run, other]) {
    if (r.agents.length !== 1) {
      throw agentsIssue(
        `run ${r.name} has ${r.agents.length} agents: name the two to compare (A of ${run.name}, B of ${other.name}); its agents are ${listAgents(r)}`,
      );
    }
  }
  return [side(run, run.agents[0]!), side(other, other.agents[0]!)];
}

/** Refuses two runs that are not the same questions scored the same way. */
export function assertComparableRuns(run: CompareRun, other: CompareRun): void {
  if (run.benchmarkId !== other.benchmarkId) {
    throw ApiError.conflict(
      `runs ${run.name} and ${other.name} are on different benchmarks (${run.benchmark.key} and ${other.benchmark.key}): a paired comparison needs the same tasks`,
      { reason: 'different_benchmarks', benchmarks: [run.benchmark.key, other.benchmark.key] },
    );
  }
  if (run.passThreshold !== other.passThreshold) {
    throw ApiError.conflict(
      `runs ${run.name} and ${other.name} have different pass thresholds (${run.passThreshold} and ${other.passThreshold}): their passes are not the same test`,
      { reason: 'different_pass_thresholds', pass_thresholds: [run.passThreshold, other.passThreshold] },
    );
  }
}

/** The task digests differ between the two runs: not the same questions. */
function changedTasksConflict(changed: { task: string; a: string; b: string }[], count: number): ApiError {
  const named = changed.slice(0, 10).map((m) => m.task);
  const more = count - named.length;
  return ApiError.conflict(
    `${count} task(s) changed between the two sides (different task digests): ${named.join(', ')}${more > 0 ? ` and ${more} more` : ''}`,
    { reason: 'different_task_digests', tasks: changed.slice(0, 100) },
  );
}

export async function compareRuns(
  db: Db,
  run: CompareRun,
  other: CompareRun | null,
  agents: string | undefined,
): Promise<RunComparison> {
  if (other && other.id !== run.id) assertComparableRuns(run, other);
  const second = other && other.id !== run.id ? other : null;
  const [a, b] = pickSides(run, second, agents);
  const [across, rows, differingRows] = await Promise.all([
    // one run: every agent has attempts at each of its tasks, planned at once (one digest)
    second
      ? crossRunTasks(
          db,
          run.benchmarkId,
          { runId: a.run_id, agentId: a.agent_id },
          { runId: b.run_id, agentId: b.agent_id },
        )
      : null,
    pairedTallyGroups(db, a.agent_id, b.agent_id),
    pairedDifferingTasks(db, a.agent_id, b.agent_id, COMPARE_MAX_LISTED_TASKS + 1),
  ]);
  if (across && across.changedCount > 0) throw changedTasksConflict(across.changed, across.changedCount);
  const groups: PairedTaskGroup[] = rows.map((r) => ({
    a: { passed: r.a_passed, scored: r.a_scored },
    b: { passed: r.b_passed, scored: r.b_scored },
    tasks: r.tasks,
  }));
  // tasks with attempts that neither side has scored yet have no tally: left out, as the others
  const tallied = rows.reduce((sum, r) => sum + r.tasks, 0);
  const attempted = across ? across.attempted : run.taskCount;
  groups.push({ a: { passed: 0, scored: 0 }, b: { passed: 0, scored: 0 }, tasks: attempted - tallied });
  const stats = comparePairedGroups(groups);
  const differing: CompareTaskDifference[] = differingRows.map((r) => {
    const ta = { passed: r.a_passed, scored: r.a_scored };
    const tb = { passed: r.b_passed, scored: r.b_scored };
    return { task: r.task, a: ta, b: tb, difference: rateDifference(ta, tb) };
  });
  return {
    benchmark_key: run.benchmark.key,
    pass_threshold: run.passThreshold,
    a,
    b,
    ...stats,
    differing_tasks: differing.slice(0, COMPARE_MAX_LISTED_TASKS),
    differing_tasks_truncated: differing.length > COMPARE_MAX_LISTED_TASKS,
  };
}
