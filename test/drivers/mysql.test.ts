import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { MysqlDriver } from '../../origin/drivers/mysql/driver.ts';
import { Decimal, Instant, JsonValue, LocalTimestamp, SqlDate, SqlTime } from '../../origin/values.ts';
import { recordSecret } from '../harness/run-record.ts';
import { MY, env, eventually, failure, mysqlCli, readAll, request, uniqueName } from './helpers.ts';

const table = uniqueName('drv_types');
const db = uniqueName('sluice_drv');
const marker = uniqueName('marker');
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
    id int primary key, ti tinyint, big bigint, ubig bigint unsigned, dec40 decimal(40,20), f float, dbl double,
    d date, dt datetime(6), ts timestamp(6) null, t time(6), j json, bl blob, vb varbinary(8), tx text,
    vc varchar(100), bt bit(10), e enum('a','b'), y year)`);
  // Written in +05:00: the driver's UTC session must still read the same instant.
  mysqlCli(`set time_zone = '+05:00'; insert into ${table} values
    (1, -128, 9007199254740993, 18446744073709551615, 12345678901234567890.12345678901234567890, 1.5, 0.1,
     '2024-02-29', '2024-01-02 03:04:05.123456', '2024-01-02 08:04:05.123456', '23:59:59.999999',
     '{"a": [1, 2.5, null]}', x'deadbeef', x'00ff', 'héllo "wörld"\\n''quoted'' ✓', 'x', b'1000000001', 'b', 2024),
    (2, null, -9007199254740991, 0, -0.00000000000000000001, null, null, null, null, null, '-838:59:59',
     'null', x'', null, '', '', null, null, null)`);
  mysqlCli(`create database ${db}`);
  mysqlCli('create table wide (a int not null, b text, c decimal(10,2)); create table narrow (z int); create view v as select a from wide', db);
});

afterAll(async () => {
  await Promise.all(drivers.map((d) => d.close()));
  mysqlCli(`drop table if exists ${table}`);
  mysqlCli(`drop database if exists ${db}`);
});

describe('mysql values', () => {
  test('every type converts exactly', async () => {
    const cursor = await driver().run(request(`select * from ${table} order by id`));
    expect(cursor.columns.map((c) => [c.name, c.dbType, c.kind])).toEqual([
      ['id', 'INT', 'integer'], ['ti', 'TINYINT', 'integer'], ['big', 'BIGINT', 'integer'],
      ['ubig', 'BIGINT UNSIGNED', 'integer'], ['dec40', 'DECIMAL', 'decimal'], ['f', 'FLOAT', 'float'],
      ['dbl', 'DOUBLE', 'float'], ['d', 'DATE', 'date'], ['dt', 'DATETIME', 'timestamp'],
      ['ts', 'TIMESTAMP', 'timestamptz'], ['t', 'TIME', 'time'], ['j', 'JSON', 'json'], ['bl', 'BLOB', 'binary'],
      ['vb', 'VARBINARY', 'binary'], ['tx', 'TEXT', 'text'], ['vc', 'VARCHAR', 'text'], ['bt', 'BIT', 'integer'],
      ['e', 'CHAR', 'text'], ['y', 'YEAR', 'integer'],
    ]);
    const [one, two] = await readAll(cursor);
    expect(one).toEqual([
      1, -128, 9007199254740993n, 18446744073709551615n, new Decimal('12345678901234567890.12345678901234567890'), 1.5,
      0.1, new SqlDate('2024-02-29'), new LocalTimestamp('2024-01-02T03:04:05.123456'), new Instant(1704164645123456n),
      new SqlTime('23:59:59.999999'), new JsonValue({ a: [1, 2.5, null] }), new Uint8Array([0xde, 0xad, 0xbe, 0xef]),
      new Uint8Array([0, 255]), 'héllo "wörld"\n\'quoted\' ✓', 'x', 513, 'b', 2024,
    ]);
    expect(two).toEqual([
      2, null, -9007199254740991, 0, new Decimal('-0.00000000000000000001'), null, null, null, null, null,
      '-838:59:59', new JsonValue(null), new Uint8Array([]), null, '', '', null, null, null,
    ]);
  });

  test('the session runs in UTC', async () => {
    const rows = await readAll(await driver().run(request('select from_unixtime(1700000000.654321), @@session.time_zone')));
    expect(rows).toEqual([[new LocalTimestamp('2023-11-14T22:13:20.654321'), '+00:00']]);
  });

  test('bound parameters', async () => {
    const rows = await readAll(await driver().run(request('select ? as a, ? as b, ? + 0 as c', { values: ['x', 9007199254740993n, 2] })));
    expect(rows).toEqual([['x', 9007199254740993n, 2]]);
  });
});

describe('mysql statements', () => {
  test('streams a large result batch by batch', async () => {
    const started = Date.now();
    const cursor = await driver().run(request('select seq, md5(seq) from seq_1_to_200000', { batchSize: 5000 }));
    let rows = 0;
    let batches = 0;
    for await (const batch of cursor.batches) {
      expect(batch.length).toBeLessThanOrEqual(5000);
      rows += batch.length;
      batches++;
    }
    expect([rows, batches]).toEqual([200000, 40]);
    console.log(`mysql: 200k rows x 2 columns in ${Date.now() - started} ms`);
  });

  test('pulls on demand; closing mid-stream kills the rest and the pool stays usable', async () => {
    const d = driver();
    const cursor = await d.run(request(`select /* ${marker} */ seq from seq_1_to_1000000000`, { batchSize: 100 }));
    const iterator = cursor.batches[Symbol.asyncIterator]();
    expect((await iterator.next()).value).toHaveLength(100);
    expect(((await iterator.next()).value as number[][])[0]).toEqual([101]);
    await cursor.close();
    expect(await eventually(() => running() === 0)).toBe(true);
    expect(await readAll(await d.run(request('select 1')))).toEqual([[1]]);
  });

  test('closing a nearly finished result drains it and keeps the session', async () => {
    const d = driver();
    const cursor = await d.run(request('select seq from seq_1_to_3000', { batchSize: 1000 }));
    await cursor.batches[Symbol.asyncIterator]().next();
    await cursor.close();
    expect(d.idleSessions()).toBe(1);
  });

  test('reads run in a read-only transaction', async () => {
    const d = driver();
    const error = await failure(d.run(request(`insert into ${table} (id) values (99)`, { readOnly: false })));
    expect(error.extras.detail).toMatch(/READ ONLY transaction/i);
    const writer = driver({ allowWrites: true });
    const name = uniqueName('w');
    await readAll(await writer.run(request(`create table ${name} (a int)`, { readOnly: false })));
    await readAll(await writer.run(request(`insert into ${name} values (1)`, { readOnly: false })));
    expect(mysqlCli(`select count(*) from ${name}`)).toBe('1');
    mysqlCli(`drop table ${name}`);
  });

  test('the time limit kills the statement on the server', async () => {
    const d = driver();
    const started = Date.now();
    const error = await failure(d.run(request(`select /* ${marker} */ sleep(30)`, { timeoutMs: 400 })));
    expect(error.code).toBe('timeout');
    // A kill that works answers within moments; one that does not waits out the 30 s statement.
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(await eventually(() => running() === 0)).toBe(true);
  });

  test('a heavy join is stopped at the limit (KILL QUERY and max_statement_time)', async () => {
    const error = await failure(
      driver().run(request(`select /* ${marker} */ count(*) from seq_1_to_100000000 a, seq_1_to_100000000 b`, { timeoutMs: 300 })),
    );
    expect(error.code).toBe('timeout');
    expect(await eventually(() => running() === 0)).toBe(true);
  });

  test('the abort signal kills a running statement', async () => {
    const d = driver();
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 300);
    const error = await failure(d.run(request(`select /* ${marker} */ sleep(30)`, { signal: controller.signal })));
    expect(error.code).toBe('query_failed');
    expect(await eventually(() => running() === 0)).toBe(true);
    expect(await readAll(await d.run(request('select 2')))).toEqual([[2]]);
  });

  test('a rejected statement reports the message and keeps the session', async () => {
    const d = driver();
    const error = await failure(d.run(request('select nope from dual')));
    expect(error.extras.detail).toMatch(/Unknown column 'nope'/);
    expect(d.idleSessions()).toBe(1);
  });

  test('the pool keeps at most poolSize idle sessions, then closes them', async () => {
    const d = driver({ poolSize: 2, poolIdleTimeoutMs: 300 });
    const cursors = await Promise.all([1, 2, 3].map((n) => d.run(request(`select ${n} from seq_1_to_5000`, { batchSize: 10 }))));
    await Promise.all(cursors.map((c) => c.close()));
    expect(d.idleSessions()).toBe(2);
    expect(await eventually(() => d.idleSessions() === 0, 3000)).toBe(true);
  });
});

describe('mysql catalog', () => {
  test('schema of another database, with truncation', async () => {
    const d = driver();
    const listing = await d.schema({ database: db, maxColumns: 5000 });
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
    const cut = await driver({}, db).schema({ maxColumns: 2 });
    expect(cut.truncated).toBe(true);
    expect(cut.tables.map((t) => t.columns.length)).toEqual([1, 1]);
  });

  test('databases and SHOW CREATE TABLE', async () => {
    const d = driver();
    const names = await d.databases();
    expect(names).toEqual(expect.arrayContaining(['test', db]));
    expect(names).not.toContain('mysql');
    expect(await d.tableDdl(table)).toMatch(new RegExp(`^CREATE TABLE \`${table}\` \\(`));
    expect(await d.tableDdl(`${db}.v`)).toMatch(/^CREATE .*VIEW `\w+`\.`v` AS select/);
    expect((await failure(d.tableDdl('no_such_table'))).code).toBe('not_found');
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
