// The driver adapter that Prisma's CLI (migrate deploy/dev/status/reset) uses through the Wasm
// schema engine. Native Prisma engines cannot be downloaded on our machines, so migrations go
// through @prisma/adapter-pg 6.19.3, which has four defects on this path. Each is fixed here,
// in one place, so the rest of the code uses the adapter as documented:
//
//  1. Introspection returns columns of Postgres types `name` (19), `"char"` (18), regproc (24),
//     regclass (2205) and regtype (2206); the adapter rejects them ("could not be
//     deserialized"). Their text form is all the schema engine needs, so they are relabelled
//     as `text` before the adapter maps column types.
//  2. Given a `connectionString`, the shadow-database pool (`{...config, database}`) still
//     connects to the main database because the URL wins. We pass discrete options instead.
//  3. The shadow database is dropped while its own pool still holds connections, which fails.
//     We close that pool first, then drop.
//  4. Migration scripts are split on every `;`, which breaks `$$`-quoted function bodies.
//     We send each script whole (Postgres runs multi-statement simple queries fine).
import { PrismaPg } from '@prisma/adapter-pg';
import type pg from 'pg';

const TEXT_OID = 25;
const OIDS_READ_AS_TEXT = new Set([18, 19, 24, 2205, 2206]);

type QueryResultLike = { fields?: { dataTypeID: number }[] } | { fields?: { dataTypeID: number }[] }[];
type Patchable = {
  performIO: (query: unknown) => Promise<QueryResultLike>;
  startTransaction: (isolationLevel?: unknown) => Promise<unknown>;
  executeScript: (script: string) => Promise<void>;
  client: { query: (text: string) => Promise<unknown> };
  onError: (error: unknown) => never;
};

/** Discrete pg options from a postgres:// URL (defect 2). */
export function poolConfigFromUrl(databaseUrl: string): pg.PoolConfig {
  const url = new URL(databaseUrl);
  const schema = url.searchParams.get('schema');
  // ?host=/run/postgresql: a Unix socket's folder, as libpq and Prisma read it (one host, no TCP)
  const socketDir = url.searchParams.get('host');
  return {
    host: socketDir?.startsWith('/') ? socketDir : decodeURIComponent(url.hostname),
    port: url.port ? Number(url.port) : 5432,
    user: decodeURIComponent(url.username),
    password: decodeURIComponent(url.password),
    database: decodeURIComponent(url.pathname.replace(/^\//, '')),
    ...(schema ? { options: `-c search_path=${schema}` } : {}),
  };
}

function relabelTextColumns(queryable: Pick<Patchable, 'performIO'>): void {
  const original = queryable.performIO.bind(queryable);
  queryable.performIO = async (query: unknown) => {
    const result = await original(query);
    // A multi-statement script (how migrations are applied) yields one result per statement.
    for (const part of Array.isArray(result) ? result : [result]) {
      for (const field of part.fields ?? []) {
        if (OIDS_READ_AS_TEXT.has(field.dataTypeID)) field.dataTypeID = TEXT_OID;
      }
    }
    return result;
  };
}

function patchAdapter<T>(adapter: T): T {
  const target = adapter as unknown as Patchable;
  relabelTextColumns(target);
  const startTransaction = target.startTransaction.bind(target);
  target.startTransaction = async (isolationLevel?: unknown) => {
    const tx = await startTransaction(isolationLevel);
    relabelTextColumns(tx as Patchable);
    return tx;
  };
  target.executeScript = async (script: string) => {
    try {
      await target.client.query(script);
    } catch (error) {
      target.onError(error);
    }
  };
  return adapter;
}

/** PrismaPg for the Prisma CLI's migration commands, with the four defects above handled. */
export class MigrationPrismaPg extends PrismaPg {
  private readonly poolConfig: pg.PoolConfig;

  constructor(databaseUrl: string) {
    const config = poolConfigFromUrl(databaseUrl);
    super(config);
    this.poolConfig = config;
  }

  override async connect() {
    return patchAdapter(await super.connect());
  }

  override async connectToShadowDb() {
    const main = await this.connect();
    const database = `prisma_migrate_shadow_db_${globalThis.crypto.randomUUID().replaceAll('-', '')}`;
    await main.executeScript(`CREATE DATABASE "${database}"`);
    const shadow = new PrismaPg({ ...this.poolConfig, database });
    const adapter = patchAdapter(await shadow.connect());
    const dispose = adapter.dispose.bind(adapter);
    adapter.dispose = async () => {
      await dispose(); // closes the shadow pool before the database goes (defect 3)
      await main.executeScript(`DROP DATABASE IF EXISTS "${database}"`);
      await main.dispose();
    };
    return adapter;
  }
}
