import { formatInstantMicros } from '../../../origin/time.ts';
import { Decimal, Instant, LocalTimestamp, SqlDate, SqlTime, type Value, type ValueKind } from '../../../origin/values.ts';
import type { Spellings, ValueColumn } from '../fixtures/fixture.ts';

/**
 * The values table of the conformance suite: one column per kind of value,
 * a row of ordinary values, a row of edge values, a row of NULLs. Each cell
 * says how it is written in SQL, the value the driver must return
 * (origin/values.ts) and that value's JSON text.
 */

export const VALUES_TABLE = 'conformance_values';

/** Every character class a text value may hold: accents, quotes, a newline, the BMP's edge and astral characters. */
export const UNICODE_TEXT = 'héllo "wörld"\n\'quoted\' ✓ \uFFFD 𝄞😀';

interface Cell {
  sql: (spell: Spellings) => string;
  value: Value;
  json: string;
}

export interface ValueCase {
  column: ValueColumn;
  kind: ValueKind;
  /** Rows 1 and 2; row 3 is NULL in every column. */
  cells: [Cell, Cell];
}

const quoted = (text: string) => `'${text.replaceAll("'", "''")}'`;
const literal = (text: string) => () => quoted(text);

const INSTANT = 1704144845123456n; // 2024-01-02 03:04:05.123456+05:30
const LAST_32BIT_INSTANT = 2147483647999999n; // 2038-01-19 03:14:07.999999 UTC, MariaDB's last TIMESTAMP

export const VALUE_CASES: ValueCase[] = [
  {
    column: 'int64',
    kind: 'integer',
    cells: [
      { sql: () => '9007199254740993', value: 9007199254740993n, json: '9007199254740993' },
      { sql: () => '-9007199254740991', value: -9007199254740991, json: '-9007199254740991' },
    ],
  },
  {
    column: 'decimal',
    kind: 'decimal',
    cells: [
      {
        sql: literal('12345678901234567890.123456789012345678'),
        value: new Decimal('12345678901234567890.123456789012345678'),
        json: '12345678901234567890.123456789012345678',
      },
      { sql: literal('-0.000000000000000001'), value: new Decimal('-0.000000000000000001'), json: '-0.000000000000000001' },
    ],
  },
  {
    column: 'text',
    kind: 'text',
    cells: [
      { sql: literal(UNICODE_TEXT), value: UNICODE_TEXT, json: JSON.stringify(UNICODE_TEXT) },
      { sql: literal(''), value: '', json: '""' },
    ],
  },
  {
    column: 'date',
    kind: 'date',
    cells: [
      { sql: literal('2024-02-29'), value: new SqlDate('2024-02-29'), json: '"2024-02-29"' },
      { sql: literal('1970-01-01'), value: new SqlDate('1970-01-01'), json: '"1970-01-01"' },
    ],
  },
  {
    column: 'timestamp',
    kind: 'timestamp',
    cells: [
      {
        sql: literal('2024-01-02 03:04:05.123456'),
        value: new LocalTimestamp('2024-01-02T03:04:05.123456'),
        json: '"2024-01-02T03:04:05.123456"',
      },
      { sql: literal('1970-01-01 00:00:00'), value: new LocalTimestamp('1970-01-01T00:00:00'), json: '"1970-01-01T00:00:00"' },
    ],
  },
  {
    column: 'timestamptz',
    kind: 'timestamptz',
    cells: [
      {
        sql: (spell) => spell.instant('2024-01-02 03:04:05.123456', '+05:30'),
        value: new Instant(INSTANT),
        json: `"${formatInstantMicros(INSTANT)}"`,
      },
      {
        sql: (spell) => spell.instant('2038-01-19 03:14:07.999999', '+00:00'),
        value: new Instant(LAST_32BIT_INSTANT),
        json: `"${formatInstantMicros(LAST_32BIT_INSTANT)}"`,
      },
    ],
  },
  {
    column: 'time',
    kind: 'time',
    cells: [
      { sql: literal('23:59:59.999999'), value: new SqlTime('23:59:59.999999'), json: '"23:59:59.999999"' },
      { sql: literal('00:00:00'), value: new SqlTime('00:00:00'), json: '"00:00:00"' },
    ],
  },
  {
    column: 'binary',
    kind: 'binary',
    cells: [
      { sql: (spell) => spell.bytes('deadbeef00ff'), value: new Uint8Array([0xde, 0xad, 0xbe, 0xef, 0x00, 0xff]), json: '"3q2+7wD/"' },
      { sql: (spell) => spell.bytes(''), value: new Uint8Array([]), json: '""' },
    ],
  },
];

export const columnName = (column: ValueColumn) => `c_${column}`;

/** The table and its three rows, in the engine's spelling. */
export function valuesTableSql(spell: Spellings): string[] {
  const columns = VALUE_CASES.map((c) => `${columnName(c.column)} ${spell.columns[c.column].declare}`);
  const row = (id: number) => `(${id}, ${VALUE_CASES.map((c) => c.cells[id - 1].sql(spell)).join(', ')})`;
  return [
    `CREATE TABLE ${VALUES_TABLE} (id int, ${columns.join(', ')})`,
    `INSERT INTO ${VALUES_TABLE} VALUES ${row(1)}, ${row(2)}, (3, ${VALUE_CASES.map(() => 'NULL').join(', ')})`,
  ];
}
