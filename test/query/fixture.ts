import { createServer } from 'node:net';
import { join } from 'node:path';
import mysql from 'mysql2/promise';
import postgres from 'postgres';
import { expect } from 'vitest';
import type { Dialect } from '../../origin/drivers/types.ts';
import { MY, PG, duckdbExec, myExec, pgExec, sqliteExec } from '../api/connections-fixtures.ts';
import type { Origin } from '../harness/origin.ts';
import { sharedOrigin } from '../harness/shared-origin.ts';
import { unique } from '../harness/unique.ts';

/**
 * Shared pieces of the black-box query tests: one database of each type per
 * test file (a Postgres schema, a MariaDB database, a DuckDB file, a SQLite
 * file, each uniquely named), seeded through the databases' own clients, and
 * a typed caller for `POST /execute_sql`.
 */

export const DRIVERS: Dialect[] = ['postgres', 'mysql', 'duckdb', 'sqlite'];

/** Set explicitly, so expectations never depend on the runner's own TZ. */
export const ZONE = 'Europe/Paris';

/** The origin with `env` (TZ=Europe/Paris), shared by the files of a project without isolation (harness/shared-origin.ts). */
export function startQueryOrigin(env: Record<string, string> = {}): Promise<Origin> {
  return sharedOrigin({ TZ: ZONE, ...env });
}

export interface TestDb {
  driver: Dialect;
  /** Fields for `POST /api/v1/connections`, without the name. */
  fields: Record<string, unknown>;
  /** Runs statements through the database's own client. DuckDB: only while no origin holds the file. */
  exec(...statements: string[]): Promise<void>;
  /** Rows of one read through the database's own client (Postgres and MariaDB only). */
  query(sql: string, values?: unknown[]): Promise<Record<string, unknown>[]>;
  /** Drops the schema or database (files go with the test's temp folder). */
  drop(): Promise<void>;
}

/** A fresh, empty database of `driver`, its files under `dir`. */
export async function createTestDb(driver: Dialect, dir: string): Promise<TestDb> {
  const name = unique('sq');
  const noQuery = () => Promise.reject(new Error(`query() is for postgres and mysql, not ${driver}`));
  switch (driver) {
    case 'clickhouse':
    case 'jdbc':
      throw new Error('ClickHouse and JDBC are tested by test/drivers/conformance.test.ts, test/clickhouse/ and test/jdbc/, not here');
    case 'postgres': {
      await pgExec(`CREATE SCHEMA ${name}`);
      return {
        driver,
        fields: { db: 'postgres', host: PG.host, port: PG.port, user: PG.user, database: PG.database, options: { search_path: name } },
        exec: (...statements) => pgExec(`SET search_path TO ${name}`, ...statements),
        query: async (sql, values = []) => {
          const client = postgres({ ...PG, max: 1, onnotice: () => {}, connection: { search_path: name } });
          try {
            return [...(await client.unsafe(sql, values as never[]))];
          } finally {
            await client.end({ timeout: 5 });
          }
        },
        drop: () => pgExec(`DROP SCHEMA IF EXISTS ${name} CASCADE`),
      };
    }
    case 'mysql': {
      await myExec(`CREATE DATABASE ${name} CHARACTER SET utf8mb4`);
      return {
        driver,
        fields: { db: 'mysql', host: MY.host, port: MY.port, user: MY.user, database: name },
        exec: (...statements) => myExec(`USE ${name}`, "SET time_zone = '+00:00'", ...statements),
        query: async (sql, values = []) => {
          const conn = await mysql.createConnection({ ...MY, password: '', database: name });
          try {
            const [rows] = await conn.query(sql, values);
            return rows as Record<string, unknown>[];
          } finally {
            await conn.end();
          }
        },
        drop: () => myExec(`DROP DATABASE IF EXISTS ${name}`),
      };
    }
    case 'duckdb': {
      const file = join(dir, `${name}.duckdb`);
      await duckdbExec(file);
      return {
        driver,
        fields: { db: 'duckdb', database: file },
        exec: (...statements) => duckdbExec(file, ...statements),
        query: noQuery,
        drop: async () => {},
      };
    }
    case 'sqlite': {
      const file = join(dir, `${name}.sqlite`);
      sqliteExec(file);
      return {
        driver,
        fields: { db: 'sqlite', database: file },
        exec: async (...statements) => sqliteExec(file, ...statements),
        query: noQuery,
        drop: async () => {},
      };
    }
  }
}

/** The table every GUARD_CORPUS read uses: `sluice_probe (id integer, name text)`, ids 1-3. */
export const PROBE_SEED = [
  'CREATE TABLE sluice_probe (id integer, name text)',
  "INSERT INTO sluice_probe VALUES (1, 'a'), (2, 'b'), (3, 'c')",
];

/** Saves a connection to `db` on `origin` under a unique name and returns the name. */
export async function addConnection(origin: Origin, db: TestDb, extra: Record<string, unknown> = {}): Promise<string> {
  const name = unique(`q_${db.driver}`);
  const res = await origin.call('POST', '/api/v1/connections', { name, ...db.fields, ...extra });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return name;
}

export interface SqlResponse {
  status: number;
  headers: Headers;
  /** The raw body: exact numbers are checked here, before JSON.parse rounds them. */
  text: string;
  body: any;
  /** Wall time of the request, in milliseconds. */
  ms: number;
}

/** Every response carries `X-Request-Id`: 12 hex characters. */
export function expectRequestId(headers: Headers): void {
  expect(headers.get('x-request-id')).toMatch(/^[0-9a-f]{12}$/);
}

/**
 * `POST /execute_sql` with a JSON body (a string is sent as is) and query-string
 * options. Checks the request id of every response.
 */
export async function executeSql(
  origin: Origin,
  body: unknown,
  query: Record<string, string | number | boolean> = {},
  headers: Record<string, string> = {},
): Promise<SqlResponse> {
  const search = new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)])).toString();
  const t0 = performance.now();
  const res = await origin.fetch(`/execute_sql${search ? `?${search}` : ''}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  const ms = performance.now() - t0;
  expectRequestId(res.headers);
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    /* not JSON: keep the text */
  }
  return { status: res.status, headers: res.headers, text, body: parsed, ms };
}

/** The rows of a paged JSON answer; the empty-result message counts as none. */
export function rowsOf(res: SqlResponse): Record<string, unknown>[] {
  expect(res.status, res.text).toBe(200);
  if (!Array.isArray(res.body)) {
    expect(res.body).toEqual({ message: 'No results returned' });
    return [];
  }
  return res.body;
}

/** The first column of each row, as numbers. */
export const firstColumn = (res: SqlResponse) => rowsOf(res).map((row) => Number(Object.values(row)[0]));

/** A query-route error: `{error, ...}` with the status, and no management-API fields. */
export function expectQueryError(res: SqlResponse, status: number): any {
  expect(res.status, res.text).toBe(status);
  expect(typeof res.body.error, res.text).toBe('string');
  expect(res.body.error.length).toBeGreaterThan(0);
  expect(res.body).not.toHaveProperty('code');
  return res.body;
}

/** A TCP port nothing listens on: bound, then released. */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}
