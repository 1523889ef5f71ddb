import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../test/helpers/db.ts';
import { TEST_PG_URL } from '../../../test/helpers/env.ts';
import { createDb } from './client.ts';
import { poolConfigFromUrl } from './migration-adapter.ts';

/** where scripts/services.sh's Postgres keeps its Unix socket */
const SOCKET_DIR = process.env.OSMOSIS_TEST_PG_SOCKET_DIR ?? '/tmp';

describe('database client', () => {
  let testDb: TestDatabase;
  beforeAll(async () => {
    testDb = await createTestDatabase();
  });
  afterAll(async () => {
    await testDb.drop();
  });

  it('reads back what it writes through the pg driver adapter', async () => {
    const created = await testDb.db.workspace.create({ data: { name: 'acme' } });
    const found = await testDb.db.workspace.findUniqueOrThrow({ where: { id: created.id } });
    expect(found.name).toBe('acme');
  });

  it('rolls back a failed transaction entirely', async () => {
    await expect(
      testDb.db.$transaction(async (tx) => {
        await tx.workspace.create({ data: { name: 'rolled-back' } });
        await tx.workspace.create({ data: { name: 'rolled-back' } }); // unique violation
      }),
    ).rejects.toThrow();
    expect(await testDb.db.workspace.count({ where: { name: 'rolled-back' } })).toBe(0);
  });

  it("lets a transaction that a busy machine makes slower than Prisma's 5 s finish and commit", async () => {
    // pg_sleep stands for a host too busy to come back to the transaction sooner
    await testDb.db.$transaction(async (tx) => {
      await tx.workspace.create({ data: { name: 'slow-but-kept' } });
      await tx.$executeRaw`SELECT pg_sleep(6)`;
    });
    expect(await testDb.db.workspace.count({ where: { name: 'slow-but-kept' } })).toBe(1);
  });

  it('reads a Unix socket folder from ?host= as libpq and Prisma do', () => {
    expect(poolConfigFromUrl('postgresql://u:p@localhost:5433/db?host=/run/postgresql')).toMatchObject({
      host: '/run/postgresql',
      port: 5433,
      database: 'db',
    });
    // not a folder: the URL's host stays
    expect(poolConfigFromUrl('postgresql://u:p@db.internal:5432/db?host=evil')).toMatchObject({
      host: 'db.internal',
    });
  });

  const port = new URL(TEST_PG_URL).port || '5432';
  it('connects over the Unix socket', async () => {
    const socket = `${SOCKET_DIR}/.s.PGSQL.${port}`;
    if (!existsSync(socket))
      throw new Error(
        `no Postgres socket at ${socket}: scripts/services.sh starts Postgres with its sockets in /tmp; for a server of your own set OSMOSIS_TEST_PG_SOCKET_DIR to its socket folder`,
      );
    const url = new URL(testDb.url);
    url.searchParams.set('host', SOCKET_DIR);
    const db = createDb(url.toString(), 2);
    try {
      // NULL for a connection that came in over a Unix socket
      const rows = await db.$queryRaw<{ addr: string | null }[]>`SELECT inet_server_addr()::text AS addr`;
      expect(rows[0]?.addr).toBeNull();
      expect(await db.workspace.count()).toBeGreaterThanOrEqual(1);
    } finally {
      await db.$disconnect();
    }
  });
});
