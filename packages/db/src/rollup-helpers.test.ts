import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../test/helpers/db.ts';

describe("the roll-up trigger's row helpers (migrations 20261209090000, 20261210090000)", () => {
  let testDb: TestDatabase;
  beforeAll(async () => {
    testDb = await createTestDatabase();
  });
  afterAll(async () => {
    await testDb.drop();
  });

  /** the output expression of a one-row query's plan */
  async function outputOf(select: string): Promise<string> {
    const rows = await testDb.db.$queryRawUnsafe<{ 'QUERY PLAN': string }[]>(
      `EXPLAIN VERBOSE SELECT ${select} FROM attempts a WHERE a.id = '00000000-0000-4000-8000-000000000000'`,
    );
    return rows.map((r) => r['QUERY PLAN']).find((line) => line.trim().startsWith('Output:')) ?? '';
  }

  it('are inlined into the statement that calls them, not planned at every call', async () => {
    // an IMMUTABLE SQL function whose body casts an enum to text (STABLE) is never inlined: every
    // trigger call parsed and planned its body (0.14 ms a row)
    const row = await outputOf('"attempts_rollup_log_row_of"(1, a)');
    expect(row).not.toContain('attempts_rollup_log_row_of');
    expect(row).toContain("COALESCE((outcome)::text, ''::text)");
    const status = await outputOf('"attempts_rollup_status"(a.status)');
    expect(status).not.toContain('attempts_rollup_status');
    expect(status).toContain("'open'::text");
  });
});
