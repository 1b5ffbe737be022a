import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../api/connections-fixtures.ts';
import { post } from '../formats/fixture.ts';
import { duckRead } from '../formats/readers.ts';
import type { Origin } from '../harness/origin.ts';
import { startClickhouse, type ClickhouseServer } from '../harness/clickhouse.ts';
import { startQueryOrigin } from '../query/fixture.ts';
import { readAll, startStream } from '../streaming/fixture.ts';
import { eventually } from '../harness/eventually.ts';
import { unique } from '../harness/unique.ts';

/**
 * ClickHouse through the whole origin, over HTTP to ClickHouse 26 (chdb behind
 * the test front): the widest exact values come back digit for digit in
 * json, csv and parquet, and a client that aborts a 5M-row stream ends the
 * statement on the server. chdb shows no statement in `system.processes`, so
 * "on the server" is the front's own table of the statements it is
 * streaming: the driver's KILL QUERY and the closed request both reach it,
 * and the front then cancels chdb's stream (chdb stops between two blocks).
 * A dry run gets ClickHouse's own `EXPLAIN ESTIMATE` figure.
 */

const UINT64_MAX = '18446744073709551615';
const DECIMAL = '1234567890123456789012345678.0123456789';
const NEGATIVE_DECIMAL = '-0.0000000001';
const BIG = 1_000_000;

let ch: ClickhouseServer;
let origin: Origin;
let folder: Awaited<ReturnType<typeof tempDir>>;
let conn: string;

beforeAll(async () => {
  folder = await tempDir();
  ch = await startClickhouse();
  const database = unique('ch_exact');
  await ch.exec(
    'default',
    `CREATE DATABASE ${database}`,
    `CREATE TABLE ${database}.wide (id UInt8, u UInt64, d Decimal(38, 10)) ENGINE = MergeTree ORDER BY id`,
    `INSERT INTO ${database}.wide VALUES (1, ${UINT64_MAX}, ${DECIMAL}), (2, 0, ${NEGATIVE_DECIMAL})`,
    `CREATE TABLE ${database}.big (id UInt64, h String) ENGINE = MergeTree ORDER BY id`,
    `INSERT INTO ${database}.big SELECT number, toString(number) FROM numbers(${BIG})`,
  );
  origin = await startQueryOrigin();
  conn = unique('ch');
  const res = await origin.call('POST', '/api/v1/connections', { name: conn, db: 'clickhouse', host: ch.host, port: ch.port, database });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
}, 120_000);

afterAll(async () => {
  await origin?.stop();
  await ch?.stop();
  await folder?.remove();
});

const SQL = 'SELECT u, d FROM wide ORDER BY id';

describe('exact values', () => {
  it('UInt64 max and Decimal(38,10) in json, digit for digit', async () => {
    const res = await post(origin, { sql: SQL, connection_name: conn }, { format: 'json' });
    expect(res.status, res.text).toBe(200);
    expect(res.text).toContain(`${UINT64_MAX}`);
    expect(res.text).toContain(DECIMAL);
    expect(res.text).toContain(NEGATIVE_DECIMAL);
    expect(res.text).not.toContain('18446744073709552000');
  });

  it('and in csv', async () => {
    const res = await post(origin, { sql: SQL, connection_name: conn }, { format: 'csv' });
    expect(res.status, res.text).toBe(200);
    expect(res.text).toBe(`u,d\r\n${UINT64_MAX},${DECIMAL}\r\n0,${NEGATIVE_DECIMAL}\r\n`);
  });

  it('and in parquet, read back by DuckDB', async () => {
    const res = await post(origin, { sql: SQL, connection_name: conn }, { format: 'parquet' });
    expect(res.status, res.text).toBe(200);
    const back = await duckRead(folder.dir, res.bytes, ['u', 'd']);
    expect(back.rows).toEqual([
      [UINT64_MAX, DECIMAL],
      ['0', NEGATIVE_DECIMAL],
    ]);
  });

  it('a 64-bit parameter binds as a ClickHouse query parameter, exactly', async () => {
    const res = await post(origin, { sql: 'SELECT count() AS n FROM wide WHERE u = toUInt64(:u)', connection_name: conn, params: { u: UINT64_MAX } }, { format: 'csv' });
    expect(res.status, res.text).toBe(200);
    expect(res.text).toBe('n\r\n1\r\n');
  });
});

describe('a dry run', () => {
  it("answers ClickHouse's EXPLAIN ESTIMATE: the rows of the parts a scan reads, capped by the statement's LIMIT; nothing runs", async () => {
    const dry = (sql: string) => origin.call('POST', '/execute_sql?dry_run=true&stream=true&format=ndjson', { sql, connection_name: conn });
    const scan = await dry('SELECT * FROM big');
    expect(scan.status, JSON.stringify(scan.body)).toBe(200);
    expect(scan.body).toMatchObject({ dry_run: true, dialect: 'clickhouse', statement_type: 'SELECT', tables: ['big'], estimate: { rows: BIG, cost: null, source: 'planner' } });
    expect((await dry('SELECT * FROM big LIMIT 10')).body.estimate.rows).toBe(10);
    const slow = Date.now();
    expect((await dry('SELECT sleepEachRow(1) FROM big')).status).toBe(200);
    expect(Date.now() - slow).toBeLessThan(2_000);
  });
});

describe('a client abort', () => {
  it('during a 5M-row stream ends the statement on the server', async () => {
    const tag = unique('abort');
    const { res, controller } = await startStream(
      origin,
      { sql: `SELECT number AS n, '${tag}' AS tag FROM numbers(5000000)`, connection_name: conn },
      { format: 'csv' },
    );
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    await reader.read();
    await reader.read();
    const mine = async () => (await ch.processes()).filter((p) => p.query.includes(tag)).length;
    expect(await mine()).toBe(1);
    controller.abort();
    await readAll(res).catch(() => {});
    await eventually(async () => (await mine()) === 0, { timeoutMs: 10_000 });
    // The driver's KILL QUERY reached the server, naming the statement's id.
    await eventually(async () => (await ch.killed()).length > 0, { timeoutMs: 10_000 });
    const next = await post(origin, { sql: 'SELECT 7 AS x', connection_name: conn }, { format: 'csv' });
    expect(next.text).toBe('x\r\n7\r\n');
  });
});
