import './zone.ts';
import { writeFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DuckdbDriver } from '../../origin/drivers/duckdb/driver.ts';
import { parquetSerializer, rowGroupRows } from '../../origin/formats/parquet.ts';
import { READ_ONLY_ENV, duckFixture, request } from './pushdown.ts';

/**
 * DuckDB parquet push-down (`Driver.streamParquet`): the file DuckDB writes
 * and the file the JS writer makes of the driver's values (the path
 * SLUICE_STREAM_PUSHDOWN=0 takes), read back by DuckDB, have the same column
 * names, the same column types, the same logical parquet types and the same
 * rows in the same order, over edge values. A value the JS writer would type
 * otherwise (a non-finite date, a 128-bit integer past 64 bits) makes the
 * push-down resolve null, and a declined type never runs.
 */

let dir: string;
let driver: DuckdbDriver;
let reader: DuckDBInstance;
let read: DuckDBConnection;
let files = 0;

const SETUP = [
  `CREATE TYPE mood AS ENUM ('a', 'b,c', 'é 中')`,
  `CREATE TABLE edge (
    b BOOLEAN, ti TINYINT, si SMALLINT, i INTEGER, bi BIGINT, hi HUGEINT, ub UBIGINT, ui UINTEGER,
    f FLOAT, d DOUBLE, dec DECIMAL(18,3), dec38 DECIMAL(38,10), dec4 DECIMAL(4,0), v VARCHAR, e mood, u UUID, bl BLOB,
    dt DATE, ts TIMESTAMP, ts_s TIMESTAMP_S, ts_ms TIMESTAMP_MS, tz TIMESTAMPTZ, t TIME)`,
  `INSERT INTO edge VALUES
    (NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
    (true, -128, -32768, -2147483648, -9223372036854775808, -9223372036854775808, 9223372036854775807, 4294967295,
     3.4e38, -0.0, -999999999999999.999, 0.0000000001, -9999, '', 'a',
     '00000000-0000-0000-0000-000000000000', ''::BLOB, DATE '0001-01-01', TIMESTAMP '0001-01-01 00:00:00',
     TIMESTAMP_S '1970-01-01 00:00:00', TIMESTAMP_MS '1969-12-31 23:59:59.999', TIMESTAMPTZ '1970-01-01 00:00:00+00', TIME '00:00:00'),
    (false, 127, 32767, 2147483647, 9223372036854775807, 9223372036854775807, 0, 0,
     0.1, 9007199254740993, 0.5, -1.0000000001, 0, 'a,b', 'b,c', 'ffffffff-ffff-ffff-ffff-ffffffffffff', '\\x00\\xFF\\x10'::BLOB,
     DATE '9999-12-31', TIMESTAMP '9999-12-31 23:59:59.999999', TIMESTAMP_S '2038-01-19 03:14:08', TIMESTAMP_MS '2024-02-29 12:00:00.5',
     TIMESTAMPTZ '2024-04-06 15:29:59.999999+00', TIME '24:00:00'),
    (NULL, 1, 2, 3, 9007199254740993, 9007199254740992, 9007199254740995, 7,
     -1.5e-7, 1e21, 0.000, 12345678901234567890.1234567890, 1, 'say "hi", then' || chr(10) || 'leave' || chr(13), 'é 中',
     '123e4567-e89b-12d3-a456-426614174000', 'hello'::BLOB, DATE '-0043-03-15', TIMESTAMP '-0043-03-15 12:00:00.25', NULL, NULL,
     TIMESTAMPTZ '2024-10-05 15:30:00.000001+00', TIME '12:34:56.789012'),
    (true, NULL, NULL, NULL, -9007199254740993, NULL, NULL, NULL,
     'nan'::FLOAT, 'inf'::DOUBLE, NULL, NULL, NULL, 'tab' || chr(9) || 'back\\slash ' || chr(1) || ' é 中 😀 ' || chr(8232),
     NULL, NULL, NULL, DATE '2024-02-29', TIMESTAMP '2024-04-07 02:30:00', NULL, NULL, TIMESTAMPTZ '2024-04-06 15:30:00+00', NULL)`,
  // Enough rows for several row groups in both writers, in the daylight-saving zone's change weeks.
  `CREATE TABLE many AS SELECT i AS id, i * 1000003 AS big, ((i % 100000) / 100)::DECIMAL(9,2) AS price, 'name ' || i AS name,
     TIMESTAMPTZ '2024-04-06 12:00:00+00' + to_microseconds(i * 60000007) AS seen, DATE '2024-01-01' + (i % 400)::INTEGER AS day
   FROM range(25000) t(i)`,
];

beforeAll(async () => {
  let file: string;
  ({ dir, file } = await duckFixture('sluice-parquet-pushdown-', SETUP));
  driver = new DuckdbDriver({ type: 'duckdb', database: file, options: {} }, READ_ONLY_ENV);
  reader = await DuckDBInstance.create(':memory:');
  read = await reader.connect();
});

afterAll(async () => {
  await driver?.close();
  read?.closeSync();
  reader?.closeSync();
  await rm(dir, { recursive: true, force: true });
});

async function bytesOf(chunks: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const chunk of chunks) parts.push(Buffer.from(chunk));
  return Buffer.concat(parts);
}

async function saved(bytes: Buffer): Promise<string> {
  const path = join(dir, `out-${++files}.parquet`);
  await writeFile(path, bytes);
  return path;
}

/** The JS path: the driver's values through the parquet writer. */
async function jsFile(sql: string): Promise<string> {
  const cursor = await driver.run(request(sql));
  try {
    return await saved(await bytesOf(parquetSerializer().serialize(cursor.columns, cursor.batches)));
  } finally {
    await cursor.close();
  }
}

/** The push-down: the file DuckDB wrote, or null when it declined. */
async function pushedFile(sql: string): Promise<{ path: string; rows: number } | null> {
  const stream = await driver.streamParquet(request(sql), { rowGroupRows });
  if (!stream) return null;
  try {
    return { path: await saved(await bytesOf(stream.batches)), rows: stream.rows };
  } finally {
    await stream.close();
  }
}

const quoted = (path: string) => `'${path.replace(/'/g, "''")}'`;

async function rowsOf(sql: string): Promise<string[][]> {
  return (await read.runAndReadAll(sql)).getRows().map((row) => row.map((v) => (v === null ? 'NULL' : String(v))));
}

/** What a reader sees of each column: DuckDB's type, and the parquet logical type (the converted type where none). */
async function typesOf(path: string): Promise<string[][]> {
  const described = await rowsOf(`DESCRIBE SELECT * FROM read_parquet(${quoted(path)})`);
  const schema = await rowsOf(`SELECT name, coalesce(CAST(logical_type AS VARCHAR), converted_type, type) FROM parquet_schema(${quoted(path)}) WHERE name <> 'root' AND name <> 'duckdb_schema'`);
  const logical = (text: string) =>
    // The same logical types, spelt by the JS writer and by DuckDB: STRING is UTF8, and DuckDB also annotates plain integers.
    text.replace(/^StringType\(\)$/, 'UTF8').replace(/^DateType\(\)$/, 'DATE').replace(/^INT_64$/, 'INT64');
  return described.map((column, i) => [column[0]!, column[1]!, schema[i]?.[0] ?? '', logical(schema[i]?.[1] ?? '')]);
}

async function same(sql: string, expectedRows: number): Promise<void> {
  const js = await jsFile(sql);
  const pushed = await pushedFile(sql);
  expect(pushed, 'push-down declined').not.toBeNull();
  expect(pushed!.rows).toBe(expectedRows);
  expect(await typesOf(pushed!.path)).toEqual(await typesOf(js));
  const all = (path: string) => rowsOf(`SELECT * FROM read_parquet(${quoted(path)})`);
  const jsRows = await all(js);
  expect(jsRows).toHaveLength(expectedRows);
  expect(await all(pushed!.path)).toEqual(jsRows);
}

describe('DuckDB writes the parquet file the JS writer writes', () => {
  it('every pushed-down type, NULLs and edge values: same names, types and rows', () => same('select * from edge', 5));

  it('several row groups, in order, with duplicate column names', () =>
    same('select id, big, price, name, seen, day, id as id from many order by id desc', 25_000));

  it('a value the JS writer would type otherwise sends the statement back to the JS path', async () => {
    const declined = [
      `select 'infinity'::DATE as d`,
      `select '-infinity'::TIMESTAMP as ts`,
      `select 'infinity'::TIMESTAMPTZ as tz`,
      `select 9223372036854775808::HUGEINT as h`,
      `select 18446744073709551615::UBIGINT as u`,
    ];
    for (const sql of declined) expect(await pushedFile(`select * from (${sql}) union all select null`), sql).toBeNull();
    // The same columns with values inside the JS writer's types are pushed down.
    await same(`select 1::HUGEINT as h, 2::UBIGINT as u, DATE '2024-01-01' as d`, 1);
  });

  it('types the JS writer writes otherwise are declined without running', async () => {
    for (const sql of [`select INTERVAL 1 DAY as i`, `select [1, 2] as l`, `select '{}'::JSON as j`, `select TIMESTAMP_NS '2024-01-01' as n`]) {
      expect(await pushedFile(sql), sql).toBeNull();
    }
  });

  it('an empty result is a file of no rows with the same columns', () => same('select * from edge where false', 0));
});
