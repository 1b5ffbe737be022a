import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { PostgresDriver } from '../../origin/drivers/postgres/driver.ts';
import { plan } from '../../origin/sql/index.ts';
import { Decimal, Instant, JsonValue, SqlDate, SqlTime } from '../../origin/values.ts';
import { PG, env, failure, psql, readAll, request } from './helpers.ts';
import { eventually } from '../harness/eventually.ts';
import { unique } from '../harness/unique.ts';

/** What is PostgreSQL's own; the cases every driver shares are in conformance.test.ts. */

const app = unique('sluice_pg');
const table = unique('drv_types');
const db = unique('sluice_drv');
const drivers: PostgresDriver[] = [];

function driver(overrides: Parameters<typeof env>[0] = {}, applicationName = app): PostgresDriver {
  const d = new PostgresDriver({ ...PG, options: { application_name: applicationName } }, env(overrides));
  drivers.push(d);
  return d;
}

function backends(applicationName: string): number {
  return Number(psql(`select count(*) from pg_stat_activity where application_name = '${applicationName}'`));
}

beforeAll(() => {
  psql(`create table ${table} (
    id int4 primary key, i2 int2, num numeric, f4 float4, f8 float8, b bool, d date, tstz timestamptz, ttz timetz,
    j json, jb jsonb, ia int4[], ta text[], u uuid, iv interval)`);
  psql(`insert into ${table} values
    (1, -32768, 123456789012345678901234.5678901234, 1.5, 0.1, true, '2024-02-29', '2024-01-02 03:04:05.123456+05:30',
     '12:00:00+05', '{"a": [1, 2.5, null]}', '{"k": "v"}', '{1,NULL,3}', '{"a b","c\\"d",NULL}',
     'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '1 day 02:00:00'),
    (2, null, -0.000001, 'NaN', '-Infinity', false, '0044-03-15 BC', '1969-12-31 23:59:59.999999+00', null,
     'null', '[]', '{}', '{}', null, null)`);
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
  test("PostgreSQL's own types convert exactly: unbounded numeric, floats, BC dates, timetz, JSON, arrays, uuid, interval", async () => {
    const cursor = await driver().run(request(`select * from ${table} order by id`));
    expect(cursor.columns.map((c) => [c.name, c.dbType, c.kind])).toEqual([
      ['id', 'int4', 'integer'], ['i2', 'int2', 'integer'], ['num', 'numeric', 'decimal'], ['f4', 'float4', 'float'],
      ['f8', 'float8', 'float'], ['b', 'bool', 'boolean'], ['d', 'date', 'date'], ['tstz', 'timestamptz', 'timestamptz'],
      ['ttz', 'timetz', 'time'], ['j', 'json', 'json'], ['jb', 'jsonb', 'json'], ['ia', 'int4[]', 'json'],
      ['ta', 'text[]', 'json'], ['u', 'uuid', 'text'], ['iv', 'interval', 'text'],
    ]);
    const [one, two] = await readAll(cursor);
    expect(one).toEqual([
      1, -32768, new Decimal('123456789012345678901234.5678901234'), 1.5, 0.1, true, new SqlDate('2024-02-29'),
      new Instant(1704144845123456n), new SqlTime('12:00:00+05:00'), new JsonValue({ a: [1, 2.5, null] }),
      new JsonValue({ k: 'v' }), new JsonValue([1, null, 3]), new JsonValue(['a b', 'c"d', null]),
      'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '1 day 02:00:00',
    ]);
    expect(two).toEqual([
      2, null, new Decimal('-0.000001'), Number.NaN, -Infinity, false, new SqlDate('-0043-03-15'), new Instant(-1n), null,
      new JsonValue(null), new JsonValue([]), new JsonValue([]), new JsonValue([]), null, null,
    ]);
  });

  test('bound parameters as text, domains and enums', async () => {
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
  test('the read-only transaction refuses nextval() and DDL, whatever the request says when writes are off', async () => {
    const d = driver();
    const seq = unique('seq');
    psql(`create sequence ${seq}`);
    try {
      const refused = await failure(d.run(request(`select nextval('${seq}')`)));
      expect(refused.code).toBe('query_failed');
      expect(refused.extras.detail).toMatch(/read-only transaction/);
      const write = await failure(d.run(request(`create table ${unique('nope')} (a int)`, { readOnly: false })));
      expect(write.extras.detail).toMatch(/read-only transaction/);
      const writer = driver({ allowWrites: true });
      expect(await readAll(await writer.run(request(`select nextval('${seq}')`, { readOnly: false })))).toEqual([[1]]);
      expect(psql(`select last_value from ${seq}`)).toBe('1');
    } finally {
      psql(`drop sequence ${seq}`);
    }
  });

  test('a read answered whole with its values written in: every value comes back as sent, and the session is reset with it', async () => {
    // A function of the database's that takes a session lock (a read, as far as the text shows) and counts those its session holds.
    const lock = unique('take_lock');
    psql(`create function ${lock}(k int) returns bigint language sql as $$
      select pg_catalog.pg_advisory_lock(k); select count(*) from pg_locks where locktype = 'advisory' and pid = pg_catalog.pg_backend_pid() $$`);
    const d = driver({ poolSize: 1 });
    const awkward = ["it's", 'back\\slash \\\' and \\x41', '$$ $q$ -- not a comment', '/* not one either', 'line\nbreak', '€ 😀 \u00e9', '', ' NULL '];
    const planned = (values: Record<string, unknown>) => {
      const p = plan(
        `select :a::text as a, :n as n, :z::text as z, ${lock}(:k) as held, pg_catalog.pg_backend_pid() as pid`,
        'postgres',
        values,
        { page: 1, pageSize: 10 },
      );
      expect(p.inlined).toBeDefined();
      return request(p.text, { values: p.values, rowsAtMost: p.rowsAtMost!, inlined: p.inlined });
    };
    const pids = new Set<unknown>();
    for (const [k, a] of awkward.entries()) {
      const [[text, n, z, held, pid]] = await readAll(await d.run(planned({ a, n: 12.5, z: null, k })));
      // Its own lock only: the one the read before took on the same session was released by that read's reset.
      expect([text, n, z, held]).toEqual([a, '12.5', null, 1]);
      pids.add(pid);
    }
    // One session served them all, and holds no lock now.
    expect(pids.size).toBe(1);
    expect(psql(`select count(*) from pg_locks where locktype = 'advisory' and pid = ${[...pids][0]}`)).toBe('0');
    psql(`drop function ${lock}(int)`);
  });

  test('on a database whose strings read backslashes as escapes, values are bound, never written in', async () => {
    psql(`alter database ${db} set standard_conforming_strings = off`);
    try {
      const d = new PostgresDriver({ ...PG, database: db, options: { application_name: app } }, env());
      drivers.push(d);
      const value = "\\' or true --";
      const p = plan('select :a::text as a', 'postgres', { a: value }, { page: 1, pageSize: 10 });
      const cursor = await d.run(request(p.text, { values: p.values, rowsAtMost: p.rowsAtMost!, inlined: p.inlined }));
      expect(await readAll(cursor)).toEqual([[value]]);
    } finally {
      psql(`alter database ${db} reset standard_conforming_strings`);
    }
  });

  test('an abort between batches destroys the session at once: the cancel could land on its next statement', async () => {
    const d = driver();
    const controller = new AbortController();
    const cursor = await d.run(request('select generate_series(1, 1000000000) as g', { signal: controller.signal }));
    controller.abort();
    const error = await failure(readAll(cursor));
    expect(error.code).toBe('query_failed');
    expect(d.idleSessions()).toBe(0);
  });

  test("the pool's sessions are server backends: poolSize kept, closed after the idle timeout; none kept with poolSize 0", async () => {
    const name = unique('sluice_pool');
    const d = driver({ poolSize: 2, poolIdleTimeoutMs: 300 }, name);
    const cursors = await Promise.all([1, 2, 3, 4].map((n) => d.run(request(`select ${n} from generate_series(1, 5000)`, { batchSize: 10 }))));
    expect(backends(name)).toBe(4);
    await Promise.all(cursors.map((c) => c.close()));
    // A read answers before its session's reset ends; the two past poolSize are closed after it.
    await eventually(() => backends(name) === 2, { what: 'poolSize backends kept' });
    await eventually(() => backends(name) === 0, { timeoutMs: 3000 });
    const unpooled = unique('sluice_nopool');
    expect(await readAll(await driver({ poolSize: 0 }, unpooled).run(request('select 1')))).toEqual([[1]]);
    await eventually(() => backends(unpooled) === 0, { timeoutMs: 3000 });
  });
});

describe('postgres catalog', () => {
  test('schema qualifies tables outside public, and lists views with their columns', async () => {
    expect(await driver().schema({ database: db, maxColumns: 5000 })).toEqual({
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
  });

  test('table DDL is reconstructed from the catalog, constraints included', async () => {
    const d = driver();
    expect(await d.databases()).toEqual(expect.arrayContaining(['test', db]));
    const ddl = await d.tableDdl(table);
    expect(ddl).toContain(`CREATE TABLE public.${table} (`);
    expect(ddl).toContain('  id integer NOT NULL');
    expect(ddl).toContain('  num numeric');
    expect(ddl).toMatch(/CONSTRAINT \w+ PRIMARY KEY \(id\)/);
  });
});
