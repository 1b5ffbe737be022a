import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Dialect } from '../../origin/drivers/types.ts';
import { tempDir } from '../api/connections-fixtures.ts';
import type { Origin } from '../harness/origin.ts';
import {
  DRIVERS,
  PROBE_SEED,
  type TestDb,
  addConnection,
  createTestDb,
  executeSql,
  expectQueryError,
  rowsOf,
} from './fixture.ts';
import { sharedOrigin } from '../harness/shared-origin.ts';

/** `:name` markers over HTTP: bound as values on every database, never spliced into the text. */

let origin: Origin;
let folder: Awaited<ReturnType<typeof tempDir>>;
const dbs: TestDb[] = [];
const conn = {} as Record<Dialect, string>;

beforeAll(async () => {
  folder = await tempDir();
  await Promise.all(
    DRIVERS.map(async (driver) => {
      const db = await createTestDb(driver, folder.dir);
      dbs.push(db);
      await db.exec(...PROBE_SEED);
    }),
  );
  origin = await sharedOrigin();
  for (const db of dbs) conn[db.driver] = await addConnection(origin, db);
});

afterAll(async () => {
  await origin?.stop();
  await Promise.all(dbs.map((db) => db.drop()));
  await folder?.remove();
});

/** Texts that would change the statement if they were pasted into it. */
const HOSTILE = ['1 or 1=1', "'; drop table sluice_probe; --", "a' OR '1'='1", 'x"; DELETE FROM sluice_probe; --', ':other'];

describe.each(DRIVERS)('%s', (driver) => {
  const run = (sql: string, params?: Record<string, unknown>) =>
    executeSql(origin, { sql, connection_name: conn[driver], ...(params ? { params } : {}) });
  const count = async () => rowsOf(await run('SELECT count(*) AS n FROM sluice_probe')).map((r) => Number(r.n));

  it('binds a value as data: hostile text comes back as is and matches nothing', async () => {
    for (const value of HOSTILE) {
      expect(rowsOf(await run('SELECT :v AS v', { v: value }))).toEqual([{ v: value }]);
      expect(rowsOf(await run('SELECT id FROM sluice_probe WHERE name = :v', { v: value }))).toEqual([]);
    }
    expect(await count()).toEqual([3]);
  });

  it('binds numbers, null and repeated markers', async () => {
    expect(rowsOf(await run('SELECT id FROM sluice_probe WHERE id = :id', { id: 2 }))).toEqual([{ id: 2 }]);
    expect(rowsOf(await run('SELECT id FROM sluice_probe WHERE id = :a OR id = :a + 1 ORDER BY id', { a: 1 }))).toEqual([
      { id: 1 },
      { id: 2 },
    ]);
    expect(rowsOf(await run('SELECT :s AS x, :s AS y', { s: 'same' }))).toEqual([{ x: 'same', y: 'same' }]);
    expect(rowsOf(await run('SELECT :v AS v', { v: null }))).toEqual([{ v: null }]);
    expect(rowsOf(await run('SELECT id FROM sluice_probe WHERE name = :v', { v: null }))).toEqual([]);
  });

  it('ignores markers in string literals and comments', async () => {
    const sql = "SELECT ':x' AS s, id /* :y */ FROM sluice_probe -- :z\n WHERE id = 1";
    expect(rowsOf(await run(sql))).toEqual([{ s: ':x', id: 1 }]);
    expect(rowsOf(await run("SELECT ':x' AS s, :v AS v", { v: 'bound' }))).toEqual([{ s: ':x', v: 'bound' }]);
  });

  if (driver === 'postgres' || driver === 'duckdb') {
    it('ignores :: casts, also right after a marker', async () => {
      expect(rowsOf(await run("SELECT '5'::integer AS a, 'x'::text AS b"))).toEqual([{ a: 5, b: 'x' }]);
      expect(rowsOf(await run('SELECT :v::text AS b, :n::integer + 1 AS c', { v: 'z', n: '41' }))).toEqual([{ b: 'z', c: 42 }]);
    });
  }

  it('answers 400 naming each marker without a value, before running anything', async () => {
    let body = expectQueryError(await run('SELECT :a AS a, :b AS b', { a: 1 }), 400);
    expect(body.error).toContain(':b');
    expect(body.error).not.toContain(':a');
    expect(body.missing).toEqual(['b']);

    body = expectQueryError(await run('SELECT :first AS a, :second AS b, :first AS c'), 400);
    expect(body.error).toContain(':first');
    expect(body.error).toContain(':second');
    expect(body.missing).toEqual(['first', 'second']);

    // A value for another name does not count.
    body = expectQueryError(await run('SELECT :a AS a', { A: 1, b: 2 }), 400);
    expect(body.missing).toEqual(['a']);
  });

  it('refuses params that are not an object (400)', async () => {
    for (const params of [[1, 2], 'a=1', 5]) {
      expectQueryError(await executeSql(origin, { sql: 'SELECT :a AS a', params, connection_name: conn[driver] }), 400);
    }
  });
});
