import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { collectAllGarbage } from '../native-memory.ts';
import { lockDataDir } from './dir-lock.ts';
import { projectPath } from '../paths.ts';
import { sql } from 'drizzle-orm';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import * as schema from './schema/index.ts';

export type StoreDb = PgDatabase<PgQueryResultHKT, typeof schema>;

/** The metadata store: a drizzle database on PGlite (embedded) or a Postgres server. */
export interface Store {
  db: StoreDb;
  kind: 'pglite' | 'postgres';
  /**
   * PostgreSQL only: LISTEN on `channel` on a connection of its own.
   * `onConnect` runs each time the listener is (re)connected (notifications
   * sent while it was away are lost); resolves once it first listens.
   */
  listen?(channel: string, onMessage: (payload: string) => void, onConnect: () => void): Promise<void>;
  close(): Promise<void>;
  /**
   * Set when `db` is a transaction on `base` (storeInTransaction): the
   * caches kept per store are `base`'s, invalidated through this one but
   * never filled from it, since what it reads may not commit.
   */
  base?: Store;
}

/** `store` with `db` a transaction on it, for verbs run inside one larger transaction (a configuration apply). */
export function storeInTransaction(store: Store, tx: StoreDb): Store {
  const base = store.base ?? store;
  return { db: tx, kind: base.kind, base, close: async () => {} };
}

const migrationsFolder = projectPath('origin/store/migrations');

/** Any fixed number: serialises migrations across origins sharing one store. */
const MIGRATION_LOCK = 7_311_001;

/**
 * Opens the store and brings its schema up to date. With a database URL it
 * uses that Postgres server; otherwise PGlite in `dataDir`.
 */
export async function openStore(options: { databaseUrl?: string; dataDir: string }): Promise<Store> {
  if (options.databaseUrl) return openPostgres(options.databaseUrl);
  return openPglite(options.dataDir);
}

/**
 * PostgreSQL's default 128 MB of shared buffers were most of the embedded
 * store's memory (measured in ADR 0001). Its tables are small, and the
 * operating system caches its files.
 */
const PGLITE_SETTINGS = ['-c', 'shared_buffers=16MB'];

async function openPglite(dataDir: string): Promise<Store> {
  const { PGlite } = await import('@electric-sql/pglite');
  const { drizzle } = await import('drizzle-orm/pglite');
  const { migrate } = await import('drizzle-orm/pglite/migrator');
  const dir = `${dataDir.replace(/\/$/, '')}/store`;
  await mkdir(dir, { recursive: true });
  const unlock = lockDataDir(dir);
  process.once('exit', unlock);
  const created = !existsSync(join(dir, 'PG_VERSION'));
  const client = await PGlite.create(dir, { startParams: [...PGlite.defaultStartParams, ...PGLITE_SETTINGS] });
  const db = drizzle(client, { schema });
  await migrate(db, { migrationsFolder });
  // initdb ran in a WebAssembly instance of its own, which V8 frees only at its next collection (ADR 0001).
  if (created) await collectAllGarbage();
  const close = async () => {
    await client.close();
    unlock();
  };
  return { db: db as unknown as StoreDb, kind: 'pglite', close };
}

async function openPostgres(url: string): Promise<Store> {
  const { default: postgres } = await import('postgres');
  const { drizzle } = await import('drizzle-orm/postgres-js');
  const { migrate } = await import('drizzle-orm/postgres-js/migrator');
  // One connection holds a session-level lock while the migrator runs its own transaction.
  const migrator = postgres(url, { max: 1, onnotice: () => {} });
  try {
    await migrator`select pg_advisory_lock(${MIGRATION_LOCK})`;
    await migrate(drizzle(migrator, { schema }), { migrationsFolder });
  } finally {
    await migrator.end({ timeout: 5 });
  }
  // postgres.js waits up to 20 s between attempts after many failures (its default backoff): after an
  // outage the store would answer again while queries still sat out those waits. Half a second at most.
  const client = postgres(url, { max: 10, onnotice: () => {}, backoff: (attempts: number) => Math.min(0.05 * 2 ** attempts, 0.5) });
  const db = drizzle(client, { schema });
  await db.execute(sql`select 1`);
  return {
    db: db as unknown as StoreDb,
    kind: 'postgres',
    listen: async (channel, onMessage, onConnect) => {
      await client.listen(channel, onMessage, onConnect);
    },
    close: () => client.end({ timeout: 5 }),
  };
}
