import postgres from 'postgres';
import { pgRowsSql } from './dataset.ts';

/**
 * The `peers` scenario's table: `films` in a database of its own (so the
 * origin's store and other scenarios' sessions never count among its
 * backends), the rows of the other PostgreSQL scenarios
 * (pgRowsSql) with `id` as primary key. Kept between runs when it already
 * holds the asked number of rows.
 */

export const FILMS_DB = 'sluice_bench_peers';

export function filmsUrl(serverUrl: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${FILMS_DB}`;
  return url.toString();
}

export async function prepareFilms(serverUrl: string, rows: number, log: (message: string) => void): Promise<string> {
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  try {
    const [found] = await admin`select 1 from pg_database where datname = ${FILMS_DB}`;
    if (!found) await admin.unsafe(`CREATE DATABASE ${FILMS_DB}`);
  } finally {
    await admin.end({ timeout: 5 });
  }
  const url = filmsUrl(serverUrl);
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    const [{ exists }] = await sql<{ exists: boolean }[]>`select to_regclass('public.films') is not null as exists`;
    if (exists) {
      const [{ n }] = await sql<{ n: string }[]>`select count(*)::text as n from films`;
      if (n === String(rows)) return url;
    }
    log(`building films (${rows.toLocaleString('en-US')} rows) in ${FILMS_DB}`);
    await sql.unsafe('DROP TABLE IF EXISTS films');
    await sql.unsafe(`CREATE TABLE films AS ${pgRowsSql(rows)}`);
    await sql.unsafe('ALTER TABLE films ADD PRIMARY KEY (id)');
    await sql.unsafe('VACUUM ANALYZE films');
    return url;
  } finally {
    await sql.end({ timeout: 5 });
  }
}

/**
 * New sessions on the films database while a load runs. A window opened by
 * `watch()` polls the client backends there (pg_stat_activity, every 100 ms,
 * on a connection of its own) and counts, when it stops, those seen that were
 * not there as it opened. pg_stat_database.sessions is not read: a backend
 * adds itself there when it flushes its statistics, which a busy one may put
 * off by seconds, so a session opened before a window could land in it.
 */
export interface SessionCounter {
  watch(): Promise<{ stop(): Promise<number> }>;
  end(): Promise<void>;
}

const POLL_MS = 100;

export async function sessionCounter(url: string): Promise<SessionCounter> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  const backends = async () => {
    const rows = await sql<{ pid: number }[]>`
      select pid from pg_stat_activity
       where datname = ${FILMS_DB} and backend_type = 'client backend' and pid <> pg_backend_pid()`;
    return rows.map((r) => r.pid);
  };
  return {
    async watch() {
      const first = new Set(await backends());
      const seen = new Set<number>();
      let polling: Promise<void> = Promise.resolve();
      const timer = setInterval(() => {
        polling = polling.then(async () => {
          for (const pid of await backends()) if (!first.has(pid)) seen.add(pid);
        });
      }, POLL_MS);
      return {
        async stop() {
          clearInterval(timer);
          await polling;
          for (const pid of await backends()) if (!first.has(pid)) seen.add(pid);
          return seen.size;
        },
      };
    },
    end: () => sql.end({ timeout: 5 }),
  };
}
