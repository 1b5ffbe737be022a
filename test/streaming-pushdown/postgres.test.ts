import './zone.ts';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresDriver } from '../../origin/drivers/postgres/driver.ts';
import type { SluiceError } from '../../origin/errors.ts';
import { PG, psql } from '../drivers/helpers.ts';
import { LINE_FORMATS, firstDifference, jsBytes, pushedBytes, request } from './pushdown.ts';
import { eventually } from '../harness/eventually.ts';
import { unique } from '../harness/unique.ts';

/**
 * PostgreSQL serialization push-down: for every type it renders, the bytes
 * PostgreSQL writes (binary COPY of the rendered lines) equal the JS
 * serializer's bytes over the driver's values, in csv, tsv and ndjson, for
 * ordinary and edge values; everything else is declined (null) and left to
 * the JS path.
 */

const schema = unique('sluice_pushdown');
const app = unique('sluice_pd');
let driver: PostgresDriver;

const SETUP = `
  CREATE SCHEMA ${schema};
  CREATE TYPE ${schema}.mood AS ENUM ('a', 'b');
  CREATE DOMAIN ${schema}.positive AS int4 CHECK (VALUE > 0);
  CREATE TABLE ${schema}.every_type (
    b bool, i2 int2, i4 int4, i8 int8, num numeric, neg numeric(5, -2), f4 float4, f8 float8, t text, vc varchar(40),
    d date, ts timestamp, tz timestamptz, by bytea, u uuid);
  INSERT INTO ${schema}.every_type VALUES
    (NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
    (true, -32768, -2147483648, -9223372036854775808, 12345678901234567890.123456789012345678, 12345, 3.4e38, '-0', '', '',
     '0001-01-01', '0001-01-01 00:00:00', '1970-01-01 00:00:00+00', ''::bytea, '00000000-0000-0000-0000-000000000000'),
    (false, 32767, 2147483647, 9223372036854775807, -0.000000000000000000000001, -99949, 0.1, 9007199254740993, 'a,b', 'x"y',
     '9999-12-31', '9999-12-31 23:59:59.999999', '2024-04-06 15:29:59.999999+00', '\\x00ff10', 'ffffffff-ffff-ffff-ffff-ffffffffffff'),
    (NULL, 1, 2, 9007199254740993, 'NaN', 0, 'NaN', 'Infinity', E'say "hi", then\\nleave\\r', E'a\\r\\nb',
     'infinity', '-infinity', 'infinity', 'hello', '123e4567-e89b-12d3-a456-426614174000'),
    (true, 0, 0, -9007199254740993, 'Infinity', NULL, '-Infinity', '-Infinity',
     E'tab\\tback\\\\slash #hash \\x01\\x1f\\x7f é 中 😀 \\u2028 \\ufeff "q" ''s'' {}[],:',
     E'\\\\N', '0044-03-15 BC', '0044-03-15 03:04:05.5 BC', '0001-01-01 00:00:00+00 BC', repeat('xyz', 100)::bytea, NULL),
    (false, NULL, NULL, 0, '-Infinity', NULL, 1e-45, 5e-324, ' ', ',', '12000-06-30', '12000-06-30 12:00:00.25',
     '12000-06-30 12:00:00.25+00', '\\x2c22', NULL),
    (NULL, NULL, NULL, NULL, 100000000000000000000000000000, NULL, 1.234567e6, 1e21, '"', E'\\\\', '4713-01-01 BC',
     '4713-01-01 00:00:00 BC', '4713-01-02 00:00:00+00 BC', NULL, NULL),
    (NULL, NULL, NULL, NULL, 0.000000000000000000000000000001, NULL, -1.5e-7, -1.5e-7, 'x', 'y', '1970-01-01',
     '1969-12-31 23:59:59.000001', '1969-12-31 23:59:59.999999+00', NULL, NULL),
    (NULL, NULL, NULL, NULL, -0.5, NULL, 16777217, 1e-7, E'\\r', E'\\n', '2000-02-29', '2000-02-29 12:00:00.1',
     '0001-01-01 00:00:00+00', NULL, NULL);
  CREATE TABLE ${schema}.oddities (m ${schema}.mood, p ${schema}.positive);
  INSERT INTO ${schema}.oddities VALUES ('a', 1);`;

async function same(sql: string) {
  for (const format of LINE_FORMATS) {
    const js = await jsBytes(driver, sql, format);
    const pushed = await pushedBytes(driver, sql, format);
    expect(pushed, `${format}: push-down declined`).not.toBeNull();
    expect(firstDifference(js, pushed!), format).toBeNull();
  }
}

/** Backends of this file's driver running a statement. */
/** A cancelled or dropped statement leaves within a second on a quiet machine; a CI run on two busy cores takes longer. */
const SETTLE_MS = 15_000;

function activeBackends(): number {
  return Number(psql(`select count(*) from pg_stat_activity where application_name = '${app}' and state <> 'idle'`));
}

beforeAll(() => {
  psql(SETUP);
  driver = new PostgresDriver({ ...PG, options: { application_name: app } }, { poolSize: 2, poolMax: 10, poolIdleTimeoutMs: 60_000, allowWrites: false });
});

afterAll(async () => {
  await driver?.close();
  psql(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
});

describe('PostgreSQL push-down writes the JS serializers\' bytes', () => {
  it('every supported type, NULLs and edge values', () => same(`select * from ${schema}.every_type`));

  it('doubles and floats: random bit patterns and the notation boundaries', async () => {
    const bits = new Float64Array(randomBytes(8 * 20_000).buffer);
    const picked = [
      0, 0.1, 1 / 3, 2 / 3, 100, 1e21, 999999999999999900000, 1e21 * 1.5, 1e-7, 1e-6, 9.999999e-7, 1.5e-6, 0.0001, 0.00009999,
      1.0000000000000002, 123456789.123, 2 ** 53, 2 ** 53 + 2, -1e-5, 5e-324, 1.7976931348623157e308, 1e15, 1e16, 1e15 + 0.5,
      1234567890123456.7, 4.35, 0.3, 1e20, 1.5e20, 123456789012345680000,
    ];
    for (let e = -330; e <= 308; e++) picked.push(Number(`1.2345e${e}`), Number(`9e${e}`), Number(`1e${e}`));
    // Short decimals from 2^54 to 2^133, where float8out's digits may differ from JS's (pg-render.ts float8Digits).
    for (let e = 16; e <= 41; e++) {
      for (let i = 0; i < 150; i++) picked.push(Number(`${Math.floor(Math.random() * 10 ** (1 + (i % 9)))}e${e}`));
      picked.push(Number(`1e${e}`), Number(`9.999999999999999e${e}`), 2 ** (e * 3.3) + 2 ** (e * 3.3 - 52));
    }
    const values = [...picked, ...picked.map((x) => -x), ...Array.from(bits)].filter(Number.isFinite);
    const list = `'{${[...values.map(String), 'NaN', 'Infinity', '-Infinity', '-0'].join(',')}}'::float8[]`;
    await same(`select x, case when x = 0 or x = 'NaN' or (abs(x) < 3.4e38 and abs(x) > 1e-44) then x::float4 end as f
      from unnest(${list}) with ordinality u(x, n) order by n`);
  });

  it('zoned instants across eras, around daylight-saving changes and far from now', async () => {
    await same(`select tz from (
      select timestamptz '1700-01-01 00:00:00+00' + i * interval '1420000 seconds' + i * interval '123457 microseconds' as tz
        from generate_series(0, 20000) i
      union all select timestamptz '2024-04-06 12:00:00+00' + i * interval '1 minute' + interval '7 microseconds' from generate_series(0, 2000) i
      union all select timestamptz '2024-10-05 12:00:00+00' + i * interval '1 minute' from generate_series(0, 2000) i
      union all select timestamptz '1895-01-31 12:00:00+00' + i * interval '1 minute' from generate_series(0, 1500) i
      union all select to_timestamp(s) from unnest(array[-62167219200, -62167219201, -200000000000, 253402300799,
        253402300800, 7258118400, 32503680000, 8000000000000, 16725225600, 16725225600.5, -1.5]::float8[]) u(s)
    ) s order by tz`);
  });

  it('dates and timestamps across years, before year 1 and past 9999', async () => {
    await same(`select d, ts from (
      select make_date(y, 2, 28) + (y % 3) as d, make_timestamp(y, 7, 14, 3, 4, 5.000001 * abs(y % 7)) as ts
      from generate_series(-4000, 12000, 7) y where y <> 0
    ) s`);
  });

  it('text needing quotes and escapes, every control character', async () => {
    await same(`select chr(i) as one, 'x' || chr(i) || 'y' as mid, repeat(chr(i), 3)::varchar as three
      from generate_series(1, 2000) i union all select chr(8232), chr(128512), chr(65279)`);
  });

  it('keeps the statement\'s order, duplicate and odd names, a trailing semicolon and comment', async () => {
    await same(`select i4, t from ${schema}.every_type where i4 is not null order by i4 desc`);
    await same(`select i2 as a, i4 as a, i8 as "we ""quote"", and, comma", t as " ", vc as "é\\n" from ${schema}.every_type`);
    await same(`select * from ${schema}.every_type where false`);
    await same(`select i8 from ${schema}.every_type ; `);
    await same(`select i8 from ${schema}.every_type -- the end`);
    await same(`select g, g::text || repeat('x', g % 50) as t from generate_series(1, 30000) g`);
    // A domain's column is described by its base type (int4 here), on both paths.
    await same(`select p from ${schema}.oddities`);
  });

  it('a session\'s own settings do not change the bytes', async () => {
    const sql = `select f8, tz, ts, d from ${schema}.every_type`;
    const expected = await jsBytes(driver, sql, 'ndjson');
    const session = await driver.openSession();
    try {
      // The pooled sessions: change their settings as a statement could, then stream from them.
      await session.sql.unsafe(`SET TimeZone = 'America/St_Johns'; SET extra_float_digits = -10; SET DateStyle = 'German'`).simple();
    } finally {
      await session.sql.end({ timeout: 0 });
    }
    const cursor = await driver.run(request(`select set_config('TimeZone', 'Asia/Kolkata', false), set_config('extra_float_digits', '-5', false),
      set_config('DateStyle', 'SQL, DMY', false)`));
    for await (const batch of cursor.batches) void batch;
    await cursor.close();
    expect(firstDifference(expected, (await pushedBytes(driver, sql, 'ndjson'))!)).toBeNull();
  });
});

describe('PostgreSQL push-down declines what it cannot render exactly', () => {
  it.each([
    ["select time '12:00:00.5' as t", 'time'],
    ["select interval '1 day' as i", 'interval'],
    ['select array[1, 2] as l', 'int4[]'],
    [`select '{"a":1}'::json as j, '{}'::jsonb as jb`, 'json'],
    ["select 'ab'::char(4) as c", 'bpchar'],
    [`select m from ${schema}.oddities`, 'enum'],
    ['select 1 as a, now()::timetz as b', 'one column of many'],
    ['show search_path', 'a statement that cannot be wrapped'],
    ['select * from no_such_table', 'an error'],
    ['select 1; select 2', 'two statements'],
  ])('%s (%s)', async (sql) => {
    for (const format of LINE_FORMATS) expect(await pushedBytes(driver, sql, format)).toBeNull();
  });

  it('parameters (COPY takes none)', async () => {
    for (const format of LINE_FORMATS) {
      expect(await pushedBytes(driver, 'select $1::int4 as x', format, [1])).toBeNull();
      expect(await pushedBytes(driver, 'select $1::int4 as x', format, [])).toBeNull();
    }
  });
});

describe('PostgreSQL push-down runs like run()', () => {
  it('rejects an error before the first line as run() does', async () => {
    const sql = 'select 1 / (g - 3) as x from generate_series(1, 5) g';
    const viaRun = await driver.run(request(sql)).then(
      async (cursor) => {
        try {
          for await (const batch of cursor.batches) void batch;
        } finally {
          await cursor.close();
        }
      },
    ).catch((error: SluiceError) => error);
    const viaLines = await driver.streamLines(request(sql), 'csv').catch((error: SluiceError) => error);
    expect((viaLines as SluiceError).name).toBe('SluiceError');
    expect((viaLines as SluiceError).code).toBe((viaRun as SluiceError).code);
    expect((viaLines as SluiceError).message).toBe((viaRun as SluiceError).message);
    await eventually(() => activeBackends() === 0, { timeoutMs: SETTLE_MS });
  });

  it('honours the time limit before the first line', async () => {
    const started = Date.now();
    const error = (await driver
      .streamLines({ ...request('select count(*) as n from (select pg_sleep(30)) s'), timeoutMs: 400 }, 'csv')
      .catch((e: SluiceError) => e)) as SluiceError;
    expect(error.code).toBe('timeout');
    // Well before the 30 s statement would end; generous for a loaded machine.
    expect(Date.now() - started).toBeLessThan(15_000);
  });

  it('ends the chunks with an error on a failure after the first line', async () => {
    const lines = await driver.streamLines(request('select 1 / (g - 200000) as x from generate_series(1, 300000) g'), 'tsv');
    expect(lines).not.toBeNull();
    let bytes = 0;
    const error = await (async () => {
      for await (const chunk of lines!.batches) bytes += chunk.byteLength;
    })().catch((e: SluiceError) => e);
    expect((error as SluiceError).code).toBe('query_failed');
    expect(bytes).toBeGreaterThan(0);
    await lines!.close();
  });

  it('streams in chunks of whole lines, pulled on demand', async () => {
    const lines = await driver.streamLines(request('select g from generate_series(1, 200000) g'), 'csv');
    let count = 0;
    let chunks = 0;
    for await (const chunk of lines!.batches) {
      const text = Buffer.from(chunk).toString('utf8');
      expect(text.endsWith('\r\n')).toBe(true);
      expect(chunk.byteLength).toBeLessThan(128 * 1024);
      count += text.split('\r\n').length - 1;
      chunks++;
    }
    expect(count).toBe(200000);
    expect(chunks).toBeGreaterThan(10);
  });

  it('an abort mid-stream cancels the statement and leaves no query running', async () => {
    const controller = new AbortController();
    const lines = await driver.streamLines(
      { ...request('select a * 100000 + b as g, md5(b::text) as h from generate_series(1, 10000) a, generate_series(1, 10000) b'), signal: controller.signal },
      'ndjson',
    );
    const iterator = lines!.batches[Symbol.asyncIterator]();
    expect((await iterator.next()).done).toBe(false);
    expect((await iterator.next()).done).toBe(false);
    expect(activeBackends()).toBe(1);
    controller.abort();
    const error = await iterator.next().catch((e: SluiceError) => e);
    expect((error as SluiceError).code).toBe('query_failed');
    expect((error as SluiceError).extras.detail).toBe('cancelled');
    await lines!.close();
    await eventually(() => activeBackends() === 0, { timeoutMs: SETTLE_MS });
  });

  it('closing early (the client went away) leaves no query running, and the driver still works', async () => {
    const lines = await driver.streamLines(request('select a * 100000 + b as g from generate_series(1, 10000) a, generate_series(1, 10000) b'), 'csv');
    const iterator = lines!.batches[Symbol.asyncIterator]();
    expect((await iterator.next()).done).toBe(false);
    await lines!.close();
    await eventually(() => activeBackends() === 0, { timeoutMs: SETTLE_MS });
    await same('select 42 as answer');
  });
});
