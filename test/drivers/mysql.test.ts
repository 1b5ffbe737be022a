import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { MysqlDriver } from '../../origin/drivers/mysql/driver.ts';
import { Decimal, Instant, JsonValue, LocalTimestamp, SqlTime } from '../../origin/values.ts';
import type { SluiceError } from '../../origin/errors.ts';
import { recordSecret } from '../harness/run-record.ts';
import { MY, env, failure, mysqlCli, readAll, request } from './helpers.ts';
import { eventually } from '../harness/eventually.ts';
import { unique } from '../harness/unique.ts';

/** What is MariaDB's own; the cases every driver shares are in conformance.test.ts. */

const table = unique('drv_types');
const db = unique('sluice_drv');
const marker = unique('marker');
const drivers: MysqlDriver[] = [];

function driver(overrides: Parameters<typeof env>[0] = {}, database = MY.database): MysqlDriver {
  const d = new MysqlDriver({ ...MY, database, options: {} }, env(overrides));
  drivers.push(d);
  return d;
}

/** Statements of this file still running on the server (found by a marker comment in their text). */
function running(): number {
  return Number(mysqlCli(`select count(*) from information_schema.processlist where info like '%${marker}%' and info not like '%processlist%'`));
}

beforeAll(() => {
  mysqlCli(`create table ${table} (
    id int primary key, ti tinyint, ubig bigint unsigned, dec40 decimal(40,20), f float, dbl double,
    ts timestamp(6) null, t time(6), j json, vb varbinary(8), vc varchar(100), bt bit(10), e enum('a','b'), y year)`);
  // Written in +05:00: the driver's UTC session must still read the same instant.
  mysqlCli(`set time_zone = '+05:00'; insert into ${table} values
    (1, -128, 18446744073709551615, 12345678901234567890.12345678901234567890, 1.5, 0.1, '2024-01-02 08:04:05.123456',
     '23:59:59.999999', '{"a": [1, 2.5, null]}', x'00ff', 'x', b'1000000001', 'b', 2024),
    (2, null, 0, -0.00000000000000000001, null, null, null, '-838:59:59', 'null', null, '', null, null, null)`);
  mysqlCli(`create database ${db}`);
  mysqlCli('create table wide (a int not null, b text, c decimal(10,2)); create table narrow (z int); create view v as select a from wide', db);
});

afterAll(async () => {
  await Promise.all(drivers.map((d) => d.close()));
  mysqlCli(`drop table if exists ${table}`);
  mysqlCli(`drop database if exists ${db}`);
});

describe('mysql values', () => {
  test("MariaDB's own types convert exactly: unsigned, 40-digit decimals, TIME past a day, JSON, BIT, ENUM, YEAR", async () => {
    const cursor = await driver().run(request(`select * from ${table} order by id`));
    expect(cursor.columns.map((c) => [c.name, c.dbType, c.kind])).toEqual([
      ['id', 'INT', 'integer'], ['ti', 'TINYINT', 'integer'], ['ubig', 'BIGINT UNSIGNED', 'integer'],
      ['dec40', 'DECIMAL', 'decimal'], ['f', 'FLOAT', 'float'], ['dbl', 'DOUBLE', 'float'], ['ts', 'TIMESTAMP', 'timestamptz'],
      ['t', 'TIME', 'time'], ['j', 'JSON', 'json'], ['vb', 'VARBINARY', 'binary'], ['vc', 'VARCHAR', 'text'],
      ['bt', 'BIT', 'integer'], ['e', 'CHAR', 'text'], ['y', 'YEAR', 'integer'],
    ]);
    const [one, two] = await readAll(cursor);
    expect(one).toEqual([
      1, -128, 18446744073709551615n, new Decimal('12345678901234567890.12345678901234567890'), 1.5, 0.1,
      new Instant(1704164645123456n), new SqlTime('23:59:59.999999'), new JsonValue({ a: [1, 2.5, null] }),
      new Uint8Array([0, 255]), 'x', 513, 'b', 2024,
    ]);
    expect(two).toEqual([
      2, null, 0, new Decimal('-0.00000000000000000001'), null, null, null, '-838:59:59', new JsonValue(null), null, '', null,
      null, null,
    ]);
  });

  test('the session runs in UTC', async () => {
    const rows = await readAll(await driver().run(request('select from_unixtime(1700000000.654321), @@session.time_zone')));
    expect(rows).toEqual([[new LocalTimestamp('2023-11-14T22:13:20.654321'), '+00:00']]);
  });

  test('bound parameters need no cast: a bigint binds as a 64-bit integer', async () => {
    const rows = await readAll(await driver().run(request('select ? as a, ? as b, ? + 0 as c', { values: ['x', 9007199254740993n, 2] })));
    expect(rows).toEqual([['x', 9007199254740993n, 2]]);
  });
});

describe('mysql statements', () => {
  test('closing a nearly finished result drains it and keeps the session', async () => {
    const d = driver();
    const cursor = await d.run(request('select seq from seq_1_to_3000', { batchSize: 1000 }));
    await cursor.batches[Symbol.asyncIterator]().next();
    await cursor.close();
    expect(d.idleSessions()).toBe(1);
  });

  test('a heavy join is stopped at the limit (KILL QUERY and max_statement_time)', async () => {
    const error = await failure(
      driver().run(request(`select /* ${marker} */ count(*) from seq_1_to_100000000 a, seq_1_to_100000000 b`, { timeoutMs: 300 })),
    );
    expect(error.code).toBe('timeout');
    await eventually(() => running() === 0);
  });
});

describe('mysql catalog', () => {
  test('schema of another database than the connection’s', async () => {
    // A refusal names the database's own message: seen once under a full run's load, without it.
    const listing = await driver()
      .schema({ database: db, maxColumns: 5000 })
      .catch((error: SluiceError) => {
        throw new Error(`${error.message}: ${JSON.stringify(error.extras)}`);
      });
    expect(listing.truncated).toBe(false);
    expect(listing.tables).toEqual([
      { name: 'narrow', type: 'table', columns: [{ name: 'z', type: 'int(11)', nullable: true, position: 1 }] },
      { name: 'v', type: 'view', columns: [{ name: 'a', type: 'int(11)', nullable: false, position: 1 }] },
      {
        name: 'wide',
        type: 'table',
        columns: [
          { name: 'a', type: 'int(11)', nullable: false, position: 1 },
          { name: 'b', type: 'text', nullable: true, position: 2 },
          { name: 'c', type: 'decimal(10,2)', nullable: true, position: 3 },
        ],
      },
    ]);
  });

  test('databases leave out the system ones; DDL is SHOW CREATE TABLE, views of other databases included', async () => {
    const d = driver();
    const names = await d.databases();
    expect(names).toEqual(expect.arrayContaining(['test', db]));
    expect(names).not.toContain('mysql');
    expect(await d.tableDdl(table)).toMatch(new RegExp(`^CREATE TABLE \`${table}\` \\(`));
    expect(await d.tableDdl(`${db}.v`)).toMatch(/^CREATE .*VIEW `\w+`\.`v` AS select/);
  });

  test('a wrong password is refused without being echoed', async () => {
    const password = 'S3cret-wrong-pw';
    recordSecret('driver password', password);
    const d = new MysqlDriver({ ...MY, password, options: {} }, env());
    drivers.push(d);
    const run = await failure(d.run(request('select 1')));
    expect(run.extras.detail).toMatch(/Access denied/);
    expect(JSON.stringify(run.extras)).not.toContain(password);
    const probe = await failure(d.test());
    expect(probe.code).toBe('connection_failed');
    expect(JSON.stringify(probe.extras)).not.toContain(password);
  });
});
