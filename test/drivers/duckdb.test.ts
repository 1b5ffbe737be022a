import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { DuckdbDriver } from '../../origin/drivers/duckdb/driver.ts';
import { allowedAccess } from '../../origin/drivers/duckdb/instances.ts';
import type { ConnectionSettings } from '../../origin/drivers/types.ts';
import { Decimal, Instant, JsonValue, LocalTimestamp, SqlDate, SqlTime } from '../../origin/values.ts';
import { env, eventually, failure, readAll, request } from './helpers.ts';

const dir = mkdtempSync(join(tmpdir(), 'sluice-duck-'));
const dbFile = join(dir, 'shop.duckdb');
const files = {
  people: join(dir, 'people.csv'),
  orders: join(dir, 'orders.parquet'),
  events: join(dir, 'events.json'),
  parts: join(dir, 'parts', '*.csv'),
};
const drivers: DuckdbDriver[] = [];

function driver(settings: Partial<ConnectionSettings> = {}, overrides: Parameters<typeof env>[0] = {}): DuckdbDriver {
  const d = new DuckdbDriver({ type: 'duckdb', database: null, options: {}, ...settings }, env(overrides));
  drivers.push(d);
  return d;
}
const fileDriver = (overrides: Parameters<typeof env>[0] = {}) => driver({ database: dbFile, options: { files } }, overrides);

beforeAll(async () => {
  writeFileSync(files.people, 'id,name\n1,Ada\n2,"Grace ""Amazing"" Hopper"\n');
  writeFileSync(join(dir, 'secret.csv'), 'not,yours\n');
  writeFileSync(files.events, '[{"kind": "a", "n": 1}, {"kind": "b", "n": 2}]');
  mkdirSync(join(dir, 'parts'));
  writeFileSync(join(dir, 'parts', '1.csv'), 'p\n1\n');
  writeFileSync(join(dir, 'parts', '2.csv'), 'p\n2\n');
  const instance = await DuckDBInstance.create(dbFile);
  const setup = await instance.connect();
  await setup.run(`COPY (select 7 as order_id, 12.50::decimal(10,2) as total) TO '${files.orders}' (FORMAT parquet)`);
  await setup.run(`create table items (id integer primary key, name varchar not null, price decimal(12,2));
    insert into items values (1, 'thing', 9.99);
    create schema archive; create table archive.old_items (id integer);
    create view cheap as select * from items where price < 10;`);
  setup.closeSync();
  instance.closeSync();
});

afterAll(async () => {
  await Promise.all(drivers.map((d) => d.close()));
  rmSync(dir, { recursive: true, force: true });
});

describe('duckdb values', () => {
  test('every type converts exactly', async () => {
    const cursor = await driver().run(request(`select
      42::tinyint a, 9007199254740993::bigint b, 170141183460469231731687303715884105727::hugeint c, 18446744073709551615::ubigint d,
      123456789012345678.123456789012345678::decimal(38,18) e, 1.5::float f, 0.1::double g, true h,
      date '2024-02-29' i, timestamp '2024-01-02 03:04:05.123456' j, timestamp_ns '1969-12-31 23:59:59.999999999' k,
      timestamp_s '2024-01-02 03:04:05' l, timestamptz '2024-01-02 03:04:05.123456+05:30' m, time '23:59:59.999999' n,
      '12:00:00+05:30'::timetz o, '\\xDE\\xAD'::blob p, [1, null, 3] q, {'k': 'v', 'big': 9007199254740993::bigint} r,
      map {'x': 1.5::decimal(3,1)} s, '{"a": [1, 2]}'::json t, 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid u,
      interval 1 day v, 'héllo "wörld"' || chr(10) || '''quoted''' w, null::integer x, [1, 2]::integer[2] y`));
    expect(cursor.columns.map((c) => c.kind)).toEqual([
      'integer', 'integer', 'integer', 'integer', 'decimal', 'float', 'float', 'boolean', 'date', 'timestamp',
      'timestamp', 'timestamp', 'timestamptz', 'time', 'time', 'binary', 'json', 'json', 'json', 'json', 'text', 'text',
      'text', 'integer', 'json',
    ]);
    expect(cursor.columns[4].dbType).toBe('DECIMAL(38,18)');
    const [row] = await readAll(cursor);
    expect(row).toEqual([
      42, 9007199254740993n, 170141183460469231731687303715884105727n, 18446744073709551615n,
      new Decimal('123456789012345678.123456789012345678'), 1.5, 0.1, true, new SqlDate('2024-02-29'),
      new LocalTimestamp('2024-01-02T03:04:05.123456'), new LocalTimestamp('1969-12-31T23:59:59.999999'),
      new LocalTimestamp('2024-01-02T03:04:05'), new Instant(1704144845123456n), new SqlTime('23:59:59.999999'),
      new SqlTime('12:00:00+05:30'), new Uint8Array([0xde, 0xad]), new JsonValue([1, null, 3]),
      new JsonValue({ k: 'v', big: '9007199254740993' }), new JsonValue({ x: '1.5' }), new JsonValue({ a: [1, 2] }),
      'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '1 day', 'héllo "wörld"\n\'quoted\'', null, new JsonValue([1, 2]),
    ]);
  });

  test('bound $n parameters', async () => {
    const rows = await readAll(await driver().run(request('select $1::varchar, $2 + 1, $3::date', { values: ['x', 41, '2024-01-01'] })));
    expect(rows).toEqual([['x', 42, new SqlDate('2024-01-01')]]);
  });
});

describe('duckdb files and lockdown', () => {
  test('configured files read as tables; nothing else on disk does', async () => {
    const d = fileDriver();
    expect(await readAll(await d.run(request('select * from people order by id')))).toEqual([[1, 'Ada'], [2, 'Grace "Amazing" Hopper']]);
    expect(await readAll(await d.run(request('select * from orders')))).toEqual([[7, new Decimal('12.50')]]);
    expect(await readAll(await d.run(request('select kind, n from events order by n')))).toEqual([['a', 1], ['b', 2]]);
    expect(await readAll(await d.run(request('select p from parts order by p')))).toEqual([[1], [2]]);
    for (const sql of [
      "select * from read_csv('/etc/passwd')",
      `select * from read_csv('${join(dir, 'secret.csv')}')`,
      "copy (select 1) to '/tmp/sluice-duck-escape.csv'",
      'set enable_external_access = true',
    ]) {
      const error = await failure(d.run(request(sql, { readOnly: false })));
      expect(error.code).toBe('query_failed');
    }
  });

  test('the lockdown allows exact files, and the folder of a glob', () => {
    expect(allowedAccess({ a: '/d/a.csv', b: '/d/parts/*.csv', c: '/e/x/**/y.parquet' })).toEqual({
      paths: ['/d/a.csv'],
      directories: ['/d/parts/', '/e/x/'],
    });
  });

  test('a file opened without writes is READ_ONLY in DuckDB itself', async () => {
    const d = fileDriver();
    const error = await failure(d.run(request("insert into items values (2, 'x', 1)", { readOnly: false })));
    expect(error.extras.detail).toMatch(/read-only mode/);
  });

  test('with writes on, reads still run in a read-only transaction', async () => {
    const memory = driver({}, { allowWrites: true });
    await readAll(await memory.run(request('create table t (a int)', { readOnly: false })));
    const error = await failure(memory.run(request('insert into t values (1)')));
    expect(error.extras.detail).toMatch(/read-only/);
    await readAll(await memory.run(request('insert into t values (1)', { readOnly: false })));
    expect(await readAll(await memory.run(request('select count(*) from t')))).toEqual([[1]]);
  });

  test('one instance per file: drivers with the same settings share it, others must wait', async () => {
    const first = fileDriver();
    const second = fileDriver();
    expect(await readAll(await first.run(request('select count(*) from items')))).toEqual([[1]]);
    expect(await readAll(await second.run(request('select count(*) from items')))).toEqual([[1]]);
    const other = driver({ database: dbFile, options: { threads: 2 } });
    expect((await failure(other.run(request('select 1')))).extras.detail).toMatch(/already open with different settings/);
    await first.close();
    await second.close();
    await Promise.all(drivers.filter((d) => d !== other).map((d) => d.close()));
    expect(await readAll(await other.run(request('select count(*) from items')))).toEqual([[1]]);
    await other.close();
  });
});

describe('duckdb statements', () => {
  test('streams a large result batch by batch', async () => {
    const started = Date.now();
    const cursor = await driver().run(request('select i, i::varchar from range(200000) t(i)', { batchSize: 5000 }));
    let rows = 0;
    let batches = 0;
    for await (const batch of cursor.batches) {
      expect(batch.length).toBeLessThanOrEqual(5000);
      rows += batch.length;
      batches++;
    }
    expect([rows, batches]).toEqual([200000, 40]);
    console.log(`duckdb: 200k rows x 2 columns in ${Date.now() - started} ms`);
  });

  test('pulls on demand: ten billion rows read two batches deep, then closed', async () => {
    const d = driver();
    const cursor = await d.run(request('select i from range(10000000000) t(i)', { batchSize: 100 }));
    const iterator = cursor.batches[Symbol.asyncIterator]();
    expect((await iterator.next()).value).toHaveLength(100);
    expect(((await iterator.next()).value as number[][])[0]).toEqual([100]);
    await cursor.close();
    expect(await readAll(await d.run(request('select 1')))).toEqual([[1]]);
    expect(d.idleSessions()).toBe(1);
  });

  test('the time limit interrupts a heavy cross join', async () => {
    const d = driver();
    const started = Date.now();
    const error = await failure(d.run(request('select count(*) from range(100000000) a, range(100000000) b', { timeoutMs: 300 })));
    expect(error.code).toBe('timeout');
    // The join would run for hours: any answer this side of the margin, generous for a loaded machine, is the interrupt.
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(await readAll(await d.run(request('select 42')))).toEqual([[42]]);
  });

  test('the abort signal interrupts a running statement', async () => {
    const d = driver();
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    const started = Date.now();
    const error = await failure(d.run(request('select count(*) from range(100000000) a, range(100000000) b', { signal: controller.signal })));
    expect(error.code).toBe('query_failed');
    expect(Date.now() - started).toBeLessThan(15_000);
  });

  test('the pool keeps at most poolSize idle sessions, then closes them', async () => {
    const d = driver({}, { poolSize: 1, poolIdleTimeoutMs: 200 });
    const cursors = await Promise.all([1, 2, 3].map((n) => d.run(request(`select ${n} from range(5000)`, { batchSize: 10 }))));
    await Promise.all(cursors.map((c) => c.close()));
    expect(d.idleSessions()).toBe(1);
    expect(await eventually(() => d.idleSessions() === 0, 3000)).toBe(true);
  });
});

describe('duckdb catalog', () => {
  test('schema lists tables, views and files; truncates', async () => {
    const d = fileDriver();
    const listing = await d.schema({ maxColumns: 5000 });
    expect(listing.truncated).toBe(false);
    expect(listing.tables.map((t) => [t.name, t.type, t.columns.map((c) => c.name).join(',')])).toEqual([
      ['archive.old_items', 'table', 'id'],
      ['cheap', 'view', 'id,name,price'],
      ['events', 'view', 'kind,n'],
      ['items', 'table', 'id,name,price'],
      ['orders', 'view', 'order_id,total'],
      ['parts', 'view', 'p'],
      ['people', 'view', 'id,name'],
    ]);
    expect(listing.tables[3].columns[1]).toEqual({ name: 'name', type: 'VARCHAR', nullable: false, position: 2 });
    const cut = await d.schema({ maxColumns: 3 });
    expect(cut.truncated).toBe(true);
    expect(cut.tables.flatMap((t) => t.columns)).toHaveLength(3);
  });

  test('databases and DDL', async () => {
    const d = fileDriver();
    expect(await d.databases()).toEqual(['shop']);
    expect(await d.tableDdl('items')).toMatch(/^CREATE TABLE items\s*\(id INTEGER PRIMARY KEY, "name" VARCHAR NOT NULL/);
    expect(await d.tableDdl('cheap')).toMatch(/^CREATE VIEW cheap AS SELECT/);
    expect(await d.tableDdl('archive.old_items')).toMatch(/CREATE TABLE archive\.old_items/);
    expect((await failure(d.tableDdl('nope'))).code).toBe('not_found');
  });
});
