import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { SqliteDriver, affinityKind } from '../../origin/drivers/sqlite/driver.ts';
import { childPids, env, failure, readAll, request } from './helpers.ts';
import { eventually } from '../harness/eventually.ts';

/** What is SQLite's own; the cases every driver shares are in conformance.test.ts. */

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
  test('a write answers with no columns', async () => {
    const d = driver({ allowWrites: true });
    const cursor = await d.run(request("insert into other values ('x')", { readOnly: false }));
    expect(cursor.columns).toEqual([]);
    await readAll(cursor);
    expect(await readAll(await d.run(request('select count(*) from other')))).toEqual([[1]]);
    await readAll(await d.run(request('delete from other', { readOnly: false })));
  });

  test("the time limit stops an endless statement by ending its session's process", async () => {
    const d = driver();
    await readAll(await d.run(request('select 1'))); // a warm session, so the limit covers only the statement
    const before = childPids();
    const error = await failure(d.run(request(ENDLESS, { timeoutMs: 300 })));
    expect(error.code).toBe('timeout');
    await eventually(() => childPids().length < before.length);
  });

  test('the abort signal ends the running statement with its process: nothing is kept idle', async () => {
    const d = driver();
    const controller = new AbortController();
    // Late enough that the child process is up and the statement running even on a loaded machine
    // (an abort before it starts leaves a clean session idle, which is right but not what this tests).
    setTimeout(() => controller.abort(), 2000);
    const error = await failure(d.run(request(ENDLESS, { signal: controller.signal })));
    expect(error.code).toBe('query_failed');
    expect(d.idleSessions()).toBe(0);
  });

  test("the pool's sessions are child processes: poolSize kept, the rest and the idle ones ended", async () => {
    const d = driver({ poolSize: 1, poolIdleTimeoutMs: 200 });
    const before = childPids().length;
    const cursors = await Promise.all([1, 2, 3].map((n) => d.run(request(`select ${n} from items`, { batchSize: 1 }))));
    expect(childPids().length).toBe(before + 3);
    await Promise.all(cursors.map((c) => c.close()));
    expect(d.idleSessions()).toBe(1);
    await eventually(() => d.idleSessions() === 0 && childPids().length === before, { timeoutMs: 3000 });
  });
});

describe('sqlite catalog', () => {
  test('the DDL is the statement the table was created with', async () => {
    expect(await driver().tableDdl('items')).toMatch(/^CREATE TABLE items \(id integer primary key/i);
  });
});
