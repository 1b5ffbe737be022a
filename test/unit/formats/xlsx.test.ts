import ExcelJS from 'exceljs';
import { describe, expect, it } from 'vitest';
import type { ColumnMeta } from '../../../origin/drivers/types.ts';
import { formatInstantMicros } from '../../../origin/time.ts';
import { Decimal, LocalTimestamp, SqlDate, type Value } from '../../../origin/values.ts';
import { xlsxSerializer } from '../../../origin/formats/xlsx.ts';
import { DEC, DOC_JSON, INSTANT_MICROS, NAMES, TRICKY, UNICODE, batches, collect, render } from './fixture.ts';

async function load(bytes: Buffer) {
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.load(bytes as unknown as ArrayBuffer);
  return workbook;
}

const values = (sheet: ExcelJS.Worksheet, row: number) => (sheet.getRow(row).values as unknown[]).slice(1);

describe('xlsx', () => {
  it('reads back with exceljs: header, numbers, exact big numbers as text, dates, booleans, empty NULLs', async () => {
    const workbook = await load(await render('xlsx'));
    const sheet = workbook.getWorksheet(1)!;
    expect(sheet.getRow(1).font?.bold).toBe(true);
    expect(values(sheet, 1)).toEqual(NAMES);
    expect(values(sheet, 2)).toEqual([
      1, '9007199254740993', DEC, 1.5, true, new Date(Date.UTC(2024, 1, 29)), '13:45:30.123456', '2024-03-10T02:30:00.123456',
      formatInstantMicros(INSTANT_MICROS), UNICODE, DOC_JSON, 'AAEC+v8=', 'dup', 42, 1.5, 'x',
    ]);
    expect(sheet.getRow(2).getCell(6).numFmt).toBe('yyyy-mm-dd');
    // XML folds CR to LF inside cell text: the one change xlsx makes to text.
    const tricky = TRICKY.replace(/\r\n?/g, '\n');
    expect(values(sheet, 3).slice(0, 12)).toEqual([2, '-9223372036854775808', -0.5, -0.25, false, new Date(Date.UTC(1969, 11, 31)),
      '00:00:00', '1900-01-01T00:00:00', formatInstantMicros(-1n), tricky, '[]', undefined]);
    expect(values(sheet, 4)).toEqual([3]);
    expect(values(sheet, 5).slice(0, 10)).toEqual([4, 0, 0, 'NaN', false, '0001-01-01', '23:59:59.999999',
      '9999-12-31T23:59:59.999999', formatInstantMicros(0n), 'true']);
  });

  it('keeps 15 significant digits as numbers, longer ones as text; dates exact to the millisecond', async () => {
    const columns: ColumnMeta[] = ['a', 'b', 'c', 'd', 'e'].map((name) => ({ name, dbType: '?', kind: 'unknown' }));
    const rows: Value[][] = [
      [new Decimal('123456789012345'), new Decimal('1234567890123456'), 999999999999999n, 1000000000000000n,
        new LocalTimestamp('2024-03-10T02:30:00.125')],
      [new Decimal('0.000000000000000000001'), new Decimal('1.50000000000000000000'), new Decimal('NaN'),
        new SqlDate('2024-01-01'), new LocalTimestamp('2024-03-10 02:30:00')],
    ];
    const sheet = (await load(await render('xlsx', columns, rows))).getWorksheet(1)!;
    expect(values(sheet, 2)).toEqual([123456789012345, '1234567890123456', 999999999999999, '1000000000000000',
      new Date(Date.UTC(2024, 2, 10, 2, 30, 0, 125))]);
    expect(sheet.getRow(2).getCell(5).numFmt).toBe('yyyy-mm-dd hh:mm:ss.000');
    expect(values(sheet, 3)).toEqual([1e-21, 1.5, 'NaN', new Date(Date.UTC(2024, 0, 1)), new Date(Date.UTC(2024, 2, 10, 2, 30))]);
    expect(sheet.getRow(3).getCell(5).numFmt).toBe('yyyy-mm-dd hh:mm:ss');
  });

  it('produces a valid workbook for no rows and stops cleanly when cancelled', async () => {
    const sheet = (await load(await render('xlsx', [{ name: 'x', dbType: 'int', kind: 'integer' }], []))).getWorksheet(1)!;
    expect(sheet.rowCount).toBe(1);

    const { serializerFor } = await import('../../../origin/formats/index.ts');
    const xlsx = await serializerFor('xlsx');
    let pulled = 0;
    async function* endless(): AsyncIterable<Value[][]> {
      for (;;) {
        pulled++;
        yield Array.from({ length: 1000 }, (_, i) => [i, `text ${i}`]);
      }
    }
    const columns: ColumnMeta[] = [{ name: 'a', dbType: 'int', kind: 'integer' }, { name: 'b', dbType: 'text', kind: 'text' }];
    const iterator = xlsx.serialize(columns, endless())[Symbol.asyncIterator]();
    await iterator.next();
    await iterator.return?.();
    const atCancel = pulled;
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(pulled - atCancel).toBeLessThanOrEqual(1);
  });

  it('continues on new sheets, header repeated, past the rows a sheet holds', async () => {
    const columns: ColumnMeta[] = [{ name: 'n', dbType: 'int', kind: 'integer' }];
    const rows = Array.from({ length: 7 }, (_, i) => [i] as Value[]);
    const workbook = await load(await collect(xlsxSerializer({ maxRowsPerSheet: 3 }).serialize(columns, batches(rows, 2))));
    const sheets = workbook.worksheets.map((sheet) => [sheet.name, ...sheet.getSheetValues().slice(1).map((r) => (r as unknown[])[1])]);
    expect(sheets).toEqual([['Sheet1', 'n', 0, 1, 2], ['Sheet2', 'n', 3, 4, 5], ['Sheet3', 'n', 6]]);
  });

  it('fails the stream when the source fails', async () => {
    async function* failing(): AsyncIterable<Value[][]> {
      yield [[1]];
      throw new Error('connection lost');
    }
    const columns: ColumnMeta[] = [{ name: 'n', dbType: 'int', kind: 'integer' }];
    await expect(collect(xlsxSerializer().serialize(columns, failing()))).rejects.toThrow('connection lost');
  });
});
