import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../test/helpers/db.ts';
import { createDb, genericPoolOf } from './client.ts';
import { Prisma } from './generated/prisma/client.ts';
import { runBacklogInOrder } from './queries/in-flight.ts';
import { queryGeneric, queryRows } from './raw.ts';

/**
 * SQL: a running run `00000000-0000-4000-8004-0000000000<key>` and its one agent (…8005…<key>), in
 * the workspace, benchmark and user the backlog test seeds (…b1).
 */
function runWithAgent(key: string, name: string, attemptsPerTask: number): string {
  return `INSERT INTO runs (id, workspace_id, benchmark_id, name, status, config_toml, config, selection, task_count,
        attempts_per_task, max_concurrent_attempts, timeout_multiplier, max_retries, pass_threshold, created_by_id)
      VALUES ('00000000-0000-4000-8004-0000000000${key}', '00000000-0000-4000-8001-0000000000b1',
        '00000000-0000-4000-8002-0000000000b1', '${name}', 'running', '', '{}', '{}', 1, ${attemptsPerTask}, 80, 1, 0, 1,
        '00000000-0000-4000-8000-0000000000b1');
    INSERT INTO run_agents (id, run_id, index, harness, model_type, model, spec)
      VALUES ('00000000-0000-4000-8005-0000000000${key}', '00000000-0000-4000-8004-0000000000${key}', 0, 'nop', 'provider', 'm', '{}');`;
}

/** The rows an EXPLAIN (ANALYZE, FORMAT JSON) plan read: what its nodes returned plus what their filters threw away. */
function rowsRead(plan: string): number {
  return [...plan.matchAll(/"(Actual Rows|Rows Removed by Filter|Rows Removed by Index Recheck)": ?(\d+)/g)]
    .map((m) => Number(m[2]))
    .reduce((a, b) => a + b, 0);
}

describe('the hot path statements (raw.ts)', () => {
  let testDb: TestDatabase;
  beforeAll(async () => {
    testDb = await createTestDatabase();
  });
  afterAll(async () => {
    await testDb.drop();
  });

  it('sends queryGeneric on connections with generic plans, and the rest on the main pool with Postgres choosing', async () => {
    const mode = Prisma.sql`SELECT current_setting('plan_cache_mode') AS mode`;
    expect(await queryGeneric<{ mode: string }>(testDb.db, mode)).toEqual([{ mode: 'force_generic_plan' }]);
    const sort = Prisma.sql`SELECT current_setting('enable_sort') AS sort`;
    expect(await queryGeneric<{ sort: string }>(testDb.db, sort)).toEqual([{ sort: 'off' }]);
    expect(await queryRows<{ sort: string }>(testDb.db, sort)).toEqual([{ sort: 'on' }]);
    // a sort priced out is costed past jit_above_cost: there, no statement is compiled
    const jit = Prisma.sql`SELECT current_setting('jit') AS jit`;
    expect(await queryGeneric<{ jit: string }>(testDb.db, jit)).toEqual([{ jit: 'off' }]);
    expect(await queryRows<{ mode: string }>(testDb.db, mode)).toEqual([{ mode: 'auto' }]);
    expect((await testDb.db.$queryRaw<{ mode: string }[]>(mode))[0]?.mode).toBe('auto');
  });

  it('commits a queryGeneric statement on its own: its row lock is free once it returns', async () => {
    const ws = await testDb.db.workspace.create({ data: { name: 'generic-lock' } });
    await queryGeneric(
      testDb.db,
      Prisma.sql`UPDATE workspaces SET name = 'generic-lock-2' WHERE id = ${ws.id}::uuid`,
    );
    // another connection takes the row at once (NOWAIT fails if the update's transaction were open)
    const locked = await testDb.db.$transaction(
      (tx) =>
        tx.$queryRaw<
          { name: string }[]
        >`SELECT name FROM workspaces WHERE id = ${ws.id}::uuid FOR UPDATE NOWAIT`,
    );
    expect(locked).toEqual([{ name: 'generic-lock-2' }]);
  });

  it('ends the generic-plan connections with the client', async () => {
    const db = createDb(testDb.url, 2);
    await queryGeneric(db, Prisma.sql`SELECT 1`);
    const pool = genericPoolOf(db);
    expect(pool?.totalCount).toBe(1);
    await db.$disconnect();
    expect(pool?.ended).toBe(true);
  });

  it("counts a run's backlog from the handed-out rows only, under a generic plan", async () => {
    // a run with 3 000 queued attempts of which 20 are handed out (dispatched_at set)
    await testDb.db.$executeRawUnsafe(`
      INSERT INTO users (id, email) VALUES ('00000000-0000-4000-8000-0000000000b1', 'backlog@example.test');
      INSERT INTO workspaces (id, name) VALUES ('00000000-0000-4000-8001-0000000000b1', 'backlog');
      INSERT INTO benchmarks (id, workspace_id, key, name, source_kind, source, sync_status)
        VALUES ('00000000-0000-4000-8002-0000000000b1', '00000000-0000-4000-8001-0000000000b1', 'b', 'B', 'archive', '{}', 'ready');
      INSERT INTO tasks (id, benchmark_id, name, digest, env_digest, config, instruction)
        VALUES ('00000000-0000-4000-8003-0000000000b1', '00000000-0000-4000-8002-0000000000b1', 't', 'd', 'e', '{}', 'do it');
      ${runWithAgent('b1', 'r', 3000)}
      INSERT INTO attempts (id, run_id, agent_id, task_id, index, dispatched_at)
        SELECT gen_random_uuid(), '00000000-0000-4000-8004-0000000000b1', '00000000-0000-4000-8005-0000000000b1',
          '00000000-0000-4000-8003-0000000000b1', g, CASE WHEN g < 20 THEN now() END
        FROM generate_series(0, 2999) g;
      ANALYZE attempts;
    `);
    // counted as its callers count it: up to backlogLow's limit, with sorts priced out
    const countOf = (runId: Prisma.Sql) =>
      Prisma.sql`(SELECT count(*) FROM (${runBacklogInOrder(runId, Prisma.sql`3000`)}) c)`;
    const count = countOf(Prisma.sql`$1::uuid`);
    /**
     * The plan's JSON, with the in-flight partial index, or as the planner chose at scale: past it,
     * through attempts_dispatch_pick_idx in an index scan (bench/dispatch-scale.ts, auto_explain).
     */
    const planOf = async (withoutInFlightIndex: boolean): Promise<string> => {
      let plan = '';
      await testDb.db
        .$transaction(async (tx) => {
          await tx.$executeRawUnsafe('SET LOCAL plan_cache_mode = force_generic_plan');
          await tx.$executeRawUnsafe('SET LOCAL enable_sort = off');
          if (withoutInFlightIndex) {
            await tx.$executeRawUnsafe('DROP INDEX attempts_in_flight_idx');
            await tx.$executeRawUnsafe('SET LOCAL enable_bitmapscan = off');
          }
          await tx.$executeRawUnsafe(`PREPARE backlog_count AS SELECT ${count.text}::int AS n`);
          const rows = await tx.$queryRawUnsafe<{ 'QUERY PLAN': unknown }[]>(
            `EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE backlog_count('00000000-0000-4000-8004-0000000000b1')`,
          );
          await tx.$executeRawUnsafe('DEALLOCATE backlog_count');
          plan = JSON.stringify(rows[0]?.['QUERY PLAN']);
          throw new Error('roll back'); // the dropped index comes back
        })
        .catch((error: Error) => {
          if (error.message !== 'roll back') throw error;
        });
      return plan;
    };
    const n = await queryRows<{ n: number }>(
      testDb.db,
      Prisma.sql`SELECT ${countOf(Prisma.sql`${'00000000-0000-4000-8004-0000000000b1'}::uuid`)}::int AS n`,
    );
    expect(n).toEqual([{ n: 20 }]);
    // the rows the plan read, through whichever index the planner takes: under a generic plan at
    // scale it took attempts_dispatch_pick_idx and read every queued attempt of the run
    // (bench/dispatch-scale.ts)
    for (const withoutInFlightIndex of [false, true]) {
      const plan = await planOf(withoutInFlightIndex);
      expect(plan).toContain('Index');
      expect(rowsRead(plan), plan).toBeLessThan(100);
    }
  });

  it("finds a worker's running attempts through the open-attempts index, under a generic plan", async () => {
    // 3 000 ended attempts and 25 running ones of two workers: the lookup every lease renewal,
    // reservation and the workers page make (status = 'running' AND lease_owner = $1) must read
    // the worker's own rows from attempts_open_idx, not the ended ones (in the workspace, benchmark
    // and task the test before seeded)
    await testDb.db.$executeRawUnsafe(`
      ${runWithAgent('c1', 'open', 3025)}
      INSERT INTO attempts (id, run_id, agent_id, task_id, index, status, outcome, lease_owner, dispatched_at)
        SELECT gen_random_uuid(), '00000000-0000-4000-8004-0000000000c1', '00000000-0000-4000-8005-0000000000c1',
          '00000000-0000-4000-8003-0000000000b1', g,
          CASE WHEN g < 25 THEN 'running' ELSE 'finished' END::"AttemptStatus",
          CASE WHEN g >= 25 THEN 'passed' END::"AttemptOutcome",
          CASE WHEN g < 20 THEN 'w-a' WHEN g < 25 THEN 'w-b' END, now()
        FROM generate_series(0, 3024) g;
      ANALYZE attempts;
    `);
    let plan = '';
    let held = 0;
    await testDb.db
      .$transaction(async (tx) => {
        await tx.$executeRawUnsafe('SET LOCAL plan_cache_mode = force_generic_plan');
        await tx.$executeRawUnsafe(
          `PREPARE held AS SELECT count(*)::int AS n FROM attempts a WHERE a.status = 'running' AND a.lease_owner = $1`,
        );
        held = (await tx.$queryRawUnsafe<{ n: number }[]>(`EXECUTE held('w-b')`))[0]?.n ?? -1;
        const rows = await tx.$queryRawUnsafe<{ 'QUERY PLAN': unknown }[]>(
          `EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE held('w-b')`,
        );
        plan = JSON.stringify(rows[0]?.['QUERY PLAN']);
        throw new Error('roll back');
      })
      .catch((error: Error) => {
        if (error.message !== 'roll back') throw error;
      });
    expect(held).toBe(5);
    expect(plan).toContain('attempts_open_idx');
    expect(rowsRead(plan), plan).toBeLessThan(20);
  });
});
