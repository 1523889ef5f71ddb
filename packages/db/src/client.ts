import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { PrismaClient } from './generated/prisma/client.ts';
import { poolConfigFromUrl } from './migration-adapter.ts';

export const DEFAULT_DATABASE_URL = 'postgresql://osmosis:osmosis@127.0.0.1:54329/osmosis';

export type Db = PrismaClient;

/** The pg pool under each client createDb made (raw.ts sends the hot path's statements on it). */
const pools = new WeakMap<object, pg.Pool>();

/**
 * Each client's connections for the hot path's single statements (raw.ts queryGeneric): generic
 * plans for the whole session, so such a statement needs no transaction of its own to set
 * plan_cache_mode. In a transaction (BEGIN and SET, the statement, COMMIT: three round trips) its
 * row locks, the roll-up rows' too, were held until a busy worker's event loop came round to the
 * COMMIT, and other results queued behind them (17 backends idle in a transaction at 100 x 8,
 * bench/dispatch-scale.ts). Not the main pool: Prisma's statements there keep Postgres's choice.
 *
 * Sorts are also priced out there (enable_sort=off: a plan that needs none wins if there is one).
 * A worker's claim (claim.ts) must walk attempts_claim_idx in order; with statistics taken before
 * a big run's attempts were inserted (autoanalyze comes later), Postgres planned it as a bitmap
 * scan of every queued attempt and a sort — 9 000 rows and ~820 shared blocks a claim instead of
 * ~100, and a generic plan keeps its choice until the next ANALYZE (bench/dispatch-scale.ts,
 * auto_explain). Neither statement on these connections needs a sort.
 *
 * And JIT is off there: with sorts priced out, a statement that does need one (a trigger's, inside
 * a hot-path statement, counts) is costed past jit_above_cost, and Postgres compiled it with LLVM
 * at every execution: ~140 ms a result for a trigger's INSERT … ORDER BY, the bench at 34 starts/s
 * (bench/dispatch-scale.ts). Off, such a mistake costs a sort, not a compile.
 */
const genericPools = new WeakMap<object, pg.Pool>();

/**
 * Interactive transactions' limits when a call sets none. Prisma's own (2 s to get a connection,
 * 5 s in all) ended short transactions on a busy machine — an attempt's lease or result written
 * while the host ran the suite beside CPU hogs took 6 s — and the work they carried was lost with
 * them. These still end a transaction whose process has stalled.
 */
const TRANSACTION_DEFAULTS = Object.freeze({ maxWait: 15_000, timeout: 60_000 });

/** A Prisma client on the pg driver adapter (no native query engine). */
export function createDb(
  databaseUrl: string = process.env.DATABASE_URL ?? DEFAULT_DATABASE_URL,
  poolSize = 10,
): Db {
  const pool = new pg.Pool({ ...poolConfigFromUrl(databaseUrl), max: poolSize });
  // an idle connection the server dropped (a restart) is an 'error' on the pool: the pool replaces
  // it; unhandled, the event would end the process before Prisma attaches its own handler
  pool.on('error', () => undefined);
  const db = new PrismaClient({
    adapter: new PrismaPg(pool, { disposeExternalPool: true }),
    transactionOptions: TRANSACTION_DEFAULTS,
  });
  pools.set(db, pool);
  // pg opens connections only when a statement needs one: a process that sends no hot-path
  // statement (the API) opens none here
  const config = poolConfigFromUrl(databaseUrl);
  const generic = new pg.Pool({
    ...config,
    max: Math.max(2, Math.ceil(poolSize / 2)),
    options: [config.options, '-c plan_cache_mode=force_generic_plan -c enable_sort=off -c jit=off']
      .filter(Boolean)
      .join(' '),
  });
  generic.on('error', () => undefined);
  genericPools.set(db, generic);
  // $disconnect ends both pools (the adapter ends the main one)
  const disconnect = db.$disconnect.bind(db);
  db.$disconnect = async () => {
    try {
      await disconnect();
    } finally {
      if (!generic.ended) await generic.end();
    }
  };
  return db;
}

/** The pg pool under a client made by createDb (undefined for a transaction client or another client). */
export function poolOf(db: object): pg.Pool | undefined {
  return pools.get(db);
}

/** The generic-plan pool of a client made by createDb (undefined for any other client). */
export function genericPoolOf(db: object): pg.Pool | undefined {
  return genericPools.get(db);
}
