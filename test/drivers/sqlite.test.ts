import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { SqliteDriver, affinityKind } from '../../origin/drivers/sqlite/driver.ts';
import { childPids, env, eventually, failure, readAll, request } from './helpers.ts';

const dir = mkdtempSync(join(tmpdir(), 'sluice-sqlite-'));
const file = join(dir, 'app.db');
const drivers: SqliteDriver[] = [];
const ENDLESS = 'with recursive r(i) as (select 1 union all select i + 1 from r) select count(*) from r';

function driver(overrides: Parameters<typeof env>[0] = {}, database = file): SqliteDriver {
  const d = new SqliteDriver({ type: 'sqlite', database, options: {} }, env(overrides));
  drivers.push(d);
  return d;
}

beforeAll(() => {
  const db = new Database(file);
  db.exec(`
    create table items (id integer primary key, name text not null, price real, data blob, amount numeric, anything);
    create view cheap as select id, name from items where price < 10;
    create table other (z varchar(10));`);
  db.prepare('insert into items values (?, ?, ?, ?, ?, ?)').run(
    9007199254740993n, 'héllo "wörld"\n\'quoted\' ✓', 1.5, Buffer.from([0xde, 0xad]), 12.25, null,
  );
  db.prepare('insert into items values (?, ?, ?, ?, ?, ?)').run(2, '', -0.1, null, 'text in numeric', 7);
  db.close();
});

afterAll(async () => {
  await Promise.all(drivers.map((d) => d.close()));
  rmSync(dir, { recursive: true, force: true });
});

describe('sqlite values', () => {
  test('integers past 2^53 stay exact; kinds follow declared affinity', async () => {
    const cursor = await driver().run(request('select * from items order by id desc'));
    expect(cursor.columns).toEqual([
      { name: 'id', dbType: 'INTEGER', kind: 'integer' },
      { name: 'name', dbType: 'TEXT', kind: 'text' },
      { name: 'price', dbType: 'REAL', kind: 'float' },
      { name: 'data', dbType: 'BLOB', kind: 'binary' },
      { name: 'amount', dbType: 'numeric', kind: 'unknown' },
      { name: 'anything', dbType: '', kind: 'unknown' },
    ]);
    const rows = await readAll(cursor);
    expect(rows).toEqual([
      [9007199254740993n, 'héllo "wörld"\n\'quoted\' ✓', 1.5, new Uint8Array([0xde, 0xad]), 12.25, null],
      [2, '', -0.1, null, 'text in numeric', 7],
    ]);
    expect(rows[0][3]?.constructor).toBe(Uint8Array);
  });

  test('affinity rules', () => {
    expect(['BIGINT', 'VARCHAR(10)', 'CLOB', 'BLOB', 'DOUBLE PRECISION', 'FLOATING POINT', 'DECIMAL(10,2)', null].map(affinityKind)).toEqual([
      'integer', 'text', 'text', 'binary', 'float', 'integer', 'unknown', 'unknown',
    ]);
  });

  test('bound ? parameters, booleans as 0/1', async () => {
    const rows = await readAll(await driver().run(request('select ?, ?, ?, ?', { values: ['x', 9007199254740993n, true, null] })));
    expect(rows).toEqual([['x', 9007199254740993n, 1, null]]);
  });
});

describe('sqlite statements', () => {
  test('streams a large result batch by batch', async () => {
    const started = Date.now();
    const sql = 'with recursive r(i) as (select 1 union all select i + 1 from r where i < 200000) select i, hex(i) from r';
    const cursor = await driver().run(request(sql, { batchSize: 5000 }));
    let rows = 0;
    let batches = 0;
    for await (const batch of cursor.batches) {
      expect(batch.length).toBeLessThanOrEqual(5000);
      rows += batch.length;
      batches++;
    }
    expect([rows, batches]).toEqual([200000, 40]);
    console.log(`sqlite: 200k rows x 2 columns in ${Date.now() - started} ms`);
  });

  test('pulls on demand: an endless CTE read two batches deep, then closed', async () => {
    const d = driver();
    const sql = 'with recursive r(i) as (select 1 union all select i + 1 from r) select i from r';
    const cursor = await d.run(request(sql, { batchSize: 100 }));
    const iterator = cursor.batches[Symbol.asyncIterator]();
    expect((await iterator.next()).value).toHaveLength(100);
    expect(((await iterator.next()).value as number[][])[0]).toEqual([101]);
    await cursor.close();
    expect(d.idleSessions()).toBe(1);
    expect(await readAll(await d.run(request('select 1')))).toEqual([[1]]);
  });

  test('the read-only handle refuses writes, even when the request claims to be a read', async () => {
    const d = driver({ allowWrites: true });
    const error = await failure(d.run(request("insert into other values ('x')", { readOnly: true })));
    expect(error.extras.detail).toMatch(/readonly database/);
    const off = await failure(driver().run(request("insert into other values ('x')", { readOnly: false })));
    expect(off.extras.detail).toMatch(/readonly database/);
    const cursor = await d.run(request("insert into other values ('x')", { readOnly: false }));
    expect(cursor.columns).toEqual([]);
    await readAll(cursor);
    expect(await readAll(await d.run(request('select count(*) from other')))).toEqual([[1]]);
    await readAll(await d.run(request('delete from other', { readOnly: false })));
  });

  test('the time limit stops an endless statement by ending its process', async () => {
    const d = driver();
    await readAll(await d.run(request('select 1'))); // a warm session, so the limit covers only the statement
    const before = childPids();
    const started = Date.now();
    const error = await failure(d.run(request(ENDLESS, { timeoutMs: 300 })));
    expect(error.code).toBe('timeout');
    expect(error.extras.timeout).toBe(0.3);
    // The statement never ends: any answer this side of the margin, generous for a loaded machine, is the limit.
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(await eventually(() => childPids().length < before.length)).toBe(true);
    expect(await readAll(await d.run(request('select 2')))).toEqual([[2]]);
  });

  test('the abort signal stops an endless statement', async () => {
    const d = driver();
    const controller = new AbortController();
    // Late enough that the child process is up and the statement running even on a loaded machine
    // (an abort before it starts leaves a clean session idle, which is right but not what this tests).
    setTimeout(() => controller.abort(), 2000);
    const error = await failure(d.run(request(ENDLESS, { signal: controller.signal })));
    expect(error.code).toBe('query_failed');
    expect(d.idleSessions()).toBe(0);
  });

  test('the pool keeps at most poolSize idle sessions, then closes them', async () => {
    const d = driver({ poolSize: 1, poolIdleTimeoutMs: 200 });
    const before = childPids().length;
    const cursors = await Promise.all([1, 2, 3].map((n) => d.run(request(`select ${n} from items`, { batchSize: 1 }))));
    expect(childPids().length).toBe(before + 3);
    await Promise.all(cursors.map((c) => c.close()));
    expect(d.idleSessions()).toBe(1);
    expect(await eventually(() => d.idleSessions() === 0 && childPids().length === before, 3000)).toBe(true);
  });

  test('a missing file fails as unreachable', async () => {
    const d = driver({}, join(dir, 'missing.db'));
    const error = await failure(d.run(request('select 1')));
    expect([error.code, error.message]).toEqual(['query_failed', 'The database could not be reached']);
    expect((await failure(d.test())).code).toBe('connection_failed');
  });
});

describe('sqlite catalog', () => {
  test('schema, truncation, databases and DDL', async () => {
    const d = driver();
    const listing = await d.schema({ maxColumns: 5000 });
    expect(listing.tables.map((t) => [t.name, t.type, t.columns.length])).toEqual([
      ['cheap', 'view', 2], ['items', 'table', 6], ['other', 'table', 1],
    ]);
    expect(listing.tables[1].columns[1]).toEqual({ name: 'name', type: 'TEXT', nullable: false, position: 2 });
    const cut = await d.schema({ maxColumns: 4 });
    expect(cut.truncated).toBe(true);
    expect(cut.tables.map((t) => t.columns.length)).toEqual([2, 2]);
    expect(await d.databases()).toEqual(['main']);
    expect(await d.tableDdl('items')).toMatch(/^CREATE TABLE items \(id integer primary key/i);
    expect((await failure(d.tableDdl('nope'))).code).toBe('not_found');
  });
});
