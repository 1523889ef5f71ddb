// Synthetic runs for the results tests and bench/results-scale.ts: a workspace, a benchmark with
// tasks, a run with agents and attempts, inserted with a few multi-row INSERTs (unnest of arrays),
// never row by row.
import { randomUUID } from 'node:crypto';
import type { Db } from '@osmosis/db';

export type Outcome = 'passed' | 'failed' | 'errored' | 'cancelled' | null;

export interface SyntheticAttempt {
  agent: number;
  task: number;
  index: number;
  outcome: Outcome;
  cost_usd: number | null;
  input_tokens: number | null;
  output_tokens: number | null;
  cache_tokens: number | null;
  env_ms: number | null;
  agent_ms: number | null;
  verifier_ms: number | null;
  judge_cost_usd: number | null;
  finished_at: Date | null;
}

export interface SeedOptions {
  workspaceId?: string;
  userId?: string;
  benchmarkId?: string;
  benchmarkKey?: string;
  /** number of tasks of the benchmark (created when benchmarkId is not given) */
  tasks: number;
  agents: { harness: string; model: string }[];
  attemptsPerTask: number;
  status?: 'pending' | 'queued' | 'running' | 'finished' | 'failed' | 'stopped';
  selection?: Record<string, unknown>;
  runName?: string;
  finishedAt?: Date | null;
  /** the attempt of (agent, task, index); default: all passed */
  attempt?: (agent: number, task: number, index: number) => Partial<SyntheticAttempt>;
  /** lifecycle events to insert */
  events?: number;
}

export interface SeededRun {
  workspaceId: string;
  userId: string;
  benchmarkId: string;
  benchmarkKey: string;
  runId: string;
  runName: string;
  agentIds: string[];
  taskIds: string[];
  taskNames: string[];
  attempts: (SyntheticAttempt & { id: string })[];
}

export async function seedWorkspace(
  db: Db,
  name = `ws-${randomUUID().slice(0, 8)}`,
): Promise<{ workspaceId: string; userId: string }> {
  const workspace = await db.workspace.create({ data: { name } });
  const user = await db.user.create({ data: { email: `${name}@example.test` } });
  await db.membership.create({ data: { workspaceId: workspace.id, userId: user.id, role: 'owner' } });
  return { workspaceId: workspace.id, userId: user.id };
}

export async function seedBenchmark(
  db: Db,
  workspaceId: string,
  tasks: number,
  key = `bench-${randomUUID().slice(0, 8)}`,
  taskSets: { name: string; recommended: boolean; tasks: number[] }[] = [],
): Promise<{ benchmarkId: string; benchmarkKey: string; taskIds: string[]; taskNames: string[] }> {
  const benchmark = await db.benchmark.create({
    data: {
      workspaceId,
      key,
      name: key,
      sourceKind: 'archive',
      source: {},
      syncStatus: 'ready',
      syncedTaskCount: tasks,
    },
  });
  const taskIds = Array.from({ length: tasks }, () => randomUUID());
  const taskNames = Array.from({ length: tasks }, (_, i) => `task-${String(i).padStart(5, '0')}`);
  await db.$executeRaw`
    INSERT INTO tasks (id, benchmark_id, name, category, digest, env_digest, config, instruction)
    SELECT id, ${benchmark.id}::uuid, name, 'cat-' || (ord % 5), 'd', 'e', '{}'::jsonb, 'do it'
    FROM unnest(${taskIds}::uuid[], ${taskNames}::text[]) WITH ORDINALITY AS t(id, name, ord)`;
  for (const set of taskSets) {
    await db.taskSet.create({
      data: {
        benchmarkId: benchmark.id,
        name: set.name,
        recommended: set.recommended,
        taskNames: set.tasks.map((i) => taskNames[i] as string),
      },
    });
  }
  return { benchmarkId: benchmark.id, benchmarkKey: key, taskIds, taskNames };
}

export async function seedRun(db: Db, options: SeedOptions): Promise<SeededRun> {
  const ws =
    options.workspaceId && options.userId
      ? { workspaceId: options.workspaceId, userId: options.userId }
      : await seedWorkspace(db);
  let bench: { benchmarkId: string; benchmarkKey: string; taskIds: string[]; taskNames: string[] };
  if (options.benchmarkId) {
    const tasks = await db.task.findMany({
      where: { benchmarkId: options.benchmarkId },
      orderBy: { name: 'asc' },
    });
    const b = await db.benchmark.findUniqueOrThrow({ where: { id: options.benchmarkId } });
    bench = {
      benchmarkId: b.id,
      benchmarkKey: b.key,
      taskIds: tasks.slice(0, options.tasks).map((t) => t.id),
      taskNames: tasks.slice(0, options.tasks).map((t) => t.name),
    };
  } else {
    bench = await seedBenchmark(db, ws.workspaceId, options.tasks, options.benchmarkKey);
  }
  const status = options.status ?? 'finished';
  const now = new Date();
  const runName = options.runName ?? `run-${randomUUID().slice(0, 8)}`;
  const run = await db.run.create({
    data: {
      workspaceId: ws.workspaceId,
      benchmarkId: bench.benchmarkId,
      name: runName,
      status,
      configToml: '',
      config: {},
      selection: (options.selection ?? { full_set: true }) as object,
      taskCount: bench.taskIds.length,
      attemptsPerTask: options.attemptsPerTask,
      maxConcurrentAttempts: 4,
      timeoutMultiplier: 1,
      maxRetries: 0,
      passThreshold: 1,
      createdById: ws.userId,
      createdAt: new Date(now.getTime() - 3_600_000),
      startedAt: status === 'pending' || status === 'queued' ? null : new Date(now.getTime() - 3_500_000),
      finishedAt:
        options.finishedAt !== undefined
          ? options.finishedAt
          : status === 'finished' || status === 'failed' || status === 'stopped'
            ? now
            : null,
    },
  });
  const agentIds: string[] = [];
  for (const [index, agent] of options.agents.entries()) {
    const a = await db.runAgent.create({
      data: {
        runId: run.id,
        index,
        harness: agent.harness,
        modelType: 'provider',
        model: agent.model,
        spec: {},
      },
    });
    agentIds.push(a.id);
  }
  const attempts: (SyntheticAttempt & { id: string })[] = [];
  const finished = new Date(now.getTime() - 60_000);
  for (let agent = 0; agent < agentIds.length; agent++) {
    for (let task = 0; task < bench.taskIds.length; task++) {
      for (let index = 0; index < options.attemptsPerTask; index++) {
        const given = options.attempt?.(agent, task, index) ?? {};
        const outcome = given.outcome === undefined ? 'passed' : given.outcome;
        attempts.push({
          id: randomUUID(),
          agent,
          task,
          index,
          outcome,
          cost_usd: given.cost_usd ?? null,
          input_tokens: given.input_tokens ?? null,
          output_tokens: given.output_tokens ?? null,
          cache_tokens: given.cache_tokens ?? null,
          env_ms: given.env_ms ?? null,
          agent_ms: given.agent_ms ?? null,
          verifier_ms: given.verifier_ms ?? null,
          judge_cost_usd: given.judge_cost_usd ?? null,
          finished_at:
            given.finished_at !== undefined ? given.finished_at : outcome === null ? null : finished,
        });
      }
    }
  }
  // few big statements: the roll-up trigger on attempts (migration 20261205090000) runs once per statement
  const CHUNK = 100_000;
  for (let i = 0; i < attempts.length; i += CHUNK) {
    const chunk = attempts.slice(i, i + CHUNK);
    const col = <K extends keyof (SyntheticAttempt & { id: string })>(k: K) => chunk.map((a) => a[k]);
    await db.$executeRaw`
      INSERT INTO attempts (id, run_id, agent_id, task_id, index, status, outcome, reward, cost_usd, input_tokens,
        output_tokens, cache_tokens, env_ms, agent_ms, verifier_ms, judge_cost_usd, started_at, finished_at, try_count)
      SELECT id, ${run.id}::uuid, agent_id, task_id, idx,
        (CASE WHEN outcome IS NULL THEN 'running' WHEN outcome = 'cancelled' THEN 'cancelled' ELSE 'finished' END)::"AttemptStatus",
        outcome::"AttemptOutcome", CASE WHEN outcome = 'passed' THEN 1.0 WHEN outcome = 'failed' THEN 0.0 END,
        cost, itok, otok, ctok, env, agent_ms, ver, judge, ${new Date(now.getTime() - 3_000_000)}::timestamptz, fin, 1
      FROM unnest(
        ${col('id')}::uuid[], ${chunk.map((a) => agentIds[a.agent])}::uuid[], ${chunk.map((a) => bench.taskIds[a.task])}::uuid[],
        ${col('index')}::int[], ${col('outcome')}::text[], ${col('cost_usd')}::float8[], ${col('input_tokens')}::int[],
        ${col('output_tokens')}::int[], ${col('cache_tokens')}::int[], ${col('env_ms')}::int[], ${col('agent_ms')}::int[],
        ${col('verifier_ms')}::int[], ${col('judge_cost_usd')}::float8[], ${col('finished_at')}::timestamptz[]
      ) AS t(id, agent_id, task_id, idx, outcome, cost, itok, otok, ctok, env, agent_ms, ver, judge, fin)`;
  }
  if (options.events) {
    const n = options.events;
    await db.$executeRaw`
      INSERT INTO run_events (run_id, timestamp, level, step, message, details)
      SELECT ${run.id}::uuid, ${new Date(now.getTime() - 3_000_000)}::timestamptz + (g || ' milliseconds')::interval,
        CASE WHEN g % 50 = 0 THEN 'warn' ELSE 'info' END, 'attempt', 'attempt ' || g || ' finished',
        jsonb_build_object('n', g)
      FROM generate_series(1, ${n}::int) AS g`;
  }
  return {
    workspaceId: ws.workspaceId,
    userId: ws.userId,
    benchmarkId: bench.benchmarkId,
    benchmarkKey: bench.benchmarkKey,
    runId: run.id,
    runName,
    agentIds,
    taskIds: bench.taskIds,
    taskNames: bench.taskNames,
    attempts,
  };
}
