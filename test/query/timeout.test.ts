import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Dialect } from '../../origin/drivers/types.ts';
import { tempDir } from '../api/connections-fixtures.ts';
import type { Origin } from '../harness/origin.ts';
import {
  DRIVERS,
  type SqlResponse,
  type TestDb,
  addConnection,
  createTestDb,
  executeSql,
  expectQueryError,
  rowsOf,
  startQueryOrigin,
} from './fixture.ts';

/**
 * Time limits on every database: past its `timeout` a statement answers 504
 * and is cancelled in the database; a request can lower the server's
 * SLUICE_QUERY_TIMEOUT but never raise it.
 */

/** A statement that runs far longer than any limit here (30 s or forever), tagged so it can be found. */
function slowSql(driver: Dialect, tag: string): string {
  switch (driver) {
    case 'clickhouse':
    case 'jdbc':
      throw new Error('ClickHouse and JDBC are tested by test/drivers/conformance.test.ts, test/clickhouse/ and test/jdbc/, not here');
    case 'postgres':
      return `SELECT pg_sleep(30) AS slept, '${tag}' AS tag`;
    case 'mysql':
      return `SELECT SLEEP(30) AS slept, '${tag}' AS tag`;
    case 'duckdb':
      return `SELECT count(*) AS n, '${tag}' AS tag FROM range(1000000000) a, range(1000000000) b`;
    case 'sqlite':
      return `WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT count(*) AS n, '${tag}' AS tag FROM r`;
  }
}

/** Statements of this test still running in the database, looked up with its own client. */
async function runningWith(db: TestDb, tag: string): Promise<number> {
  const pattern = `%${tag}%`;
  if (db.driver === 'postgres') {
    const [row] = await db.query(
      "SELECT count(*)::int AS n FROM pg_stat_activity WHERE state = 'active' AND query LIKE $1 AND pid <> pg_backend_pid()",
      [pattern],
    );
    return Number(row.n);
  }
  const [row] = await db.query(
    "SELECT count(*) AS n FROM information_schema.processlist WHERE info LIKE ? AND command <> 'Sleep' AND id <> connection_id()",
    [pattern],
  );
  return Number(row.n);
}

/** Polls until no statement with the tag runs (a cancel lands within moments), for at most 10 s: well before it would end by itself. */
async function settledRunning(db: TestDb, tag: string): Promise<number> {
  const deadline = Date.now() + 10_000;
  let n = await runningWith(db, tag);
  while (n > 0 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
    n = await runningWith(db, tag);
  }
  return n;
}

const tagOf = () => `sluice_timeout_${randomBytes(6).toString('hex')}`;

let origin: Origin;
let capped: Origin;
let folder: Awaited<ReturnType<typeof tempDir>>;
const dbs = {} as Record<Dialect, TestDb>;
const conn = {} as Record<Dialect, string>;
const cappedConn = {} as Record<Dialect, string>;

beforeAll(async () => {
  folder = await tempDir();
  await Promise.all(DRIVERS.map(async (driver) => (dbs[driver] = await createTestDb(driver, folder.dir))));
  [origin, capped] = await Promise.all([startQueryOrigin(), startQueryOrigin({ SLUICE_QUERY_TIMEOUT: '1' })]);
  for (const driver of DRIVERS) {
    conn[driver] = await addConnection(origin, dbs[driver]);
    // DuckDB opens a file in one process at a time: the second server gets a database of its own.
    cappedConn[driver] = await addConnection(
      capped,
      driver === 'duckdb' ? { ...dbs.duckdb, fields: { db: 'duckdb', database: ':memory:' } } : dbs[driver],
    );
  }
});

afterAll(async () => {
  await Promise.all([origin?.stop(), capped?.stop()]);
  await Promise.all(Object.values(dbs).map((db) => db.drop()));
  await folder?.remove();
});

/** 504 with `timeout` (seconds), answered past the limit and well before the statement would end (30 s; generous for a loaded machine). */
function expectTimedOut(res: SqlResponse, seconds: number) {
  const body = expectQueryError(res, 504);
  expect(body.timeout).toBe(seconds);
  expect(res.ms).toBeGreaterThanOrEqual(seconds * 1000 - 100);
  expect(res.ms).toBeLessThan(seconds * 1000 + 10_000);
}

describe.each(DRIVERS)('%s', (driver) => {
  const db = () => dbs[driver];

  it('answers 504 past ?timeout=1, cancels the statement in the database, and the connection answers next', async () => {
    const tag = tagOf();
    expectTimedOut(await executeSql(origin, { sql: slowSql(driver, tag), connection_name: conn[driver] }, { timeout: 1 }), 1);
    if (driver === 'postgres' || driver === 'mysql') expect(await settledRunning(db(), tag)).toBe(0);

    const next = await executeSql(origin, { sql: 'SELECT 42 AS answer', connection_name: conn[driver] });
    expect(rowsOf(next)).toEqual([{ answer: 42 }]);
    // Not queued behind the cancelled statement, which would hold it for 30 s.
    expect(next.ms).toBeLessThan(15_000);
  });

  it('takes the timeout from the body too (fractions of a second allowed)', async () => {
    const tag = tagOf();
    expectTimedOut(await executeSql(origin, { sql: slowSql(driver, tag), connection_name: conn[driver], timeout: 1.5 }), 1.5);
    if (driver === 'postgres' || driver === 'mysql') expect(await settledRunning(db(), tag)).toBe(0);
  });

  it('never raises the server limit: SLUICE_QUERY_TIMEOUT=1 with ?timeout=60 stops after about 1 s', async () => {
    const tag = tagOf();
    expectTimedOut(await executeSql(capped, { sql: slowSql(driver, tag), connection_name: cappedConn[driver] }, { timeout: 60 }), 1);
    if (driver === 'postgres' || driver === 'mysql') expect(await settledRunning(db(), tag)).toBe(0);
  });

  it('answers 400 for a timeout that is not a positive number of seconds', async () => {
    for (const timeout of ['abc', '-1', '1s']) {
      expectQueryError(await executeSql(origin, { sql: 'SELECT 1 AS x', connection_name: conn[driver] }, { timeout }), 400);
    }
  });
});
