import { expect } from 'vitest';
import type { Dialect } from '../../origin/drivers/types.ts';
import { tempDir } from '../api/connections-fixtures.ts';
import type { Origin } from '../harness/origin.ts';
import { type TestDb, DRIVERS, addConnection, createTestDb, expectRequestId, startQueryOrigin } from '../query/fixture.ts';

/**
 * The table every format test reads, seeded on each database through its own
 * client, and what each format must give back for it: one row of values that
 * formats get wrong (2^53 + 1, a 20-digit decimal, a zoned instant, text with
 * quotes, commas, tab, LF, CR, `<&>` and a backslash, binary), one of other
 * values (negatives, the empty string, empty binary, a winter instant) and one
 * all NULL. The query adds a duplicate `id` and a column named `1 bad<name>&`.
 */

export const BIG = '9007199254740993'; // 2^53 + 1: a JS number would print ...992
export const DEC = '12345678901234567890.12345'; // 20 integer digits, 5 decimals
export const UNICODE = '日本語 ✓ é';
export const TRICKY = `a "b" 'c', x\ty\nz\rw <&> \\ end`;
export const BAD_NAME = '1 bad<name>&';

/**
 * How a cell reads back. `int`, `dec` and `float` are JSON/YAML numbers, `bool`
 * a boolean, `text` a string (dates, times and base64 binary included).
 */
export type Kind = 'int' | 'dec' | 'float' | 'bool' | 'text';

export interface Column {
  name: string;
  kind: Kind;
  /** DuckDB's type of the parquet column (a pattern where the precision is the server's choice). */
  parquet: string | RegExp;
  /** The cell's text (csv, tsv, xml, JSON string) in rows 1 and 2; row 3 is NULL. */
  values: [string, string];
  /** `col::VARCHAR` as DuckDB reads it from the parquet file, where it differs from `values`. */
  duck?: [string, string];
}

/** The columns of `SELECT v.*, v.id AS id, v.u AS "1 bad<name>&" FROM vals v` on `driver`. */
export function columnsOf(driver: Dialect): Column[] {
  const sqlite = driver === 'sqlite';
  const columns: (Column | false)[] = [
    { name: 'id', kind: 'int', parquet: 'BIGINT', values: ['1', '2'] },
    { name: 'big', kind: 'int', parquet: 'BIGINT', values: [BIG, `-${BIG}`] },
    // SQLite has no exact decimal type: the digits are stored (and come back) as text.
    sqlite
      ? { name: 'amount', kind: 'text', parquet: 'VARCHAR', values: [DEC, '-0.00001'] }
      : { name: 'amount', kind: 'dec', parquet: /^DECIMAL\((2[5-9]|3[0-8]),5\)$/, values: [DEC, '-0.00001'] },
    { name: 'dbl', kind: 'float', parquet: 'DOUBLE', values: ['1234.5678', '-0.5'] },
    // Only PostgreSQL and DuckDB have a boolean type (MySQL's BOOLEAN is TINYINT, SQLite has none).
    (driver === 'postgres' || driver === 'duckdb') && { name: 'flag', kind: 'bool', parquet: 'BOOLEAN', values: ['true', 'false'] },
    // SQLite has no date or time types: the text is stored and passed through as is.
    { name: 'd', kind: 'text', parquet: sqlite ? 'VARCHAR' : 'DATE', values: ['2024-02-29', '1969-12-31'] },
    sqlite
      ? { name: 'ts', kind: 'text', parquet: 'VARCHAR', values: ['2024-03-10 02:30:00.123456', '2000-01-01 00:00:00'] }
      : {
          name: 'ts', kind: 'text', parquet: 'TIMESTAMP',
          values: ['2024-03-10T02:30:00.123456', '2000-01-01T00:00:00'],
          duck: ['2024-03-10 02:30:00.123456', '2000-01-01 00:00:00'],
        },
    // Instants in the server zone (Europe/Paris) with that instant's offset; DuckDB reads them back in UTC.
    !sqlite && {
      name: 'tstz', kind: 'text', parquet: 'TIMESTAMP WITH TIME ZONE',
      values: ['2024-07-01T14:00:00.5+02:00', '2024-01-15T13:00:00+01:00'],
      duck: ['2024-07-01 12:00:00.5+00', '2024-01-15 12:00:00+00'],
    },
    { name: 'tm', kind: 'text', parquet: sqlite ? 'VARCHAR' : 'TIME', values: ['13:45:30.123456', '00:00:00'] },
    { name: 'u', kind: 'text', parquet: 'VARCHAR', values: [UNICODE, ''] },
    { name: 'q', kind: 'text', parquet: 'VARCHAR', values: [TRICKY, 'plain'] },
    // Binary is base64 text in every format (0x00 0x01 0x7f 0x80 0xff, and empty).
    { name: 'bin', kind: 'text', parquet: 'VARCHAR', values: ['AAF/gP8=', ''] },
  ];
  const own = columns.filter((c): c is Column => c !== false);
  const byName = (name: string) => own.find((c) => c.name === name)!;
  return [...own, { ...byName('id'), name: 'id_2' }, { ...byName('u'), name: BAD_NAME }];
}

export const ROW_COUNT = 3;

/** Cell text of row `r` (0-based), null for NULL. */
export const cellText = (column: Column, r: number): string | null => (r < 2 ? column.values[r] : null);

/** The cell as JSON text: numbers and booleans as literals (digits untouched), text quoted. */
export function jsonLiteral(column: Column, r: number): string {
  const text = cellText(column, r);
  if (text === null) return 'null';
  return column.kind === 'text' ? JSON.stringify(text) : text;
}

/** A row as the json and ndjson formats write it: `{"name":literal,...}`, keys in column order. */
export const jsonRowText = (columns: Column[], r: number) =>
  `{${columns.map((c) => `${JSON.stringify(c.name)}:${jsonLiteral(c, r)}`).join(',')}}`;

/** What JSON.parse makes of the row (big numbers rounded, as JSON.parse does). */
export const jsonRowValue = (columns: Column[], r: number) =>
  Object.fromEntries(columns.map((c) => [c.name, JSON.parse(jsonLiteral(c, r))]));

/** What the `yaml` package (intAsBigInt) makes of the row: integers exact, decimals as doubles. */
export function yamlRowValue(columns: Column[], r: number): Record<string, unknown> {
  return Object.fromEntries(
    columns.map((c) => {
      const text = cellText(c, r);
      if (text === null) return [c.name, null];
      const value = { int: () => BigInt(text), dec: () => Number(text), float: () => Number(text), bool: () => text === 'true', text: () => text }[c.kind]();
      return [c.name, value];
    }),
  );
}

/** A string literal in the dialect: quotes doubled; MySQL also escapes backslashes. */
export function literal(driver: Dialect, text: string): string {
  const doubled = text.replace(/'/g, "''");
  return `'${driver === 'mysql' ? doubled.replace(/\\/g, '\\\\') : doubled}'`;
}

/** The statements that create and fill `vals` on `driver`. */
export function seedStatements(driver: Dialect): string[] {
  const t = (v: string) => literal(driver, v);
  const nulls = (n: number) => `(${new Array(n).fill('NULL').join(', ')})`;
  switch (driver) {
    case 'clickhouse':
    case 'jdbc':
      throw new Error('ClickHouse and JDBC are tested by test/drivers/conformance.test.ts, test/clickhouse/ and test/jdbc/, not here');
    case 'postgres':
      return [
        `CREATE TABLE vals (id int, big bigint, amount numeric(25,5), dbl double precision, flag boolean, d date,
           ts timestamp(6), tstz timestamptz, tm time(6), u text, q text, bin bytea)`,
        `INSERT INTO vals VALUES
           (1, ${BIG}, ${DEC}, 1234.5678, true, '2024-02-29', '2024-03-10 02:30:00.123456', '2024-07-01 12:00:00.5+00',
            '13:45:30.123456', ${t(UNICODE)}, ${t(TRICKY)}, '\\x00017f80ff'),
           (2, -${BIG}, -0.00001, -0.5, false, '1969-12-31', '2000-01-01 00:00:00', '2024-01-15 12:00:00+00',
            '00:00:00', '', 'plain', '\\x'),
           ${nulls(12)}`,
      ];
    case 'mysql':
      // The seeding session runs in UTC (test/query/fixture.ts), so TIMESTAMP text is a UTC instant.
      return [
        `CREATE TABLE vals (id int, big bigint, amount decimal(25,5), dbl double, d date, ts datetime(6),
           tstz timestamp(6) NULL, tm time(6), u text, q text, bin varbinary(16))`,
        `INSERT INTO vals VALUES
           (1, ${BIG}, ${DEC}, 1234.5678, '2024-02-29', '2024-03-10 02:30:00.123456', '2024-07-01 12:00:00.5',
            '13:45:30.123456', ${t(UNICODE)}, ${t(TRICKY)}, X'00017F80FF'),
           (2, -${BIG}, -0.00001, -0.5, '1969-12-31', '2000-01-01 00:00:00', '2024-01-15 12:00:00',
            '00:00:00', '', 'plain', X''),
           ${nulls(11)}`,
      ];
    case 'duckdb':
      return [
        `CREATE TABLE vals (id INTEGER, big BIGINT, amount DECIMAL(25,5), dbl DOUBLE, flag BOOLEAN, d DATE,
           ts TIMESTAMP, tstz TIMESTAMPTZ, tm TIME, u VARCHAR, q VARCHAR, bin BLOB)`,
        `INSERT INTO vals VALUES
           (1, ${BIG}, ${DEC}, 1234.5678, true, '2024-02-29', '2024-03-10 02:30:00.123456', '2024-07-01 12:00:00.5+00',
            '13:45:30.123456', ${t(UNICODE)}, ${t(TRICKY)}, '\\x00\\x01\\x7F\\x80\\xFF'::BLOB),
           (2, -${BIG}, -0.00001, -0.5, false, '1969-12-31', '2000-01-01 00:00:00', '2024-01-15 12:00:00+00',
            '00:00:00', '', 'plain', ''::BLOB),
           ${nulls(12)}`,
      ];
    case 'sqlite':
      // No exact decimal, date, time or zoned type: those are stored as text (and there is no tstz column).
      return [
        'CREATE TABLE vals (id INTEGER, big INTEGER, amount TEXT, dbl REAL, d TEXT, ts TEXT, tm TEXT, u TEXT, q TEXT, bin BLOB)',
        `INSERT INTO vals VALUES
           (1, ${BIG}, '${DEC}', 1234.5678, '2024-02-29', '2024-03-10 02:30:00.123456', '13:45:30.123456',
            ${t(UNICODE)}, ${t(TRICKY)}, X'00017F80FF'),
           (2, -${BIG}, '-0.00001', -0.5, '1969-12-31', '2000-01-01 00:00:00', '00:00:00', '', 'plain', X''),
           ${nulls(10)}`,
      ];
  }
}

const quoteName = (driver: Dialect, name: string) => (driver === 'mysql' ? `\`${name}\`` : `"${name}"`);

/** Every column, a duplicate `id` and a badly named one; the NULL row last on every database. */
export const valuesSql = (driver: Dialect) =>
  `SELECT v.*, v.id AS id, v.u AS ${quoteName(driver, BAD_NAME)} FROM vals v ORDER BY CASE WHEN v.id IS NULL THEN 1 ELSE 0 END, v.id`;

export const EMPTY_SQL = 'SELECT id, u FROM vals WHERE 1 = 0';
export const DUPLICATES_SQL = 'select 1 as id, 2 as id';

/** An origin (TZ=Europe/Paris) with a connection to a seeded `vals` on every database. */
export interface FormatEnv {
  origin: Origin;
  conn: Record<Dialect, string>;
  /** The databases behind the connections (their own clients). */
  dbs: Record<Dialect, TestDb>;
  /** A folder for files the test writes (parquet read back by DuckDB). */
  dir: string;
  close(): Promise<void>;
}

export async function startFormatEnv(env: Record<string, string> = {}): Promise<FormatEnv> {
  const folder = await tempDir();
  const dbs: TestDb[] = [];
  await Promise.all(
    DRIVERS.map(async (driver) => {
      const db = await createTestDb(driver, folder.dir);
      dbs.push(db);
      await db.exec(...seedStatements(driver));
    }),
  );
  const origin = await startQueryOrigin(env);
  const conn = {} as Record<Dialect, string>;
  for (const db of dbs) conn[db.driver] = await addConnection(origin, db);
  return {
    origin,
    conn,
    dbs: Object.fromEntries(dbs.map((db) => [db.driver, db])) as Record<Dialect, TestDb>,
    dir: folder.dir,
    async close() {
      await origin.stop();
      await Promise.all(dbs.map((db) => db.drop()));
      await folder.remove();
    },
  };
}

export interface RawResponse {
  status: number;
  headers: Headers;
  bytes: Buffer;
  /** The body as UTF-8 (meaningless for xlsx and parquet). */
  text: string;
}

/** `POST /execute_sql` answering raw bytes (the query fixture's helper reads text only). */
export async function post(
  origin: Origin,
  body: Record<string, unknown>,
  query: Record<string, string | number | boolean> = {},
): Promise<RawResponse> {
  const search = new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)])).toString();
  const res = await origin.fetch(`/execute_sql${search ? `?${search}` : ''}`, { method: 'POST', json: body });
  const bytes = Buffer.from(await res.arrayBuffer());
  expectRequestId(res.headers);
  return { status: res.status, headers: res.headers, bytes, text: bytes.toString('utf8') };
}

export const CONTENT_TYPES: Record<string, RegExp> = {
  json: /^application\/json\b/,
  ndjson: /^application\/x-ndjson\b/,
  csv: /^text\/csv; charset=utf-8$/,
  tsv: /^text\/tab-separated-values; charset=utf-8$/,
  xml: /^application\/xml\b/,
  yaml: /^application\/yaml\b/,
  xlsx: /^application\/vnd\.openxmlformats-officedocument\.spreadsheetml\.sheet$/,
  parquet: /^application\/vnd\.apache\.parquet$/,
};

/** 200 with the format's content type and the paging headers (and a download name for file formats). */
export function expectPaged(res: RawResponse, format: string, paging = { page: 1, pageSize: 10, hasMore: false }): void {
  expect(res.status, res.text.slice(0, 500)).toBe(200);
  expect(res.headers.get('content-type')).toMatch(CONTENT_TYPES[format]);
  expect(res.headers.get('x-page')).toBe(String(paging.page));
  expect(res.headers.get('x-page-size')).toBe(String(paging.pageSize));
  expect(res.headers.get('x-has-more')).toBe(String(paging.hasMore));
  if (format === 'xlsx' || format === 'parquet') {
    expect(res.headers.get('content-disposition')).toMatch(new RegExp(`^attachment; filename="[^"/\\\\]+\\.${format}"$`));
  }
}

/**
 * The xlsx cell expected for a text: numbers of at most 15 significant digits
 * as numbers, longer ones as text (exactness over type); dates and zone-less
 * timestamps exact to the millisecond as (UTC) dates; everything else text
 * (the empty string reads back as an empty cell).
 */
export function xlsxCell(column: Column, r: number): unknown {
  const text = cellText(column, r);
  if (text === null) return null;
  if (column.kind === 'bool') return text === 'true';
  if (column.kind !== 'text') {
    const significant = text.replace(/^-/, '').replace('.', '').replace(/^0+/, '').replace(/0+$/, '').length;
    return significant <= 15 ? Number(text) : text;
  }
  // An empty text cell reads back as an empty cell, like NULL (as in csv readers that do not care).
  if (text === '') return null;
  if (column.parquet === 'DATE') return new Date(`${text}T00:00:00Z`);
  if (column.parquet === 'TIMESTAMP' && !/\.\d{4,}/.test(text)) return new Date(`${text}Z`);
  // XML (inside xlsx) folds CR to LF in cell text.
  return text.replace(/\r\n?/g, '\n');
}

