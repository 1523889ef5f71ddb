// What an execution needs of its attempt's rows (the run and its benchmark's judge, the agent, the
// task), read in one statement once the lease is taken: one round trip per start instead of one
// per relation.
import { type Db, Prisma, queryRows } from '@osmosis/db';
import type { AttemptExecution } from './executor.ts';

export interface ExecutionRow {
  index: number;
  run: AttemptExecution['run'];
  agent: AttemptExecution['agent'];
  task: AttemptExecution['task'];
}

/** The attempt's execution rows; throws when the attempt is gone. */
export async function loadExecutionRow(db: Db, attemptId: string): Promise<ExecutionRow> {
  const rows = await queryRows<ExecutionRow>(
    db,
    Prisma.sql`
    SELECT a.index,
      json_build_object('id', r.id, 'name', r.name, 'workspaceId', r.workspace_id, 'createdById', r.created_by_id,
        'timeoutMultiplier', r.timeout_multiplier, 'passThreshold', r.pass_threshold, 'judgeModel', r.judge_model,
        'judgeKind', b.judge_kind, 'secretRefs', r.secret_refs, 'config', r.config) AS run,
      json_build_object('id', g.id, 'index', g.index, 'harness', g.harness, 'modelType', g.model_type,
        'model', g.model, 'spec', g.spec) AS agent,
      json_build_object('id', t.id, 'name', t.name, 'digest', t.digest, 'envDigest', t.env_digest,
        'config', t.config, 'instruction', t.instruction, 'storageKey', t.storage_key) AS task
    FROM attempts a JOIN runs r ON r.id = a.run_id JOIN benchmarks b ON b.id = r.benchmark_id
      JOIN run_agents g ON g.id = a.agent_id JOIN tasks t ON t.id = a.task_id
    WHERE a.id = ${attemptId}::uuid`,
  );
  const row = rows[0];
  if (!row) throw new Error(`attempt ${attemptId} not found`);
  return row;
}
