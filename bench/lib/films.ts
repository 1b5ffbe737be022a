import postgres from 'postgres';
import { pgRowsSql } from './dataset.ts';

/**
 * The `peers` scenario's table: `films` in a database of its own (so the
 * origin's store and other scenarios' sessions never count in its
 * pg_stat_database row), the rows of the other PostgreSQL scenarios
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
 * Sessions ever established on the films database (pg_stat_database.sessions),
 * read on a connection of its own. A backend reports its own session when it
 * first goes idle, so the counter's is left to land before the first reading.
 */
export interface SessionCounter {
  read(): Promise<number>;
  end(): Promise<void>;
}

export async function sessionCounter(url: string): Promise<SessionCounter> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  const counter = {
    async read() {
      await sql`select pg_stat_clear_snapshot()`;
      const [{ sessions }] = await sql<{ sessions: string }[]>`select sessions::text from pg_stat_database where datname = ${FILMS_DB}`;
      return Number(sessions);
    },
    end: () => sql.end({ timeout: 5 }),
  };
  await counter.read();
  await new Promise((r) => setTimeout(r, 1500));
  return counter;
}
