import './zone.ts';
import { randomBytes } from 'node:crypto';
import { copyFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DuckdbDriver } from '../../origin/drivers/duckdb/driver.ts';
import { LINE_FORMATS, READ_ONLY_ENV, duckFixture, firstDifference, jsBytes, pushedBytes } from './pushdown.ts';

/**
 * DuckDB serialization push-down: for every type it renders, the bytes the
 * database writes equal the JS serializer's bytes over the driver's values,
 * in csv, tsv and ndjson, for ordinary and edge values; everything else is
 * declined (null) and left to the JS path. Both ways DuckDB hands the lines
 * over are compared: written by its own COPY into a pipe (a READ_ONLY file),
 * and fetched one string per row (a writable file, or a statement with
 * parameters).
 */

let dir: string;
let driver: DuckdbDriver;
let writable: DuckdbDriver;

const SETUP = [
  `CREATE TYPE mood AS ENUM ('a', 'b,c', 'say "x"')`,
  `CREATE TABLE every_type (
    b BOOLEAN, ti TINYINT, si SMALLINT, i INTEGER, bi BIGINT, hi HUGEINT, ub UBIGINT, uh UHUGEINT, ui UINTEGER,
    f FLOAT, d DOUBLE, dec DECIMAL(18,3), dec38 DECIMAL(38,10), dec4 DECIMAL(4,0), v VARCHAR, e mood, u UUID, bl BLOB,
    dt DATE, ts TIMESTAMP, ts_s TIMESTAMP_S, ts_ms TIMESTAMP_MS, tz TIMESTAMPTZ)`,
  `INSERT INTO every_type VALUES
    (NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
    (true, -128, -32768, -2147483648, -9223372036854775808, -170141183460469231731687303715884105728, 18446744073709551615,
     340282366920938463463374607431768211455, 4294967295, 3.4e38, -0.0, -999999999999999.999, 0.0000000001, -9999, '', 'a',
     '00000000-0000-0000-0000-000000000000', ''::BLOB, DATE '0001-01-01', TIMESTAMP '0001-01-01 00:00:00',
     TIMESTAMP_S '1970-01-01 00:00:00', TIMESTAMP_MS '1969-12-31 23:59:59.999', TIMESTAMPTZ '1970-01-01 00:00:00+00'),
    (false, 127, 32767, 2147483647, 9223372036854775807, 170141183460469231731687303715884105727, 0, 0, 0,
     0.1, 9007199254740993, 0.5, -1.0000000001, 0, 'a,b', 'b,c', 'ffffffff-ffff-ffff-ffff-ffffffffffff', '\\x00\\xFF\\x10'::BLOB,
     DATE '9999-12-31', TIMESTAMP '9999-12-31 23:59:59.999999', TIMESTAMP_S '2038-01-19 03:14:08', TIMESTAMP_MS '2024-02-29 12:00:00.5',
     TIMESTAMPTZ '2024-04-06 15:29:59.999999+00'),
    (NULL, 1, 2, 3, 9007199254740991, 9007199254740992, 9007199254740993, 18446744073709551616, 7,
     -1.5e-7, 1e21, 0.000, 12345678901234567890.1234567890, 1, 'say "hi", then' || chr(10) || 'leave' || chr(13), 'say "x"',
     '123e4567-e89b-12d3-a456-426614174000', 'hello'::BLOB, 'infinity'::DATE, '-infinity'::TIMESTAMP, NULL, NULL, 'infinity'::TIMESTAMPTZ),
    (true, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
     'nan'::FLOAT, 'inf'::DOUBLE, NULL, NULL, NULL, 'tab' || chr(9) || 'back\\slash #hash ' || chr(1) || chr(31) || chr(127) || ' é 中 😀 ' || chr(8232),
     NULL, NULL, NULL, '-infinity'::DATE, 'infinity'::TIMESTAMP, NULL, NULL, '-infinity'::TIMESTAMPTZ)`,
];

async function same(sql: string, values: unknown[] = []) {
  for (const [path, on] of [['pipe', driver], ['lines', writable]] as const) {
    for (const format of LINE_FORMATS) {
      const js = await jsBytes(on, sql, format, values);
      const pushed = await pushedBytes(on, sql, format, values);
      expect(pushed, `${path}, ${format}: push-down declined`).not.toBeNull();
      expect(firstDifference(js, pushed!), `${path}, ${format}`).toBeNull();
    }
  }
}

beforeAll(async () => {
  let file: string;
  ({ dir, file } = await duckFixture('sluice-pushdown-', SETUP));
  await copyFile(file, join(dir, 'writable.duckdb'));
  driver = new DuckdbDriver({ type: 'duckdb', database: file, options: {} }, READ_ONLY_ENV);
  writable = new DuckdbDriver({ type: 'duckdb', database: join(dir, 'writable.duckdb'), options: {} }, { ...READ_ONLY_ENV, allowWrites: true });
});

afterAll(async () => {
  await driver?.close();
  await writable?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('DuckDB push-down writes the JS serializers\' bytes', () => {
  it('every supported type, NULLs and edge values', () => same('select * from every_type'));

  it('doubles and floats: random bit patterns and the notation boundaries', async () => {
    const bits = new Float64Array(randomBytes(8 * 20_000).buffer);
    const picked = [
      0.1, 1 / 3, 2 / 3, 100, 1e21, 999999999999999900000, 1e21 * 1.5, 1e-7, 1e-6, 9.999999e-7, 1.5e-6, 0.0001, 0.00009999,
      1.0000000000000002, 123456789.123, 2 ** 53, 2 ** 53 + 2, -1e-5, 5e-324, 1.7976931348623157e308, 1e16, 1e15 + 0.5, 4.35, 0.3,
    ];
    for (let e = -330; e <= 308; e++) picked.push(Number(`1.2345e${e}`), Number(`9e${e}`));
    const values = [...picked, ...picked.map((x) => -x), ...Array.from(bits)].filter(Number.isFinite);
    const list = [...values.map((x) => `${x}::double`), "'nan'::double", "'inf'::double", "'-inf'::double"].join(',');
    await same(`select x, case when isnan(x) or abs(x) < 3.4e38 then cast(x as float) end as f from unnest([${list}]) t(x)`);
  });

  it('zoned instants across eras, around daylight-saving changes and far from now', async () => {
    await same(`select tz from (
      select timestamptz '1700-01-01 00:00:00+00' + to_microseconds(cast(i as bigint) * 1420000123457) as tz from range(0, 20000) t(i)
      union all select timestamptz '2024-04-06 12:00:00+00' + to_microseconds(cast(i as bigint) * 60000000 + 7) from range(0, 2000) t(i)
      union all select timestamptz '2024-10-05 12:00:00+00' + to_microseconds(cast(i as bigint) * 60000000) from range(0, 2000) t(i)
      union all select timestamptz '1895-01-31 12:00:00+00' + to_microseconds(cast(i as bigint) * 60000000) from range(0, 1500) t(i)
      union all select to_timestamp(s) from unnest([-62167219200, -62167219201, -200000000000, -8000000000000, 253402300799,
        253402300800, 7258118400, 32503680000, 8000000000000, 16725225600, 16725225600.5, -1.5]) u(s)
    ) order by tz`);
  });

  it('dates and timestamps across years, before year 1 and past 9999', async () => {
    await same(`select d, ts, cast(ts as timestamp_s) as ts_s, cast(ts as timestamp_ms) as ts_ms from (
      select make_date(cast(y as bigint), 2, 28) + cast(y % 3 as integer) as d,
        make_timestamp(cast(y as bigint), 7, 14, 3, 4, 5.000001 * abs(y % 7)) as ts
      from range(-4000, 12000, 7) t(y)
    )`);
  });

  it('text needing quotes and escapes, every control character', async () => {
    await same(`select chr(cast(i as integer)) as one, 'x' || chr(cast(i as integer)) || 'y' as mid, repeat(chr(cast(i as integer)), 3) as three
      from range(1, 2000) t(i) where i not between 55296 and 57343`);
  });

  it('keeps the statement\'s order, parameters, duplicate and odd names, a trailing semicolon and comment', async () => {
    await same('select i, v from every_type where i is not null order by i desc');
    await same('select ti as a, si as a, i as "we ""quote"", and, comma", v as " " from every_type where ti > $1', [0]);
    await same('select * from every_type where false');
    await same('select bi from every_type ; ');
    await same('select bi from every_type -- the end');
    await same('show tables');
  });
});

describe('DuckDB push-down declines what it cannot render exactly', () => {
  it.each([
    ["select time '12:00:00.5' as t", 'TIME'],
    ['select interval 1 day as i', 'INTERVAL'],
    ['select [1, 2] as l', 'LIST'],
    [`select '{"a":1}'::json as j`, 'JSON'],
    ["select timestamp_ns '2024-01-01 00:00:00.000000001' as t", 'TIMESTAMP_NS'],
    ['select * from no_such_table', 'an error'],
  ])('%s (%s)', async (sql) => {
    for (const format of LINE_FORMATS) expect(await pushedBytes(driver, sql, format)).toBeNull();
  });
});
