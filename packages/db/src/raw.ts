// The attempt hot path's statements (a start, a result, lease renewals) sent on createDb's pg pool
// directly. Prisma's $queryRaw spends ~0.45 ms of CPU per statement in the client against ~0.09 ms
// for the same statement on the pool (packages/db/bench/query-overhead.ts), and a worker host
// sends several per attempt; the statements themselves are the same Prisma.sql templates.
import pg from 'pg';
import { type Db, poolOf } from './client.ts';
import type { Prisma } from './generated/prisma/client.ts';

const TIMESTAMP = pg.types.builtins.TIMESTAMP;

/**
 * `timestamp without time zone` columns hold UTC wall time (as Prisma writes them); pg would read
 * them as the host's local time.
 */
const types = {
  getTypeParser: ((oid: number, format?: string) =>
    oid === TIMESTAMP && format !== 'binary'
      ? (value: string) => new Date(`${value.replace(' ', 'T')}Z`)
      : pg.types.getTypeParser(oid, format as 'text')) as pg.CustomTypesConfig['getTypeParser'],
};

/** A Date as the UTC wall time a `timestamp` column holds (pg would send the host's local time). */
function parameter(value: unknown): unknown {
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'bigint') return value.toString();
  return value;
}

/** Runs the statement on the client's pg pool (falls back to $queryRaw for a transaction client). */
export async function queryRows<T>(
  db: Pick<Prisma.TransactionClient, '$queryRaw'>,
  sql: Prisma.Sql,
): Promise<T[]> {
  const pool = poolOf(db);
  if (!pool) return db.$queryRaw<T[]>(sql);
  const result = await pool.query({ text: sql.text, values: sql.values.map(parameter), types });
  return result.rows as T[];
}

/** The statements of one transaction, on one of the pool's connections (or a Prisma transaction). */
export type RawQuery = <T>(sql: Prisma.Sql) => Promise<T[]>;

/** Runs `fn` in a transaction on the client's pg pool (a Prisma interactive transaction without one). */
export async function rawTransaction<T>(db: Db, fn: (query: RawQuery) => Promise<T>): Promise<T> {
  const pool = poolOf(db);
  if (!pool) return db.$transaction((tx) => fn((sql) => tx.$queryRaw(sql)));
  const client = await pool.connect();
  let broken: unknown;
  try {
    await client.query('BEGIN');
    const result = await fn(async <R>(sql: Prisma.Sql) => {
      const rows = await client.query({ text: sql.text, values: sql.values.map(parameter), types });
      return rows.rows as R[];
    });
    await client.query('COMMIT');
    return result;
  } catch (error) {
    broken = await client.query('ROLLBACK').then(
      () => undefined,
      (rollbackError: unknown) => rollbackError,
    );
    throw error;
  } finally {
    // a connection whose rollback failed is in no known state: the pool drops it
    client.release(broken instanceof Error ? broken : undefined);
  }
}
