import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Dialect } from '../../origin/drivers/types.ts';
import { tempDir } from '../api/connections-fixtures.ts';
import type { Origin } from '../harness/origin.ts';
import { SERIES, WINDOW_EXAMPLES } from '../unit/sql/corpus.ts';
import {
  DRIVERS,
  PROBE_SEED,
  type SqlResponse,
  type TestDb,
  addConnection,
  createTestDb,
  executeSql,
  expectQueryError,
  firstColumn,
  startQueryOrigin,
} from './fixture.ts';

/**
 * Paging over HTTP on every database: the row-window examples of the SQL unit
 * tests page by page, the paging headers, and the validation of page,
 * page_size and bound window numbers.
 */

const MAX_PAGE_SIZE = 50;

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
  origin = await startQueryOrigin({ SLUICE_MAX_PAGE_SIZE: String(MAX_PAGE_SIZE) });
  for (const db of dbs) conn[db.driver] = await addConnection(origin, db);
});

afterAll(async () => {
  await origin?.stop();
  await Promise.all(dbs.map((db) => db.drop()));
  await folder?.remove();
});

function expectPage(res: SqlResponse, page: number, pageSize: number, hasMore: boolean) {
  expect(res.status, res.text).toBe(200);
  expect(res.headers.get('x-page')).toBe(String(page));
  expect(res.headers.get('x-page-size')).toBe(String(pageSize));
  expect(res.headers.get('x-has-more')).toBe(String(hasMore));
}

const ALL_ROWS = `${SERIES} SELECT i FROM n ORDER BY i`;

describe.each(DRIVERS)('%s', (driver) => {
  const run = (sql: string, query: Record<string, string | number> = {}, extra: Record<string, unknown> = {}) =>
    executeSql(origin, { sql, connection_name: conn[driver], ...extra }, query);

  describe('the row-window examples, page by page', () => {
    it.each(WINDOW_EXAMPLES.filter((e) => e.dialects.includes(driver)))('$name', async (example) => {
      for (const expected of example.pages) {
        const res = await run(example.sql, { page: expected.page, page_size: example.pageSize }, { params: example.params ?? {} });
        expectPage(res, expected.page, example.pageSize, expected.hasMore);
        expect(firstColumn(res), `page ${expected.page}`).toEqual(expected.rows);
        if (expected.rows.length === 0) expect(res.body).toEqual({ message: 'No results returned' });
      }
    });
  });

  it('pages 10 rows at a time from page 1 by default', async () => {
    const res = await run(ALL_ROWS);
    expectPage(res, 1, 10, true);
    expect(firstColumn(res)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  });

  it('takes page and page_size from the body too, the query string winning', async () => {
    let res = await run(ALL_ROWS, {}, { page: 3, page_size: 4 });
    expectPage(res, 3, 4, true);
    expect(firstColumn(res)).toEqual([9, 10, 11, 12]);
    res = await run(ALL_ROWS, { page: 2 }, { page: 3, page_size: 4 });
    expectPage(res, 2, 4, true);
    expect(firstColumn(res)).toEqual([5, 6, 7, 8]);
  });

  it(`accepts page_size up to SLUICE_MAX_PAGE_SIZE (${MAX_PAGE_SIZE})`, async () => {
    const res = await run(ALL_ROWS, { page: 2, page_size: MAX_PAGE_SIZE });
    expectPage(res, 2, MAX_PAGE_SIZE, false);
    expect(firstColumn(res)).toEqual(Array.from({ length: 50 }, (_, k) => 51 + k));
  });

  it('answers 400 for a page or page_size that is not a whole number of at least 1, or too large', async () => {
    for (const bad of ['0', '-1', '1.5', 'abc', '1e2', ' 2']) {
      expect(expectQueryError(await run(ALL_ROWS, { page: bad }), 400).error).toContain('page');
      expect(expectQueryError(await run(ALL_ROWS, { page_size: bad }), 400).error).toContain('page_size');
    }
    for (const bad of [0, -1, 1.5, 'abc']) {
      expectQueryError(await run(ALL_ROWS, {}, { page: bad }), 400);
      expectQueryError(await run(ALL_ROWS, {}, { page_size: bad }), 400);
    }
    const body = expectQueryError(await run(ALL_ROWS, { page_size: MAX_PAGE_SIZE + 1 }), 400);
    expect(body.error).toContain(String(MAX_PAGE_SIZE));
  });

  it('binds window numbers: valid values page, anything but a non-negative whole number is 400 naming the marker', async () => {
    const sql = `${ALL_ROWS} LIMIT :n OFFSET :o`;
    const res = await run(sql, { page: 2, page_size: 3 }, { params: { n: 7, o: '90' } });
    expectPage(res, 2, 3, true);
    expect(firstColumn(res)).toEqual([94, 95, 96]);

    for (const n of [-1, 1.5, 'abc', '5 OR 1=1', '', null, true, '-3', [5]]) {
      const body = expectQueryError(await run(sql, {}, { params: { n, o: 0 } }), 400);
      expect(body.error).toContain(':n');
    }
  });

  it('answers an empty result with {message: "No results returned"}', async () => {
    const res = await run('SELECT id, name FROM sluice_probe WHERE id < 0');
    expectPage(res, 1, 10, false);
    expect(res.body).toEqual({ message: 'No results returned' });
    const past = await run('SELECT id FROM sluice_probe ORDER BY id', { page: 2 });
    expectPage(past, 2, 10, false);
    expect(past.body).toEqual({ message: 'No results returned' });
  });

  it('streams the whole result unpaged with stream=true; paging or an unstreamable format with it is 400', async () => {
    const res = await run(`${ALL_ROWS} LIMIT 60`, { stream: 'true', format: 'csv' });
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename=".+\.csv"$/);
    expect(res.headers.get('x-page')).toBeNull();
    const lines = res.text.trim().split(/\r?\n/);
    expect(lines).toHaveLength(61);
    expect(lines.slice(1).map(Number)).toEqual(Array.from({ length: 60 }, (_, k) => k + 1));

    expectQueryError(await run(ALL_ROWS, { stream: 'true', format: 'csv', page: 1 }), 400);
    expectQueryError(await run(ALL_ROWS, { stream: 'true', format: 'csv', page_size: 10 }), 400);
    for (const format of ['json', 'xml', 'yaml', 'xlsx']) expectQueryError(await run(ALL_ROWS, { stream: 'true', format }), 400);
    // A statement the database rejects is the usual JSON error, before any data.
    expect(expectQueryError(await run('SELECT * FROM no_such_table_q', { stream: 'true', format: 'csv' }), 500).detail).toContain(
      'no_such_table_q',
    );
  });

  it('keeps a real table within LIMIT 3 and pages LIMIT 2 OFFSET 1', async () => {
    let res = await run('SELECT id FROM sluice_probe ORDER BY id LIMIT 3', { page_size: 10 });
    expectPage(res, 1, 10, false);
    expect(firstColumn(res)).toEqual([1, 2, 3]);
    res = await run('SELECT id FROM sluice_probe ORDER BY id LIMIT 2 OFFSET 1', { page_size: 1 });
    expectPage(res, 1, 1, true);
    expect(firstColumn(res)).toEqual([2]);
    res = await run('SELECT id FROM sluice_probe ORDER BY id LIMIT 2 OFFSET 1', { page: 2, page_size: 1 });
    expectPage(res, 2, 1, false);
    expect(firstColumn(res)).toEqual([3]);
  });
});
