import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DRIVERS } from '../query/fixture.ts';
import {
  BIG,
  type Column,
  DEC,
  type FormatEnv,
  ROW_COUNT,
  cellText,
  columnsOf,
  expectPaged,
  post,
  startFormatEnv,
  valuesSql,
  xlsxCell,
} from './fixture.ts';
import { duckRead, hyparquetRead, loadSheet, sheetRow } from './readers.ts';

/**
 * The file formats (xlsx, parquet) on every database: a download name, and
 * the file opened by a real reader: exceljs for xlsx; hyparquet and DuckDB's
 * read_parquet for parquet, with the column types the spec gives (64-bit
 * integer, exact decimal, double, boolean, date, timestamp with and without
 * zone, time, text) and every value, NULLs included.
 */

let env: FormatEnv;
beforeAll(async () => {
  env = await startFormatEnv();
});
afterAll(async () => {
  await env?.close();
});

const rowIndexes = Array.from({ length: ROW_COUNT }, (_, r) => r);

/** Microseconds since the epoch of `YYYY-MM-DDTHH:MM:SS[.f][±HH:MM]` (UTC when it has no offset). */
function epochMicros(text: string): bigint {
  const m = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,6}))?([+-]\d{2}:\d{2})?$/.exec(text);
  if (!m) throw new Error(`not a timestamp: ${text}`);
  return BigInt(Date.parse(`${m[1]}${m[3] ?? 'Z'}`)) * 1000n + BigInt((m[2] ?? '').padEnd(6, '0'));
}

/** What hyparquet gives for a cell (physical values: days, microseconds; decimals as doubles). */
function hyparquetCell(column: Column, r: number): unknown {
  const text = cellText(column, r);
  if (text === null) return null;
  switch (column.parquet) {
    case 'BIGINT':
      return BigInt(text);
    case 'DOUBLE':
      return Number(text);
    case 'BOOLEAN':
      return text === 'true';
    case 'DATE':
      return Date.parse(`${text}T00:00:00Z`) / 86_400_000;
    case 'TIMESTAMP':
    case 'TIMESTAMP WITH TIME ZONE':
      return epochMicros(text);
    case 'TIME': {
      const [h, m, s] = text.split(':');
      return epochMicros(`1970-01-01T${h}:${m}:${s}`);
    }
    case 'VARCHAR':
      return text;
  }
  // DECIMAL: hyparquet reads it into a double (DuckDB checks the digits).
  const n = Number(text);
  return expect.closeTo(n, 14 - Math.floor(Math.log10(Math.abs(n))));
}

describe.each(DRIVERS)('%s', (driver) => {
  const columns = columnsOf(driver);
  const names = columns.map((c) => c.name);
  const run = (format: string) => post(env.origin, { sql: valuesSql(driver), connection_name: env.conn[driver] }, { format });

  it('xlsx: a workbook exceljs opens; bold header, numbers, long digits as text, dates, empty NULLs', async () => {
    const res = await run('xlsx');
    expectPaged(res, 'xlsx');
    expect(res.bytes.subarray(0, 2).toString('latin1')).toBe('PK');
    const sheet = await loadSheet(res.bytes);
    expect(sheetRow(sheet, 1, names.length)).toEqual(names);
    expect(sheet.getRow(1).font?.bold).toBe(true);
    // The all-NULL row is the last one: a row of empty cells, which xlsx does not store at all.
    expect(sheet.rowCount).toBeGreaterThanOrEqual(ROW_COUNT);
    expect(sheet.rowCount).toBeLessThanOrEqual(ROW_COUNT + 1);
    for (const r of rowIndexes) {
      expect(sheetRow(sheet, r + 2, names.length), `row ${r + 1}`).toEqual(columns.map((c) => xlsxCell(c, r)));
    }
    const big = sheet.getRow(2).getCell(names.indexOf('big') + 1).value;
    expect(big).toBe(BIG); // 16 digits: text, never a rounded double
    expect(sheet.getRow(2).getCell(names.indexOf('amount') + 1).value).toBe(DEC);
  });

  it('parquet: hyparquet reads the schema, the row count and every value', async () => {
    const res = await run('parquet');
    expectPaged(res, 'parquet');
    expect(res.bytes.subarray(0, 4).toString('latin1')).toBe('PAR1');
    const back = await hyparquetRead(res.bytes);
    expect(back.names).toEqual(names);
    expect(back.numRows).toBe(BigInt(ROW_COUNT));
    expect(back.rows).toHaveLength(ROW_COUNT);
    for (const r of rowIndexes) {
      expect(back.rows[r], `row ${r + 1}`).toEqual(Object.fromEntries(columns.map((c) => [c.name, hyparquetCell(c, r)])));
    }
  });

  it('parquet: DuckDB read_parquet finds the types the spec gives and every value exactly, NULLs included', async () => {
    const res = await run('parquet');
    expectPaged(res, 'parquet');
    const back = await duckRead(env.dir, res.bytes, names);
    expect(Object.keys(back.types)).toEqual(names);
    for (const c of columns) {
      if (typeof c.parquet === 'string') expect(back.types[c.name], c.name).toBe(c.parquet);
      else expect(back.types[c.name], c.name).toMatch(c.parquet);
    }
    expect(back.count).toBe(ROW_COUNT);
    expect(back.rows).toEqual(rowIndexes.map((r) => columns.map((c) => (r < 2 ? (c.duck ?? c.values)[r] : null))));
    const at = (name: string) => back.rows[0][names.indexOf(name)];
    expect(at('big')).toBe(BIG);
    expect(at('amount')).toBe(DEC);
  });
});
