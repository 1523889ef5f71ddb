// Test helpers: seed a runnable run straight into Postgres (what the submit route writes), and
// fake executors for dispatcher tests. Used by apps/worker tests and test/run-*.test.ts.
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { type Db, Prisma } from '@osmosis/db';
import { createQueues, createRedis, enqueueRunDispatch } from '@osmosis/queues';
import { createLocalStorage } from '@osmosis/storage';
import { packTarBuffer, parseTaskDir } from '@osmosis/tasks';
import pino, { type Logger } from 'pino';
import type { AttemptExecution, AttemptExecutor, ExecutionResult } from '../executor.ts';

export interface SeedRunOptions {
  tasks?: number;
  agents?: number;
  attemptsPerTask?: number;
  maxConcurrentAttempts?: number;
  maxRetries?: number;
  status?: 'pending' | 'queued';
  /** reuse a workspace/benchmark (two runs on one benchmark) */
  workspaceId?: string;
  benchmarkId?: string;
  /** storage_key of every task (default: a folder that does not exist is fine for fake executors) */
  taskStorageKey?: string | null;
  name?: string;
  /** real tasks: folders in the Harbor task format (used in place: storage_key = the folder) */
  taskDirs?: string[];
  /**
   * store each task as benchmark sync does: a tar in the artifact storage rooted here, and
   * Task.config = the manifest without its instruction
   */
  storeIn?: string;
  /** one agent per harness (default: `agents` agents with harness nop) */
  harnesses?: string[];
  /**
   * every agent's model (default fake/model). Set here, not after: a queued run can be handed out
   * and started at once (a reconciler's sweep, its workspace's top-up pass)
   */
  model?: string;
}

/** Folders of the worker's own test tasks (apps/worker/src/testing/tasks). */
export const TEST_TASKS_DIR = path.join(import.meta.dirname, 'tasks');
/** The pipeline's fixture tasks (hello, no-reward, bad-build, slow). */
export const PIPELINE_FIXTURES_DIR = path.join(import.meta.dirname, '..', 'trial', 'fixtures');

export interface SeededRun {
  runId: string;
  runName: string;
  workspaceId: string;
  userId: string;
  benchmarkId: string;
  attemptIds: string[];
}

export async function seedRun(db: Db, options: SeedRunOptions = {}): Promise<SeededRun> {
  const suffix = randomBytes(4).toString('hex');
  let workspaceId = options.workspaceId;
  if (!workspaceId) {
    const ws = await db.workspace.create({ data: { name: `ws-${suffix}` } });
    workspaceId = ws.id;
  }
  const user = await db.user.create({ data: { email: `u-${suffix}@example.test` } });
  const userId = user.id;
  await db.membership.create({ data: { workspaceId, userId, role: 'owner' } });
  let benchmarkId = options.benchmarkId;
  if (!benchmarkId) {
    const bench = await db.benchmark.create({
      data: {
        workspaceId,
        key: `bench-${suffix}`,
        name: `Bench ${suffix}`,
        sourceKind: 'archive',
        source: {},
        syncStatus: 'ready',
      },
    });
    benchmarkId = bench.id;
  }
  const tasks = [];
  if (options.taskDirs) {
    for (const [i, dir] of options.taskDirs.entries()) {
      const manifest = await parseTaskDir(dir);
      // Stored as benchmark sync stores it: the manifest without its instruction.
      const { instruction: _instruction, ...config } = manifest;
      let storageKey = dir;
      if (options.storeIn) {
        storageKey = `tasks/${manifest.digest.replace(/^sha256:/, '')}.tar`;
        await createLocalStorage(options.storeIn).put(storageKey, await packTarBuffer(dir));
      }
      tasks.push(
        await db.task.create({
          data: {
            benchmarkId,
            name: `${path.basename(dir)}-${suffix}-${i}`,
            category: manifest.category,
            difficulty: manifest.difficulty,
            digest: manifest.digest,
            envDigest: manifest.env_digest,
            config: config as Prisma.InputJsonValue,
            instruction: manifest.instruction,
            storageKey,
          },
        }),
      );
    }
  } else {
    for (let i = 0; i < (options.tasks ?? 2); i++) {
      tasks.push(
        await db.task.create({
          data: {
            benchmarkId,
            name: `task-${suffix}-${i}`,
            digest: `sha256-${suffix}-${i}`,
            envDigest: `env-${suffix}-${i}`,
            config: {},
            instruction: 'do it',
            storageKey:
              options.taskStorageKey === undefined ? `/nonexistent/${suffix}/${i}` : options.taskStorageKey,
          },
        }),
      );
    }
  }
  const taskCount = tasks.length;
  const run = await db.run.create({
    data: {
      workspaceId,
      benchmarkId,
      name: options.name ?? `run-${suffix}`,
      status: options.status ?? 'queued',
      configToml: '',
      config: {},
      selection: { full_set: true },
      taskCount,
      attemptsPerTask: options.attemptsPerTask ?? 1,
      maxConcurrentAttempts: options.maxConcurrentAttempts ?? 4,
      timeoutMultiplier: 1,
      maxRetries: options.maxRetries ?? 0,
      passThreshold: 1,
      createdById: userId,
    },
  });
  const attemptIds: string[] = [];
  const harnesses = options.harnesses ?? Array.from({ length: options.agents ?? 1 }, () => 'nop');
  for (const [a, harness] of harnesses.entries()) {
    const agent = await db.runAgent.create({
      data: {
        runId: run.id,
        index: a,
        harness,
        modelType: 'provider',
        model: options.model ?? 'fake/model',
        spec: {},
      },
    });
    for (const task of tasks) {
      for (let k = 0; k < (options.attemptsPerTask ?? 1); k++) {
        const attempt = await db.attempt.create({
          data: { runId: run.id, agentId: agent.id, taskId: task.id, index: k },
        });
        attemptIds.push(attempt.id);
      }
    }
  }
  return { runId: run.id, runName: run.name, workspaceId, userId, benchmarkId, attemptIds };
}

export interface FakeExecutorOptions {
  /** how long an execution takes (ms); honours the abort signal */
  durationMs?: number;
  /** result per execution (default passed, reward 1) */
  result?: (execution: AttemptExecution) => ExecutionResult | Promise<ExecutionResult>;
  /**
   * An execution also waits until this many of its run's have run at once: a test of the
   * concurrency limit sees it reached however slowly a busy machine dispatches.
   */
  holdUntilRunning?: number;
}

/** An executor that sleeps and returns a result; records how many run at once. */
export function fakeExecutor(options: FakeExecutorOptions = {}) {
  const state = {
    running: new Map<string, AttemptExecution>(),
    maxRunning: 0,
    maxRunningByRun: new Map<string, number>(),
    calls: [] as {
      attemptId: string;
      runId: string;
      startedAt: number;
      endedAt?: number;
      aborted?: boolean;
    }[],
  };
  const executor: AttemptExecutor = async (execution) => {
    const call: (typeof state.calls)[number] = {
      attemptId: execution.attemptId,
      runId: execution.runId,
      startedAt: Date.now(),
    };
    state.calls.push(call);
    state.running.set(`${execution.attemptId}:${execution.leaseToken}`, execution);
    state.maxRunning = Math.max(state.maxRunning, state.running.size);
    const inRun = [...state.running.values()].filter((e) => e.runId === execution.runId).length;
    state.maxRunningByRun.set(
      execution.runId,
      Math.max(state.maxRunningByRun.get(execution.runId) ?? 0, inRun),
    );
    try {
      await new Promise<void>((resolve, reject) => {
        const reached = () =>
          (state.maxRunningByRun.get(execution.runId) ?? 0) >= (options.holdUntilRunning ?? 0);
        let timer = setTimeout(function done() {
          if (reached()) resolve();
          else timer = setTimeout(done, 20);
        }, options.durationMs ?? 50);
        execution.signal.addEventListener(
          'abort',
          () => {
            clearTimeout(timer);
            call.aborted = true;
            reject(execution.signal.reason);
          },
          { once: true },
        );
      });
      return options.result ? await options.result(execution) : { outcome: 'passed', reward: 1, agentMs: 1 };
    } finally {
      call.endedAt = Date.now();
      state.running.delete(`${execution.attemptId}:${execution.leaseToken}`);
    }
  };
  return { executor, state };
}

/** The suite's one wait (test/helpers/wait.ts): its time allowance stretches with the machine's load. */
export { waitFor } from '../../../../test/helpers/wait.ts';

/** A row another transaction holds (held: once it has the lock; done: once it let go). */
export interface HeldRow {
  held: Promise<void>;
  release(): void;
  done: Promise<void>;
}

/**
 * Holds a run's or a workspace's row FOR NO KEY UPDATE in a transaction of its own, as a
 * dispatcher pass, a stop or an API update does, until released (or 60 s).
 */
export function holdRow(db: Db, table: 'runs' | 'workspaces', id: string): HeldRow {
  let release!: () => void;
  const released = new Promise<void>((r) => {
    release = r;
  });
  let locked!: () => void;
  const held = new Promise<void>((r) => {
    locked = r;
  });
  const done = db.$transaction(
    async (tx) => {
      await tx.$queryRaw`SELECT 1 FROM ${Prisma.raw(table)} WHERE id = ${id}::uuid FOR NO KEY UPDATE`;
      locked();
      await released;
    },
    { timeout: 60_000 },
  );
  return { held, release, done };
}

/** A pino logger for tests: warnings and errors only unless WORKER_TEST_LOG sets a level. */
export function testLogger(): Logger {
  return pino({ level: process.env.WORKER_TEST_LOG ?? 'warn' });
}

/** Asks the workers behind `redisUrl`/`prefix` to dispatch a run (what the submit route does). */
export async function requestDispatch(redisUrl: string, prefix: string, runId: string): Promise<void> {
  const connection = createRedis(redisUrl);
  const queues = createQueues(connection, prefix);
  try {
    await enqueueRunDispatch(queues, runId);
  } finally {
    await queues.close();
    connection.disconnect();
  }
}
