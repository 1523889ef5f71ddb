import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { PrismaClient } from './generated/prisma/client.ts';
import { poolConfigFromUrl } from './migration-adapter.ts';

export const DEFAULT_DATABASE_URL = 'postgresql://osmosis:osmosis@127.0.0.1:54329/osmosis';

export type Db = PrismaClient;

/** The pg pool under each client createDb made (raw.ts sends the hot path's statements on it). */
const pools = new WeakMap<object, pg.Pool>();

/** A Prisma client on the pg driver adapter (no native query engine). */
export function createDb(
  databaseUrl: string = process.env.DATABASE_URL ?? DEFAULT_DATABASE_URL,
  poolSize = 10,
): Db {
  const pool = new pg.Pool({ ...poolConfigFromUrl(databaseUrl), max: poolSize });
  // an idle connection the server dropped (a restart) is an 'error' on the pool: the pool replaces
  // it; unhandled, the event would end the process before Prisma attaches its own handler
  pool.on('error', () => undefined);
  const db = new PrismaClient({ adapter: new PrismaPg(pool, { disposeExternalPool: true }) });
  pools.set(db, pool);
  return db;
}

/** The pg pool under a client made by createDb (undefined for a transaction client or another client). */
export function poolOf(db: object): pg.Pool | undefined {
  return pools.get(db);
}
