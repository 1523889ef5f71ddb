export { type DispatchResult, dispatchRun } from './attempts/dispatch.ts';
export * from './attempts/executor.ts';
export * from './attempts/lease.ts';
export * from './attempts/lease-handback.ts';
export {
  createDockerReaper,
  createPipelineExecutor,
  type PipelineExecutorOptions,
  taskConfigOf,
} from './attempts/pipeline-executor.ts';
export * from './attempts/run-completion.ts';
export { type TaskFiles, taskFilesFrom } from './attempts/task-files.ts';
export {
  ConfigError,
  DEFAULT_WORKER_CONFIG,
  loadWorkerConfig,
  WORKER_ENV_NAMES,
  WorkerConfig,
  workerConfig,
} from './config.ts';
export { createAttemptProcessor } from './queues/attempt.ts';
export { QUEUE_MODULES } from './queues/index.ts';
export { reconcileOnce } from './queues/reconciler.ts';
export type { QueueModule, QueueModuleInstance, WorkerContext } from './queues/types.ts';
export { type ContainerReaper, heartbeatWorker, leaseKeeper, type SandboxLabels } from './reaper.ts';
export { type RunningWorker, sandboxScope, startWorker, type WorkerOptions } from './worker.ts';
