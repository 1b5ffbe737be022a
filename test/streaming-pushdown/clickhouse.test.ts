import './zone.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClickhouseDriver } from '../../origin/drivers/clickhouse/driver.ts';
import type { SluiceError } from '../../origin/errors.ts';
import { startClickhouse, type ClickhouseServer } from '../harness/clickhouse.ts';
import { LINE_FORMATS, READ_ONLY_ENV, firstDifference, jsBytes, pushedBytes, request } from './pushdown.ts';
import { eventually } from '../harness/eventually.ts';

/**
 * ClickHouse serialization push-down, over HTTP to ClickHouse 26 (chdb behind
 * the test front): for every type it renders, the bytes ClickHouse writes
 * (the rendered lines as RawBLOB) equal the JS serializer's bytes over the
 * driver's values, in csv, tsv and ndjson, for ordinary and edge values
 * (DateTime zones across the process zone's half-hour DST shift); other
 * types (floats, FixedString, structures...) are declined (null) and left
 * to the JS path.
 */

let ch: ClickhouseServer;
let driver: ClickhouseDriver;
const DB = 'pushdown';

const EVERY = `id UInt8, u64 Nullable(UInt64), i128 Nullable(Int128), i256 Nullable(Int256), u8 Nullable(UInt8), i8 Nullable(Int8),
  d Nullable(Decimal(38, 10)), d2 Nullable(Decimal(9, 2)), s Nullable(String), lc LowCardinality(Nullable(String)), fs Nullable(FixedString(4)),
  b Nullable(Bool), uu Nullable(UUID), dt Nullable(Date), d32 Nullable(Date32), t Nullable(DateTime), tz Nullable(DateTime('America/New_York')),
  t3 Nullable(DateTime64(3)), t6 Nullable(DateTime64(6, 'Asia/Kolkata')), e Nullable(Enum8('a' = 1, 'b,"c"' = 2))`;

const ROWS = [
  `(1, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)`,
  `(2, 18446744073709551615, -170141183460469231731687303715884105728, -57896044618658097711785492504343953926634992332820282019728792003956564819968,
    255, -128, -9999999999999999999999999999.9999999999, 0, '', '', 'ab', true, '00000000-0000-0000-0000-000000000000',
    '1970-01-01', '1900-01-01', '1970-01-01 00:00:00', '2106-02-07 06:28:15', '1900-01-01 00:00:00.001', '1969-12-31 23:59:59.999999', 'a')`,
  `(3, 0, 170141183460469231731687303715884105727, 57896044618658097711785492504343953926634992332820282019728792003956564819967,
    0, 127, -0.0000000001, -0.5, 'say "hi", then\\nleave\\r', 'a,b', 'x"y\\0', false, 'ffffffff-ffff-ffff-ffff-ffffffffffff',
    '2149-06-06', '2299-12-31', toDateTime(1712419199), toDateTime(1712419200), toDateTime64('2024-04-06 15:29:59.999', 3, 'UTC'),
    toDateTime64('2299-12-31 23:59:59.123456', 6, 'UTC'), 'b,"c"')`,
  `(4, 9007199254740993, 0, 0, 1, 0, 1234567890123456789012345678.0123456789, 1.10,
    'tab\\tback\\\\slash #hash \\x01\\x1f\\x7f é 中 😀 \\u2028 \\xef\\xbb\\xbf "q" \\'s\\' {}[],:', '\\r\\n', '\\n\\r\\t\\\\', NULL,
    '123e4567-e89b-12d3-a456-426614174000', '2024-10-06', '2024-04-07', toDateTime(1712417400), toDateTime(1728143999),
    toDateTime64(1728142200.5, 3), toDateTime64(-0.000001, 6), NULL)`,
  `(5, 1, -1, -1, 2, -1, 0, 0.01, 'bad utf8 \\xff\\xfe end \\xc3', ' ', '\\x00\\x01\\x02\\x03', true, NULL, NULL, NULL,
    toDateTime(1728142200), toDateTime(1728143999), toDateTime64(1728143999.999, 3), toDateTime64(1712419199.000001, 6), 'a')`,
];

beforeAll(async () => {
  ch = await startClickhouse();
  await ch.exec(
    'default',
    `CREATE DATABASE ${DB}`,
    `CREATE TABLE ${DB}.every (${EVERY}) ENGINE = MergeTree ORDER BY id`,
    `INSERT INTO ${DB}.every VALUES ${ROWS.join(', ')}`,
  );
  driver = new ClickhouseDriver({ type: 'clickhouse', host: ch.host, port: ch.port, database: DB, options: {} }, READ_ONLY_ENV);
}, 120_000);

afterAll(async () => {
  await driver?.close();
  await ch?.stop();
});

async function same(sql: string, values: unknown[] = []) {
  for (const format of LINE_FORMATS) {
    const js = await jsBytes(driver, sql, format, values);
    const pushed = await pushedBytes(driver, sql, format, values);
    expect(pushed, `${format}: push-down declined`).not.toBeNull();
    expect(firstDifference(js, pushed!), format).toBeNull();
  }
}

describe('ClickHouse renders the JS bytes', () => {
  it('for every rendered type, NULLs and edge values included', async () => {
    await same('SELECT * EXCEPT (fs) FROM every ORDER BY id');
  });

  it('column by column (a mismatch names its column)', async () => {
    for (const column of EVERY.split(/,\s*(?=[a-z0-9]+ )/).map((c) => c.trim().split(' ')[0]).filter((c) => c !== 'fs')) {
      await same(`SELECT ${column} FROM every ORDER BY id`);
    }
  });

  it("over the zone's DST changes, minute by minute, and across centuries", async () => {
    await same(`SELECT toDateTime(1712417400 + number * 60) AS t FROM numbers(130)`);
    await same(`SELECT toDateTime64(1728142200 + number * 60 + 0.25, 3) AS t FROM numbers(130)`);
    await same(`SELECT toDateTime64(-2208988800 + number * 7776000, 6, 'UTC') AS t FROM numbers(2000)`);
  });

  it('with server-side parameters and odd column names', async () => {
    await same('SELECT s AS `a "b",\\tc`, u64 AS `é` FROM every WHERE id >= {p1:UInt8} ORDER BY id', [2]);
  });

  it('for a statement with a final semicolon and no rows', async () => {
    await same('SELECT id, s FROM every WHERE id > 100;');
  });
});

describe('declined', () => {
  it.each([
    ['a float', 'SELECT toFloat64(1) / 3 AS f'],
    ['a FixedString (toString drops its zero bytes)', 'SELECT fs FROM every'],
    ['an array', 'SELECT [1, 2] AS a'],
    ['a map', "SELECT map('k', 1) AS m"],
    ['a tuple', 'SELECT (1, 2) AS t'],
    ['nanosecond DateTime64', "SELECT toDateTime64('2024-01-01 00:00:00.123456789', 9) AS t"],
    ['two columns of one name', 'SELECT id, id FROM every'],
    ['a SHOW', 'SHOW TABLES'],
    ['a statement ClickHouse refuses', 'SELECT nope FROM every'],
  ])('%s: null, and the JS path still streams it', async (_label, sql) => {
    expect(await pushedBytes(driver, sql, 'csv')).toBeNull();
  });

  it('a mixed statement falls back whole and the JS bytes stay correct', async () => {
    expect(await pushedBytes(driver, 'SELECT id, toFloat32(id) / 4 AS f FROM every ORDER BY id', 'csv')).toBeNull();
    expect(await jsBytes(driver, 'SELECT id, toFloat32(id) / 4 AS f FROM every ORDER BY id', 'csv')).toBe('id,f\r\n1,0.25\r\n2,0.5\r\n3,0.75\r\n4,1\r\n5,1.25\r\n');
  });
});

describe('a pushed-down stream', () => {
  it('closed early ends the statement on the server with KILL QUERY', async () => {
    const tag = 'pushdown_abort';
    const lines = await driver.streamLines!(request(`SELECT number AS n, '${tag}' AS tag FROM numbers(5000000)`), 'csv');
    expect(lines).not.toBeNull();
    const iterator = lines!.batches[Symbol.asyncIterator]();
    expect((await iterator.next()).done).toBe(false);
    const mine = async () => (await ch.processes()).filter((p) => p.query.includes(tag)).length;
    expect(await mine()).toBe(1);
    await lines!.close();
    await eventually(async () => (await mine()) === 0, { timeoutMs: 10_000 });
    await eventually(async () => (await ch.killed()).length > 0, { timeoutMs: 10_000 });
    expect(await pushedBytes(driver, 'SELECT 7 AS x', 'csv')).toBe('x\r\n7\r\n');
  });

  it('past its time limit ends with a timeout and the statement ends on the server', async () => {
    const tag = 'pushdown_timeout';
    const lines = await driver.streamLines!({ ...request(`SELECT number AS n, '${tag}' AS tag FROM numbers(5000000)`), timeoutMs: 800 }, 'ndjson');
    const iterator = lines!.batches[Symbol.asyncIterator]();
    expect((await iterator.next()).done).toBe(false);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const error = await (async () => {
      while (!(await iterator.next()).done);
    })().catch((e: SluiceError) => e);
    expect((error as SluiceError).code).toBe('timeout');
    await lines!.close();
    const mine = async () => (await ch.processes()).filter((p) => p.query.includes(tag)).length;
    await eventually(async () => (await mine()) === 0, { timeoutMs: 10_000 });
  });

  it('streams whole lines in chunks, pulled on demand', async () => {
    const lines = await driver.streamLines!(request('SELECT number AS g FROM numbers(200000)'), 'csv');
    let text = '';
    let chunks = 0;
    for await (const chunk of lines!.batches) {
      expect(chunk.byteLength).toBeLessThan(256 * 1024);
      text += Buffer.from(chunk).toString('utf8');
      chunks++;
    }
    await lines!.close();
    expect(text.split('\r\n').length - 1).toBe(200000);
    expect(chunks).toBeGreaterThan(10);
  });

  it('aborted by its signal ends the statement too', async () => {
    const tag = 'pushdown_signal';
    const controller = new AbortController();
    const lines = await driver.streamLines!({ ...request(`SELECT number AS n, '${tag}' AS tag FROM numbers(5000000)`), signal: controller.signal }, 'tsv');
    const iterator = lines!.batches[Symbol.asyncIterator]();
    await iterator.next();
    controller.abort();
    await expect(async () => {
      while (!(await iterator.next()).done);
    }).rejects.toThrow();
    await lines!.close();
    const mine = async () => (await ch.processes()).filter((p) => p.query.includes(tag)).length;
    await eventually(async () => (await mine()) === 0, { timeoutMs: 10_000 });
  });
});
