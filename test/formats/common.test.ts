import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { DRIVERS } from '../query/fixture.ts';
import { parseXml } from '../unit/formats/parsers.ts';
import {
  CONTENT_TYPES,
  DUPLICATES_SQL,
  EMPTY_SQL,
  type FormatEnv,
  ROW_COUNT,
  expectPaged,
  post,
  startFormatEnv,
  valuesSql,
} from './fixture.ts';
import { FORMATS, duckRead, hyparquetRead, loadSheet, readBack, sheetRow } from './readers.ts';

/**
 * What every format shares, on every database: the format named in the body,
 * the paging headers, duplicate column names made unique (`id`, `id_2`), the
 * empty result as each format's empty document, and 400 for an unknown format.
 */

let env: FormatEnv;
beforeAll(async () => {
  env = await startFormatEnv();
});
afterAll(async () => {
  await env?.close();
});

describe.each(DRIVERS)('%s', (driver) => {
  const body = (sql: string, extra: Record<string, unknown> = {}) => ({ sql, connection_name: env.conn[driver], ...extra });

  it.each(FORMATS)('%s: named in the body, answers as named in the query string', async (format) => {
    const fromBody = await post(env.origin, body(valuesSql(driver), { format }));
    expectPaged(fromBody, format);
    const fromQuery = await post(env.origin, body(valuesSql(driver)), { format });
    expectPaged(fromQuery, format);
    // xlsx carries creation times: compare what the files hold.
    expect(await readBack(format, fromBody)).toEqual(await readBack(format, fromQuery));
    if (format !== 'xlsx') expect(fromBody.bytes.equals(fromQuery.bytes)).toBe(true);
    // The query string wins over the body.
    const both = await post(env.origin, body(valuesSql(driver), { format: 'json' }), { format });
    expect(both.headers.get('content-type')).toMatch(CONTENT_TYPES[format]);
  });

  it.each(FORMATS)('%s: pages with X-Page, X-Page-Size and X-Has-More', async (format) => {
    const first = await post(env.origin, body(valuesSql(driver)), { format, page: 1, page_size: 2 });
    expectPaged(first, format, { page: 1, pageSize: 2, hasMore: true });
    expect((await readBack(format, first)).rows.map((row) => row[0])).toEqual(['1', '2']);
    const last = await post(env.origin, body(valuesSql(driver)), { format, page: 2, page_size: 2 });
    expectPaged(last, format, { page: 2, pageSize: 2, hasMore: false });
    const lastRows = (await readBack(format, last)).rows;
    // xlsx stores no row of empty cells at all; every other format has the NULL row.
    if (format === 'xlsx') expect(lastRows.every((row) => row.every((v) => v === null))).toBe(true);
    else expect(lastRows).toEqual([new Array(lastRows[0].length).fill(null)]);
    const whole = await readBack(format, await post(env.origin, body(valuesSql(driver)), { format, page_size: ROW_COUNT }));
    expect(whole.rows.length).toBeGreaterThanOrEqual(format === 'xlsx' ? ROW_COUNT - 1 : ROW_COUNT);
  });

  it.each(FORMATS)(`%s: duplicate column names become id, id_2 (${DUPLICATES_SQL})`, async (format) => {
    const res = await post(env.origin, body(DUPLICATES_SQL), { format });
    expectPaged(res, format);
    expect(await readBack(format, res)).toEqual({ names: ['id', 'id_2'], rows: [['1', '2']] });
    if (format === 'json') expect(res.text).toBe('[{"id":1,"id_2":2}]\n');
    if (format === 'csv') expect(res.text).toBe('id,id_2\r\n1,2\r\n');
    if (format === 'parquet') {
      const back = await duckRead(env.dir, res.bytes, ['id', 'id_2']);
      expect(back.types).toEqual({ id: 'BIGINT', id_2: 'BIGINT' });
      expect(back.rows).toEqual([['1', '2']]);
    }
  });

  describe('an empty result', () => {
    const empty = (format: string) => post(env.origin, body(EMPTY_SQL), { format });

    it('json: {"message": "No results returned"}', async () => {
      const res = await empty('json');
      expectPaged(res, 'json');
      expect(JSON.parse(res.text)).toEqual({ message: 'No results returned' });
    });

    it('ndjson: no lines at all', async () => {
      const res = await empty('ndjson');
      expectPaged(res, 'ndjson');
      expect(res.text).toBe('');
    });

    it('csv and tsv: the header only', async () => {
      const csv = await empty('csv');
      expectPaged(csv, 'csv');
      expect(await readBack('csv', csv)).toEqual({ names: ['id', 'u'], rows: [] });
      expect(csv.text).toBe('id,u\r\n');
      const tsv = await empty('tsv');
      expectPaged(tsv, 'tsv');
      expect(await readBack('tsv', tsv)).toEqual({ names: ['id', 'u'], rows: [] });
      expect(tsv.text).toBe('id\tu\n');
    });

    it('xml: a well-formed document with no row', async () => {
      const res = await empty('xml');
      expectPaged(res, 'xml');
      const root = parseXml(res.text);
      expect(root.name).toBe('rows');
      expect(root.children).toEqual([]);
    });

    it('yaml: an empty sequence', async () => {
      const res = await empty('yaml');
      expectPaged(res, 'yaml');
      expect(YAML.parse(res.text)).toEqual([]);
    });

    it('xlsx: a workbook with the header row only', async () => {
      const res = await empty('xlsx');
      expectPaged(res, 'xlsx');
      const sheet = await loadSheet(res.bytes);
      expect(sheet.rowCount).toBe(1);
      expect(sheetRow(sheet, 1, 2)).toEqual(['id', 'u']);
    });

    it('parquet: a valid file of no rows with the columns', async () => {
      const res = await empty('parquet');
      expectPaged(res, 'parquet');
      const back = await hyparquetRead(res.bytes);
      expect(back.names).toEqual(['id', 'u']);
      expect(back.numRows).toBe(0n);
      const duck = await duckRead(env.dir, res.bytes, ['id', 'u']);
      expect(duck.count).toBe(0);
      expect(Object.keys(duck.types)).toEqual(['id', 'u']);
      expect(duck.types.u).toBe('VARCHAR');
    });
  });

  it('answers 400 {error} for an unknown format, in the query string or the body, and for a format of another type', async () => {
    for (const res of [
      await post(env.origin, body(valuesSql(driver)), { format: 'html' }),
      await post(env.origin, body(valuesSql(driver), { format: 'JSON' })),
      await post(env.origin, body(valuesSql(driver), { format: 'xls' })),
      await post(env.origin, body(valuesSql(driver), { format: 7 })),
    ]) {
      expect(res.status, res.text).toBe(400);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      const error = JSON.parse(res.text);
      expect(typeof error.error).toBe('string');
      expect(error).not.toHaveProperty('code');
    }
  });
});
