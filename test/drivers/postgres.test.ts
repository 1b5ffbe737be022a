import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { PostgresDriver } from '../../origin/drivers/postgres/driver.ts';
import { Decimal, Instant, JsonValue, LocalTimestamp, SqlDate, SqlTime } from '../../origin/values.ts';
import { PG, env, eventually, failure, psql, readAll, request, uniqueName } from './helpers.ts';

const app = uniqueName('sluice_pg');
const table = uniqueName('drv_types');
const db = uniqueName('sluice_drv');
const drivers: PostgresDriver[] = [];

function driver(overrides: Parameters<typeof env>[0] = {}, applicationName = app): PostgresDriver {
  const d = new PostgresDriver({ ...PG, options: { application_name: applicationName } }, env(overrides));
  drivers.push(d);
  return d;
}

/** Backends of this file's drivers running something other than the probe itself. */
function activeBackends(): number {
  return Number(psql(`select count(*) from pg_stat_activity where application_name = '${app}' and state = 'active'`));
}
function backends(applicationName: string): number {
  return Number(psql(`select count(*) from pg_stat_activity where application_name = '${applicationName}'`));
}

beforeAll(() => {
  psql(`create table ${table} (
    id int4 primary key, i2 int2, i8 int8, num numeric, f4 float4, f8 float8, b bool, d date,
    ts timestamp(6), tstz timestamptz, t time, ttz timetz, by bytea, j json, jb jsonb, ia int4[], ta text[],
    u uuid, iv interval, tx text)`);
  psql(`insert into ${table} values
    (1, -32768, 9007199254740993, 123456789012345678901234.5678901234, 1.5, 0.1, true, '2024-02-29',
     '2024-01-02 03:04:05.123456', '2024-01-02 03:04:05.123456+05:30', '23:59:59.999999', '12:00:00+05',
     '\\xdeadbeef', '{"a": [1, 2.5, null]}', '{"k": "v"}', '{1,NULL,3}', '{"a b","c\\"d",NULL}',
     'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '1 day 02:00:00', E'héllo "wörld"\\n''quoted'' ✓'),
    (2, null, -9007199254740991, -0.000001, 'NaN', '-Infinity', false, '0044-03-15 BC',
     null, '1969-12-31 23:59:59.999999+00', null, null, '\\x', 'null', '[]', '{}', '{}', null, null, '')`);
  psql(`create database ${db}`);
  psql(
    `create schema other; create table wide (a int not null, b text default 'x', c numeric(10,2));
     create table other.narrow (z int); create view v as select a from wide;`,
    db,
  );
});

afterAll(async () => {
  await Promise.all(drivers.map((d) => d.close()));
  psql(`drop table if exists ${table}`);
  psql(`drop database if exists ${db} with (force)`);
});

describe('postgres values', () => {
  test('every type converts exactly', async () => {
    const cursor = await driver().run(request(`select * from ${table} order by id`));
    expect(cursor.columns.map((c) => [c.name, c.dbType, c.kind])).toEqual([
      ['id', 'int4', 'integer'], ['i2', 'int2', 'integer'], ['i8', 'int8', 'integer'], ['num', 'numeric', 'decimal'],
      ['f4', 'float4', 'float'], ['f8', 'float8', 'float'], ['b', 'bool', 'boolean'], ['d', 'date', 'date'],
      ['ts', 'timestamp', 'timestamp'], ['tstz', 'timestamptz', 'timestamptz'], ['t', 'time', 'time'],
      ['ttz', 'timetz', 'time'], ['by', 'bytea', 'binary'], ['j', 'json', 'json'], ['jb', 'jsonb', 'json'],
      ['ia', 'int4[]', 'json'], ['ta', 'text[]', 'json'], ['u', 'uuid', 'text'], ['iv', 'interval', 'text'],
      ['tx', 'text', 'text'],
    ]);
    const [one, two] = await readAll(cursor);
    expect(one).toEqual([
      1, -32768, 9007199254740993n, new Decimal('123456789012345678901234.5678901234'), 1.5, 0.1, true,
      new SqlDate('2024-02-29'), new LocalTimestamp('2024-01-02T03:04:05.123456'),
      new Instant(1704144845123456n), new SqlTime('23:59:59.999999'), new SqlTime('12:00:00+05:00'),
      new Uint8Array([0xde, 0xad, 0xbe, 0xef]), new JsonValue({ a: [1, 2.5, null] }), new JsonValue({ k: 'v' }),
      new JsonValue([1, null, 3]), new JsonValue(['a b', 'c"d', null]), 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11',
      '1 day 02:00:00', 'héllo "wörld"\n\'quoted\' ✓',
    ]);
    expect(one[12]).toBeInstanceOf(Uint8Array);
    expect(two).toEqual([
      2, null, -9007199254740991, new Decimal('-0.000001'), Number.NaN, -Infinity, false, new SqlDate('-0043-03-15'),
      null, new Instant(-1n), null, null, new Uint8Array([]), new JsonValue(null), new JsonValue([]), new JsonValue([]),
      new JsonValue([]), null, null, '',
    ]);
  });

  test('bound parameters, domains and enums', async () => {
    const d = driver();
    const rows = await readAll(await d.run(request('select $1::int8 as big, $2::text as t, $3::numeric as n', {
      values: ['9007199254740993', 'x', '1.10'],
    })));
    expect(rows).toEqual([[9007199254740993n, 'x', new Decimal('1.10')]]);
    const cursor = await d.run(request("select 'ok'::name as n, 1::oid as o, array[now()::date] as ds"));
    expect(cursor.columns.map((c) => c.kind)).toEqual(['text', 'integer', 'json']);
    await readAll(cursor);
  });
});

describe('postgres statements', () => {
  test('streams a large result batch by batch', async () => {
    const started = Date.now();
    const cursor = await driver().run(request('select g, md5(g::text) from generate_series(1, 200000) g', { batchSize: 5000 }));
    let rows = 0;
    let batches = 0;
    for await (const batch of cursor.batches) {
      expect(batch.length).toBeLessThanOrEqual(5000);
      rows += batch.length;
      batches++;
    }
    await cursor.close();
    expect([rows, batches]).toEqual([200000, 40]);
    console.log(`postgres: 200k rows x 2 columns in ${Date.now() - started} ms`);
  });

  test('pulls on demand: a billion-row series is read two batches deep and closed', async () => {
    const d = driver();
    const cursor = await d.run(request('select generate_series(1, 1000000000) as g', { batchSize: 100 }));
    const iterator = cursor.batches[Symbol.asyncIterator]();
    expect((await iterator.next()).value).toHaveLength(100);
    expect(((await iterator.next()).value as number[][])[0]).toEqual([101]);
    await cursor.close();
    await cursor.close();
    expect(await readAll(await d.run(request('select 1')))).toEqual([[1]]);
    expect(d.idleSessions()).toBe(1);
  });

  test('reads are read-only in the database, whatever the request says when writes are off', async () => {
    const d = driver();
    const seq = uniqueName('seq');
    psql(`create sequence ${seq}`);
    try {
      const refused = await failure(d.run(request(`select nextval('${seq}')`)));
      expect(refused.code).toBe('query_failed');
      expect(refused.extras.detail).toMatch(/read-only transaction/);
      const write = await failure(d.run(request(`create table ${uniqueName('nope')} (a int)`, { readOnly: false })));
      expect(write.extras.detail).toMatch(/read-only transaction/);
      const writer = driver({ allowWrites: true });
      expect(await readAll(await writer.run(request(`select nextval('${seq}')`, { readOnly: false })))).toEqual([[1]]);
      expect(psql(`select last_value from ${seq}`)).toBe('1');
    } finally {
      psql(`drop sequence ${seq}`);
    }
  });

  test('a rejected statement reports the database message and leaves the session usable', async () => {
    const d = driver();
    const error = await failure(d.run(request('select * from no_such_table_here')));
    expect(error.code).toBe('query_failed');
    expect(error.message).toBe('The database rejected the query');
    expect(error.extras.detail).toMatch(/relation "no_such_table_here" does not exist/);
    expect(d.idleSessions()).toBe(1);
    expect(await readAll(await d.run(request('select 2')))).toEqual([[2]]);
  });

  test('the time limit cancels the statement in the database', async () => {
    const d = driver();
    const started = Date.now();
    const error = await failure(d.run(request('select pg_sleep(30)', { timeoutMs: 400 })));
    expect(error.code).toBe('timeout');
    expect(error.extras.timeout).toBe(0.4);
    // A cancel that works answers within moments; one that does not waits out the 30 s statement.
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(await eventually(() => activeBackends() === 0)).toBe(true);
  });

  test('a time limit reached mid-stream ends the stream with a timeout', async () => {
    const cursor = await driver().run(
      request('select pg_sleep(0.1), g from generate_series(1, 100) g', { batchSize: 1, timeoutMs: 500 }),
    );
    const error = await failure(readAll(cursor));
    expect(error.code).toBe('timeout');
  });

  test('the abort signal cancels a running statement', async () => {
    const d = driver();
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 300);
    const error = await failure(d.run(request('select pg_sleep(30)', { signal: controller.signal })));
    expect(error.code).toBe('query_failed');
    expect(await eventually(() => activeBackends() === 0)).toBe(true);
    expect(await readAll(await d.run(request('select 3')))).toEqual([[3]]);
  });

  test('an abort between batches releases the session at once', async () => {
    const d = driver();
    const controller = new AbortController();
    const cursor = await d.run(request('select generate_series(1, 1000000000) as g', { signal: controller.signal }));
    controller.abort();
    const error = await failure(readAll(cursor));
    expect(error.code).toBe('query_failed');
    expect(d.idleSessions()).toBe(0); // destroyed, not returned
  });

  test('the pool keeps at most poolSize idle sessions and closes them after the idle timeout', async () => {
    const name = uniqueName('sluice_pool');
    const d = driver({ poolSize: 2, poolIdleTimeoutMs: 300 }, name);
    const cursors = await Promise.all([1, 2, 3, 4].map((n) => d.run(request(`select ${n} from generate_series(1, 5000)`, { batchSize: 10 }))));
    expect(d.idleSessions()).toBe(0);
    await Promise.all(cursors.map((c) => c.close()));
    expect(d.idleSessions()).toBe(2);
    expect(backends(name)).toBe(2);
    expect(await eventually(() => d.idleSessions() === 0, 3000)).toBe(true);
    expect(await eventually(() => backends(name) === 0, 3000)).toBe(true);
  });

  test('poolSize 0 opens a session per run and closes it after', async () => {
    const name = uniqueName('sluice_nopool');
    const d = driver({ poolSize: 0 }, name);
    expect(await readAll(await d.run(request('select 1')))).toEqual([[1]]);
    expect(d.idleSessions()).toBe(0);
    expect(await eventually(() => backends(name) === 0, 3000)).toBe(true);
  });
});

describe('postgres catalog', () => {
  test('schema lists tables and views, qualifying other schemas, and truncates', async () => {
    const d = driver();
    const listing = await d.schema({ database: db, maxColumns: 5000 });
    expect(listing).toEqual({
      truncated: false,
      tables: [
        { name: 'other.narrow', type: 'table', columns: [{ name: 'z', type: 'integer', nullable: true, position: 1 }] },
        { name: 'v', type: 'view', columns: [{ name: 'a', type: 'integer', nullable: true, position: 1 }] },
        {
          name: 'wide',
          type: 'table',
          columns: [
            { name: 'a', type: 'integer', nullable: false, position: 1 },
            { name: 'b', type: 'text', nullable: true, position: 2 },
            { name: 'c', type: 'numeric(10,2)', nullable: true, position: 3 },
          ],
        },
      ],
    });
    const cut = await d.schema({ database: db, maxColumns: 3 });
    expect(cut.truncated).toBe(true);
    expect(cut.tables.map((t) => [t.name, t.columns.length])).toEqual([['other.narrow', 1], ['v', 1], ['wide', 1]]);
    expect((await d.schema({ database: db, maxColumns: 5 })).truncated).toBe(false);
  });

  test('databases and table DDL', async () => {
    const d = driver();
    expect(await d.databases()).toEqual(expect.arrayContaining(['test', db]));
    const ddl = await d.tableDdl(table);
    expect(ddl).toContain(`CREATE TABLE public.${table} (`);
    expect(ddl).toContain('  id integer NOT NULL');
    expect(ddl).toContain('  num numeric');
    expect(ddl).toMatch(/CONSTRAINT \w+ PRIMARY KEY \(id\)/);
    expect((await failure(d.tableDdl('no_such_table'))).code).toBe('not_found');
  });

  test('an unreachable server: query_failed on run, connection_failed on test', async () => {
    const d = new PostgresDriver({ ...PG, port: 1, options: { connect_timeout: 2 } }, env());
    drivers.push(d);
    const run = await failure(d.run(request('select 1')));
    expect([run.code, run.message]).toEqual(['query_failed', 'The database could not be reached']);
    expect((await failure(d.test())).code).toBe('connection_failed');
    expect((await failure(d.databases())).code).toBe('connection_failed');
  });
});
