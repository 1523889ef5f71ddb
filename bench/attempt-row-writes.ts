// What an attempt's three row writes (handed out, started, ended) cost Postgres with the indexes
// of attempts as migrated, against the index set before migration 20261211090000 (three full
// indexes where attempts_open_idx is now), in one database, alternating rounds. Each round takes
// the next --per-round queued attempts and has --clients connections write them, each attempt's
// three UPDATEs in turn (its statement triggers fire as they do in the platform), and prints the
// CPU the connections' Postgres backends spent an attempt (/proc/<pid>/stat) and the wall time.
// The dispatch bench (dispatch-scale.ts) measures the whole start; this isolates what the index
// set changes, away from the machine's drift between whole runs.
//
//   cd /work/main && source scripts/env.sh
//   node bench/attempt-row-writes.ts [--attempts 100000] [--per-round 4000] [--rounds 4] [--clients 4] [--keep]
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { migrateDeploy } from '@osmosis/db';
import pg from 'pg';
import { adminQuery } from '../test/helpers/db.ts';
import { databaseUrl } from '../test/helpers/env.ts';
import { cpuSecondsOf } from './process-cpu.ts';

const { values: args } = parseArgs({
  options: {
    attempts: { type: 'string', default: '100000' },
    'per-round': { type: 'string', default: '4000' },
    rounds: { type: 'string', default: '4' },
    clients: { type: 'string', default: '4' },
    keep: { type: 'boolean', default: false },
  },
});
const A = Number(args.attempts);
const PER_ROUND = Number(args['per-round']);
const ROUNDS = Number(args.rounds);
const C = Number(args.clients);
if (500 + PER_ROUND * ROUNDS * 2 > A)
  throw new Error('--attempts must hold 500 + per-round × rounds × 2 attempts');

/** The index sets compared: DDL that turns the database's attempts indexes into each. */
const INDEX_SETS = {
  before: `DROP INDEX IF EXISTS attempts_open_idx;
    CREATE INDEX IF NOT EXISTS attempts_lease_owner_status_idx ON attempts (lease_owner, status);
    CREATE INDEX IF NOT EXISTS attempts_status_lease_expires_at_idx ON attempts (status, lease_expires_at);
    CREATE INDEX IF NOT EXISTS attempts_run_id_agent_id_outcome_idx ON attempts (run_id, agent_id, outcome);`,
  now: `DROP INDEX IF EXISTS attempts_lease_owner_status_idx;
    DROP INDEX IF EXISTS attempts_status_lease_expires_at_idx;
    DROP INDEX IF EXISTS attempts_run_id_agent_id_outcome_idx;
    CREATE INDEX IF NOT EXISTS attempts_open_idx ON attempts (status, lease_owner) WHERE status IN ('queued', 'running');`,
} as const;
type IndexSet = keyof typeof INDEX_SETS;

/** CPU seconds the connections' Postgres backends have spent (they live as long as the bench). */
function backendsCpuSeconds(pids: number[]): number {
  return pids.reduce((sum, pid) => {
    const seconds = cpuSecondsOf(pid);
    if (seconds === null) throw new Error(`Postgres backend ${pid} is gone`);
    return sum + seconds;
  }, 0);
}

async function seed(client: pg.Client): Promise<void> {
  const tasks = 89;
  await client.query(`
    INSERT INTO users (id, email) VALUES ('00000000-0000-4000-8000-000000000001', 'bench@example.test');
    INSERT INTO workspaces (id, name) VALUES ('00000000-0000-4000-8001-000000000001', 'ws');
    INSERT INTO benchmarks (id, workspace_id, key, name, source_kind, source, sync_status)
      VALUES ('00000000-0000-4000-8002-000000000001', '00000000-0000-4000-8001-000000000001', 'b', 'B', 'archive', '{}', 'ready');
    INSERT INTO tasks (id, benchmark_id, name, digest, env_digest, config, instruction)
      SELECT gen_random_uuid(), '00000000-0000-4000-8002-000000000001', 'task-' || k, 'd-' || k, 'e', '{}', 'do it'
      FROM generate_series(1, ${tasks}) k;
    INSERT INTO runs (id, workspace_id, benchmark_id, name, status, config_toml, config, selection, task_count,
        attempts_per_task, max_concurrent_attempts, timeout_multiplier, max_retries, pass_threshold, created_by_id)
      VALUES ('00000000-0000-4000-8004-000000000001', '00000000-0000-4000-8001-000000000001',
        '00000000-0000-4000-8002-000000000001', 'run', 'running', '', '{}', '{"full_set":true}', ${tasks},
        ${Math.ceil(A / tasks)}, 1000, 1, 0, 1, '00000000-0000-4000-8000-000000000001');
    INSERT INTO run_agents (id, run_id, index, harness, model_type, model, spec)
      VALUES ('00000000-0000-4000-8005-000000000001', '00000000-0000-4000-8004-000000000001', 0, 'nop', 'provider', 'm', '{}');
    INSERT INTO attempts (id, run_id, agent_id, task_id, index)
      SELECT gen_random_uuid(), '00000000-0000-4000-8004-000000000001', '00000000-0000-4000-8005-000000000001', t.id, g
      FROM tasks t, generate_series(0, ${Math.ceil(A / tasks) - 1}) g;
    ANALYZE;
  `);
}

/** One attempt's way through its row: handed out, started by a worker, ended. */
async function writeAttempt(client: pg.Client, id: string, worker: string): Promise<void> {
  await client.query({
    name: 'hand-out',
    text: 'UPDATE attempts SET dispatched_at = now() WHERE id = $1',
    values: [id],
  });
  await client.query({
    name: 'start',
    text: `UPDATE attempts SET status = 'running', lease_owner = $2, lease_token = lease_token + 1,
      lease_expires_at = now() + interval '15 seconds', started_at = now() WHERE id = $1`,
    values: [id, worker],
  });
  await client.query({
    name: 'end',
    text: `UPDATE attempts SET status = 'finished', outcome = 'passed', finished_at = now(), reward = 1,
      lease_owner = NULL, lease_expires_at = NULL WHERE id = $1`,
    values: [id],
  });
}

async function round(clients: pg.Client[], pids: number[], ids: string[]) {
  const before = backendsCpuSeconds(pids);
  const t0 = performance.now();
  await Promise.all(
    clients.map(async (client, c) => {
      for (let i = c; i < ids.length; i += clients.length)
        await writeAttempt(client, ids[i] as string, `w-${c}`);
    }),
  );
  const wallMs = performance.now() - t0;
  const seconds = backendsCpuSeconds(pids) - before;
  return {
    cpuMsPerAttempt: (seconds * 1000) / ids.length,
    wallMs,
    perSecond: ids.length / (wallMs / 1000),
  };
}

async function main() {
  const name = `osmosis_bench_rows_${randomBytes(4).toString('hex')}`;
  await adminQuery(`CREATE DATABASE "${name}"`);
  const url = databaseUrl(name);
  try {
    await migrateDeploy(url);
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await seed(admin);
    const { rows } = await admin.query<{ id: string }>(
      `SELECT id::text AS id FROM attempts WHERE status = 'queued' ORDER BY index, id`,
    );
    const clients = await Promise.all(
      Array.from({ length: C }, async () => {
        const client = new pg.Client({ connectionString: url });
        // a failed round drops the database under the connections: their errors end the bench, not crash it
        client.on('error', () => undefined);
        await client.connect();
        return client;
      }),
    );
    const pids = await Promise.all(
      clients.map(
        async (c) => (await c.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid,
      ),
    );
    console.log(
      `${A} attempts in one run; rounds of ${PER_ROUND} attempts over ${C} connections, three UPDATEs an attempt, index sets alternating`,
    );
    const results: Record<IndexSet, number[]> = { before: [], now: [] };
    const ids = rows.map((r) => r.id);
    const WARMUP = 500;
    // a warm-up round (plans, caches) that is not counted
    await round(clients, pids, ids.slice(0, WARMUP));
    let next = WARMUP;
    for (let r = 0; r < ROUNDS; r++) {
      for (const set of (r % 2 === 0 ? ['before', 'now'] : ['now', 'before']) as IndexSet[]) {
        await admin.query(INDEX_SETS[set]);
        await admin.query('VACUUM ANALYZE attempts');
        const result = await round(clients, pids, ids.slice(next, next + PER_ROUND));
        next += PER_ROUND;
        results[set].push(result.cpuMsPerAttempt);
        console.log(
          `round ${r + 1} ${set.padEnd(6)} Postgres CPU ${result.cpuMsPerAttempt.toFixed(3)} ms an attempt, ${result.perSecond.toFixed(0)} attempts/s`,
        );
      }
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
    console.log(
      `median Postgres CPU an attempt's three writes: before ${median(results.before).toFixed(3)} ms, now ${median(results.now).toFixed(3)} ms (${((1 - median(results.now) / median(results.before)) * 100).toFixed(0)} % less)`,
    );
    await Promise.all(clients.map((c) => c.end()));
    await admin.end();
  } finally {
    if (args.keep) console.log(`kept database ${name}`);
    else await adminQuery(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  }
}

await main();
