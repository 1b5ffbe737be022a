import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import postgres from 'postgres';

/**
 * The rows every scenario reads. Six columns: a BIGINT key, an INTEGER with
 * a NULL every tenth row, a DOUBLE with full precision, a VARCHAR that needs
 * CSV quoting every fiftieth row, a TIMESTAMP and a TIMESTAMPTZ, both with
 * microseconds. The same shape in DuckDB (a table in a file) and in
 * PostgreSQL (generate_series).
 */

export const DUCK_TABLE = 'bench';
export const LOOKUP_TABLE = 'items';
export const LOOKUP_ROWS = 10_000;

export function duckRowsSql(rows: number): string {
  return `SELECT i AS id,
    CASE WHEN i % 10 = 0 THEN NULL ELSE (i % 100000)::INTEGER END AS qty,
    i / 7 AS price,
    CASE WHEN i % 50 = 0 THEN 'name, "' || i || '"' ELSE 'name ' || i END AS name,
    TIMESTAMP '2020-01-01' + to_microseconds(i * 1000003) AS created_at,
    TIMESTAMPTZ '2020-01-01 00:00:00+00' + to_microseconds(i * 6000001) AS updated_at
  FROM range(${rows}) t(i)`;
}

export function pgRowsSql(rows: number): string {
  return `select g::int8 as id,
    case when g % 10 = 0 then null else (g % 100000)::int4 end as qty,
    g / 7::float8 as price,
    case when g % 50 = 0 then 'name, "' || g || '"' else 'name ' || g end as name,
    timestamp '2020-01-01' + g * interval '1.000003 second' as created_at,
    timestamptz '2020-01-01 00:00:00+00' + g * interval '6.000001 second' as updated_at
  from generate_series(0, ${rows - 1}) g`;
}

const lookupSql = (rows: number) => `SELECT i AS id, 'item ' || i AS name, i * 0.25 AS price,
  TIMESTAMP '2024-01-01' + to_seconds(i) AS created_at FROM range(1, ${rows + 1}) t(i)`;

/** Builds `bench.duckdb` in `dir`: the big table and the lookup table (primary key). */
export async function buildDuckFile(dir: string, rows: number): Promise<string> {
  const file = join(dir, 'bench.duckdb');
  const instance = await DuckDBInstance.create(file);
  const connection = await instance.connect();
  try {
    await connection.run(`CREATE TABLE ${DUCK_TABLE} AS ${duckRowsSql(rows)}`);
    await connection.run(`CREATE TABLE ${LOOKUP_TABLE} (id BIGINT PRIMARY KEY, name VARCHAR, price DOUBLE, created_at TIMESTAMP)`);
    await connection.run(`INSERT INTO ${LOOKUP_TABLE} ${lookupSql(LOOKUP_ROWS)}`);
    await connection.run('CHECKPOINT');
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
  return file;
}

export const PG_SCHEMA = 'sluice_bench';

/** Creates the lookup table in its own schema (replaced on every run). */
export async function preparePostgres(url: string): Promise<void> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    await sql.unsafe(`DROP SCHEMA IF EXISTS ${PG_SCHEMA} CASCADE`);
    await sql.unsafe(`CREATE SCHEMA ${PG_SCHEMA}`);
    await sql.unsafe(`CREATE TABLE ${PG_SCHEMA}.${LOOKUP_TABLE} (id int8 PRIMARY KEY, name text, price float8, created_at timestamp)`);
    await sql.unsafe(`INSERT INTO ${PG_SCHEMA}.${LOOKUP_TABLE} SELECT i, 'item ' || i, i * 0.25, timestamp '2024-01-01' + i * interval '1 second'
      FROM generate_series(1, ${LOOKUP_ROWS}) i`);
    await sql.unsafe(`ANALYZE ${PG_SCHEMA}.${LOOKUP_TABLE}`);
  } finally {
    await sql.end({ timeout: 5 });
  }
}

/** Connection fields (`POST /api/v1/connections`) for the PostgreSQL URL. */
export function pgConnectionFields(url: string): Record<string, unknown> {
  const u = new URL(url);
  return {
    db: 'postgres',
    host: u.hostname,
    port: Number(u.port || 5432),
    user: decodeURIComponent(u.username) || null,
    password: u.password ? decodeURIComponent(u.password) : null,
    database: u.pathname.replace(/^\//, '') || null,
    options: { search_path: PG_SCHEMA, sslmode: 'disable' },
  };
}
