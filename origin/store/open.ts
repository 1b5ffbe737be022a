import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { Worker } from 'node:worker_threads';
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
export async function openStore(options: { databaseUrl?: string; dataDir: string; progress?: (message: string) => void }): Promise<Store> {
  if (options.databaseUrl) return openPostgres(options.databaseUrl);
  return openPglite(options.dataDir, options.progress ?? (() => {}));
}

/** The embedded store's folder inside the data dir. */
const pgliteDir = (dataDir: string) => `${dataDir.replace(/\/$/, '')}/store`;

/**
 * Where `openStore` will open the store, for the start's log: the embedded
 * store's folder and whether it is new, or a server's host, port and
 * database, never its user or password.
 */
export function storePlace(options: { databaseUrl?: string; dataDir: string }): string {
  if (!options.databaseUrl) {
    const dir = pgliteDir(options.dataDir);
    return existsSync(join(dir, 'PG_VERSION')) ? `the embedded store in ${dir}` : `a new embedded store in ${dir} (creating it takes a few seconds)`;
  }
  try {
    const url = new URL(options.databaseUrl);
    return `PostgreSQL at ${url.host}${url.pathname} (SLUICE_DATABASE_URL)`;
  } catch {
    return 'PostgreSQL (SLUICE_DATABASE_URL)';
  }
}

/**
 * PostgreSQL's default 128 MB of shared buffers were most of the embedded
 * store's memory (measured in ADR 0001). Its tables are small, and the
 * operating system caches its files.
 */
const PGLITE_SETTINGS = ['-c', 'shared_buffers=16MB'];

/** How often a long step of the start says it is still at work. */
const PROGRESS_EVERY_MS = 1500;

/**
 * Runs initdb for a new embedded store in a worker thread: it runs in
 * WebAssembly without yielding for seconds, which on this thread would
 * leave the start silent (nothing can log meanwhile) and keep its ~400 MiB
 * instance until a full collection (ADR 0001). The worker's memory goes
 * with it.
 */
async function createPgliteDir(dir: string, progress: (message: string) => void): Promise<void> {
  const started = performance.now();
  const ticker = setInterval(() => progress(`Still creating the embedded store (${Math.round((performance.now() - started) / 1000)} s)`), PROGRESS_EVERY_MS);
  const pglite = JSON.stringify(import.meta.resolve('@electric-sql/pglite'));
  const code = `const { PGlite } = await import(${pglite}); const client = await PGlite.create(${JSON.stringify(dir)}); await client.close();`;
  try {
    await new Promise<void>((resolve, reject) => {
      const worker = new Worker(code, { eval: true });
      worker.once('error', reject);
      worker.once('exit', (exitCode) => (exitCode === 0 ? resolve() : reject(new Error(`Creating the embedded store in ${dir} failed (its worker exited with ${exitCode})`))));
    });
  } finally {
    clearInterval(ticker);
  }
  progress(`Embedded store created in ${Math.round(performance.now() - started)} ms`);
}

/**
 * V8 compiles a WebAssembly function again, optimised, once it has run a
 * budget of work. PostgreSQL's start runs much of its code just enough to
 * use that budget up once, so with the default most of a start's CPU went
 * to optimising code it would not run again (ADR 0027). With a budget ten
 * times the default, code that stays hot is still optimised.
 */
const WASM_TIERING_BUDGET = '--wasm-tiering-budget=20000000';

async function openPglite(dataDir: string, progress: (message: string) => void): Promise<Store> {
  // A process-wide flag, read when a module is instantiated: set before PGlite's first (also the worker's, which shares it).
  setFlagsFromString(WASM_TIERING_BUDGET);
  const { PGlite } = await import('@electric-sql/pglite');
  const { drizzle } = await import('drizzle-orm/pglite');
  const { migrate } = await import('drizzle-orm/pglite/migrator');
  const dir = pgliteDir(dataDir);
  await mkdir(dir, { recursive: true });
  const unlock = lockDataDir(dir);
  process.once('exit', unlock);
  if (!existsSync(join(dir, 'PG_VERSION'))) await createPgliteDir(dir, progress);
  const client = await PGlite.create(dir, { startParams: [...PGlite.defaultStartParams, ...PGLITE_SETTINGS] });
  const db = drizzle(client, { schema });
  await migrate(db, { migrationsFolder });
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
