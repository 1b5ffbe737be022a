import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { DuckdbDriver } from '../../origin/drivers/duckdb/driver.ts';
import { allowedAccess } from '../../origin/drivers/duckdb/instances.ts';
import type { ConnectionSettings } from '../../origin/drivers/types.ts';
import { Decimal, JsonValue, LocalTimestamp, SqlDate, SqlTime } from '../../origin/values.ts';
import { env, failure, readAll, request } from './helpers.ts';

/** What is DuckDB's own; the cases every driver shares are in conformance.test.ts. */

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
  test("DuckDB's own types convert exactly: hugeint, unsigned, second and nanosecond timestamps, timetz, nested types, uuid, interval", async () => {
    const cursor = await driver().run(request(`select
      42::tinyint a, 170141183460469231731687303715884105727::hugeint c, 18446744073709551615::ubigint d,
      1.5::float f, 0.1::double g, true h, timestamp_ns '1969-12-31 23:59:59.999999999' k,
      timestamp_s '2024-01-02 03:04:05' l, '12:00:00+05:30'::timetz o, [1, null, 3] q,
      {'k': 'v', 'big': 9007199254740993::bigint} r, map {'x': 1.5::decimal(3,1)} s, '{"a": [1, 2]}'::json t,
      'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid u, interval 1 day v, [1, 2]::integer[2] y`));
    expect(cursor.columns.map((c) => c.kind)).toEqual([
      'integer', 'integer', 'integer', 'float', 'float', 'boolean', 'timestamp', 'timestamp', 'time', 'json', 'json', 'json',
      'json', 'text', 'text', 'json',
    ]);
    const [row] = await readAll(cursor);
    expect(row).toEqual([
      42, 170141183460469231731687303715884105727n, 18446744073709551615n, 1.5, 0.1, true,
      new LocalTimestamp('1969-12-31T23:59:59.999999'), new LocalTimestamp('2024-01-02T03:04:05'), new SqlTime('12:00:00+05:30'),
      new JsonValue([1, null, 3]), new JsonValue({ k: 'v', big: '9007199254740993' }), new JsonValue({ x: '1.5' }),
      new JsonValue({ a: [1, 2] }), 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '1 day', new JsonValue([1, 2]),
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

describe('duckdb catalog', () => {
  test("schema lists the connection's files as views, and tables of other schemas qualified", async () => {
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
  });

  test('the database is named for its file; DDL of views and of other schemas', async () => {
    const d = fileDriver();
    expect(await d.databases()).toEqual(['shop']);
    expect(await d.tableDdl('items')).toMatch(/^CREATE TABLE items\s*\(id INTEGER PRIMARY KEY, "name" VARCHAR NOT NULL/);
    expect(await d.tableDdl('cheap')).toMatch(/^CREATE VIEW cheap AS SELECT/);
    expect(await d.tableDdl('archive.old_items')).toMatch(/CREATE TABLE archive\.old_items/);
  });
});
