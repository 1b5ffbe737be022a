import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import { parquetMetadata, parquetReadObjects } from 'hyparquet';
import { expect } from 'vitest';
import YAML from 'yaml';
import { duckQuery, duckTypes } from '../unit/formats/duck.ts';
import { parseCsv, parseXml, unescapeTsv } from '../unit/formats/parsers.ts';
import type { RawResponse } from './fixture.ts';

/** Reading the format tests' bodies back: exceljs, hyparquet, DuckDB's read_parquet, and any format generically. */

/** The first worksheet of an xlsx body, as exceljs reads it. */
export async function loadSheet(bytes: Buffer): Promise<ExcelJS.Worksheet> {
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.load(bytes as unknown as ArrayBuffer);
  expect(workbook.worksheets).toHaveLength(1);
  return workbook.worksheets[0];
}

/** Cell values of a sheet row (1-based), one per column, null for an empty cell. */
export function sheetRow(sheet: ExcelJS.Worksheet, row: number, width: number): unknown[] {
  const r = sheet.getRow(row);
  return Array.from({ length: width }, (_, i) => r.getCell(i + 1).value ?? null);
}

const arrayBufferOf = (b: Buffer) => b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer;

/** Parquet read back with hyparquet: the schema's column names and the rows as objects (raw physical values). */
export async function hyparquetRead(bytes: Buffer): Promise<{ names: string[]; numRows: bigint; rows: Record<string, unknown>[] }> {
  const file = arrayBufferOf(bytes);
  const metadata = parquetMetadata(file);
  const rows = await parquetReadObjects({
    file,
    parsers: {
      timestampFromMicroseconds: (v: bigint) => v, timestampFromMilliseconds: (v: bigint) => v,
      timestampFromNanoseconds: (v: bigint) => v, dateFromDays: (d: number) => d,
      stringFromBytes: (b: Uint8Array) => new TextDecoder().decode(b), jsonFromBytes: (b: Uint8Array) => b,
      geometryFromBytes: (b: Uint8Array) => b, geographyFromBytes: (b: Uint8Array) => b, uuidFromBytes: (b: Uint8Array) => b,
    },
  });
  return { names: metadata.schema.slice(1).map((e) => e.name), numRows: metadata.num_rows, rows };
}

let fileCount = 0;

/** Writes parquet bytes to a file under `dir` and reads it with DuckDB: types, row count, rows (every column as VARCHAR). */
export async function duckRead(dir: string, bytes: Buffer, names: string[]) {
  const path = join(dir, `read-${++fileCount}.parquet`);
  await writeFile(path, bytes);
  const types = await duckTypes(path);
  const count = (await duckQuery(`SELECT count(*)::INTEGER FROM read_parquet('${path}')`)).rows[0][0];
  const select = names.map((n) => `"${n.replace(/"/g, '""')}"::VARCHAR`).join(', ');
  const { rows } = names.length > 0 ? await duckQuery(`SELECT ${select} FROM read_parquet('${path}')`) : { rows: [] };
  return { path, types, count, rows };
}

export const FORMATS = ['json', 'ndjson', 'csv', 'tsv', 'xml', 'yaml', 'xlsx', 'parquet'] as const;
export type Format = (typeof FORMATS)[number];

export interface ReadBack {
  names: string[];
  /** Cells as text (numbers, booleans and dates through String()), null for NULL. */
  rows: (string | null)[][];
}

const asText = (v: unknown): string | null => (v === null || v === undefined ? null : v instanceof Date ? v.toISOString() : String(v));

/**
 * Any format's body read back generically (for checks that hold in every
 * format: names, row count, a column's values). The json empty-result message
 * reads as no rows and no names.
 */
export async function readBack(format: Format, res: RawResponse): Promise<ReadBack> {
  switch (format) {
    case 'json':
    case 'ndjson': {
      const objects: Record<string, unknown>[] =
        format === 'json' ? JSON.parse(res.text) : res.text.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l));
      if (!Array.isArray(objects)) {
        expect(objects).toEqual({ message: 'No results returned' });
        return { names: [], rows: [] };
      }
      return { names: Object.keys(objects[0] ?? {}), rows: objects.map((o) => Object.values(o).map(asText)) };
    }
    case 'csv': {
      const [header, ...records] = parseCsv(res.text);
      return {
        names: header.map((f) => f.value),
        rows: records.map((r) => r.map((f) => (f.value === '' && !f.quoted ? null : f.value))),
      };
    }
    case 'tsv': {
      const lines = res.text.split('\n');
      expect(lines.pop()).toBe('');
      const [header, ...records] = lines.map((l) => l.split('\t').map(unescapeTsv));
      return { names: header, rows: records.map((r) => r.map((v) => (v === '' ? null : v))) };
    }
    case 'xml': {
      const root = parseXml(res.text);
      expect(root.name).toBe('rows');
      const rows = root.children.map((row) => {
        expect(row.name).toBe('row');
        return row.children;
      });
      return {
        names: (rows[0] ?? []).map((cell) => cell.attrs.name ?? cell.name),
        rows: rows.map((cells) => cells.map((cell) => (cell.attrs['xsi:nil'] === 'true' ? null : cell.text))),
      };
    }
    case 'yaml': {
      const objects = YAML.parse(res.text, { intAsBigInt: true }) as Record<string, unknown>[];
      expect(Array.isArray(objects)).toBe(true);
      return { names: Object.keys(objects[0] ?? {}), rows: objects.map((o) => Object.values(o).map(asText)) };
    }
    case 'xlsx': {
      const sheet = await loadSheet(res.bytes);
      const width = sheet.getRow(1).cellCount;
      const names = sheetRow(sheet, 1, width).map(String);
      const rows: (string | null)[][] = [];
      for (let r = 2; r <= sheet.rowCount; r++) rows.push(sheetRow(sheet, r, width).map(asText));
      return { names, rows };
    }
    case 'parquet': {
      const { names, rows } = await hyparquetRead(res.bytes);
      return { names, rows: rows.map((o) => names.map((n) => asText(o[n]))) };
    }
  }
}
