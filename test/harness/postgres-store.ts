import { randomBytes } from 'node:crypto';
import postgres from 'postgres';

/** The machine's Postgres server: trust auth, user postgres. */
const SERVER = { host: '127.0.0.1', port: 5432, user: 'postgres' };

export interface FreshDatabase {
  /** `postgres://postgres@127.0.0.1:5432/<name>`, for SLUICE_DATABASE_URL or openStore. */
  url: string;
  name: string;
  /** Terminates every connection to the database and drops it. Safe to call twice. */
  drop(): Promise<void>;
}

async function onMaintenance<T>(run: (sql: postgres.Sql) => Promise<T>): Promise<T> {
  const sql = postgres({ ...SERVER, database: 'postgres', max: 1, onnotice: () => {} });
  try {
    return await run(sql);
  } finally {
    await sql.end({ timeout: 5 });
  }
}

/**
 * Creates an empty, uniquely named database (`sluice_t_<hex>`) on the test
 * server, so each test file gets a store no other file or run touches.
 */
export async function freshDatabase(): Promise<FreshDatabase> {
  const name = `sluice_t_${randomBytes(6).toString('hex')}`;
  await onMaintenance((sql) => sql.unsafe(`create database ${name}`));
  let dropped = false;
  return {
    name,
    url: `postgres://${SERVER.user}@${SERVER.host}:${SERVER.port}/${name}`,
    async drop() {
      if (dropped) return;
      dropped = true;
      await onMaintenance(async (sql) => {
        await sql`select pg_terminate_backend(pid) from pg_stat_activity where datname = ${name} and pid <> pg_backend_pid()`;
        await sql.unsafe(`drop database if exists ${name} with (force)`);
      });
    },
  };
}
