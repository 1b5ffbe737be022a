/** One batch covering every value class, and helpers shared by the format tests. */
import type { ColumnMeta } from '../../../origin/drivers/types.ts';
import { serializerFor, type Format } from '../../../origin/formats/index.ts';
import { Decimal, Instant, JsonValue, LocalTimestamp, SqlDate, SqlTime, type Value, type ValueKind } from '../../../origin/values.ts';

const col = (name: string, kind: ValueKind, dbType: string = kind): ColumnMeta => ({ name, kind, dbType });

export const COLUMNS: ColumnMeta[] = [
  col('id', 'integer', 'int8'),
  col('big', 'integer', 'int8'),
  col('dec', 'decimal', 'numeric'),
  col('flt', 'float', 'float8'),
  col('flag', 'boolean'),
  col('day', 'date'),
  col('clock', 'time'),
  col('local', 'timestamp'),
  col('at', 'timestamptz'),
  col('txt', 'text'),
  col('doc', 'json'),
  col('bin', 'binary', 'bytea'),
  col('id', 'text'),
  col('1 bad<name>&', 'unknown'),
  col('u_dec', 'unknown'),
  col('u_mix', 'unknown'),
];

/** Column names after uniqueColumnNames. */
export const NAMES = ['id', 'big', 'dec', 'flt', 'flag', 'day', 'clock', 'local', 'at', 'txt', 'doc', 'bin', 'id_2', '1 bad<name>&', 'u_dec', 'u_mix'];

export const BIG = 9007199254740993n;
export const DEC = '12345678901234567890.12345';
export const INSTANT_MICROS = 1710037800123456n; // 2024-03-10T02:30:00.123456Z
export const TRICKY = 'say "hi", ok;\ttab\nnew\r\nline\\ back\rcr';
export const UNICODE = '日本語 ✓';
export const DOC = { a: [1, 2, { b: null }], big: 12345678901234567890n, s: 'x"y', u: '✓' };
export const BYTES = new Uint8Array([0, 1, 2, 250, 255]);

export const ROWS: Value[][] = [
  [1, BIG, new Decimal(DEC), 1.5, true, new SqlDate('2024-02-29'), new SqlTime('13:45:30.123456'),
    new LocalTimestamp('2024-03-10T02:30:00.123456'), new Instant(INSTANT_MICROS), UNICODE, new JsonValue(DOC), BYTES,
    'dup', 42, new Decimal('1.5'), 'x'],
  [2, -9223372036854775808n, new Decimal('-0.5'), -0.25, false, new SqlDate('1969-12-31'), new SqlTime('00:00:00'),
    new LocalTimestamp('1900-01-01T00:00:00'), new Instant(-1n), TRICKY, new JsonValue([]), new Uint8Array(),
    '', -7, 3, 5],
  [3, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null],
  [4, 0, new Decimal('0'), Number.NaN, false, new SqlDate('0001-01-01'), new SqlTime('23:59:59.999999'),
    new LocalTimestamp('9999-12-31T23:59:59.999999'), new Instant(0n), 'true', new JsonValue('s'), new Uint8Array([61]),
    '007', 0, new Decimal('-12.345'), true],
];

export async function* batches(rows: Value[][] = ROWS, size = 2): AsyncIterable<Value[][]> {
  for (let i = 0; i < rows.length; i += size) yield rows.slice(i, i + size);
}

export async function collect(chunks: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const chunk of chunks) parts.push(Buffer.from(chunk));
  return Buffer.concat(parts);
}

export async function render(format: Format, columns = COLUMNS, rows: Value[][] = ROWS): Promise<Buffer> {
  const serializer = await serializerFor(format);
  return collect(serializer.serialize(columns, batches(rows)));
}

export const DOC_JSON = '{"a":[1,2,{"b":null}],"big":12345678901234567890,"s":"x\\"y","u":"✓"}';

/** Each cell's expected text (csv, tsv, xml), null for NULL. Instants through the server zone. */
export function expectedText(format: (micros: bigint) => string): (string | null)[][] {
  return [
    ['1', '9007199254740993', DEC, '1.5', 'true', '2024-02-29', '13:45:30.123456', '2024-03-10T02:30:00.123456',
      format(INSTANT_MICROS), UNICODE, DOC_JSON, 'AAEC+v8=', 'dup', '42', '1.5', 'x'],
    ['2', '-9223372036854775808', '-0.5', '-0.25', 'false', '1969-12-31', '00:00:00', '1900-01-01T00:00:00',
      format(-1n), TRICKY, '[]', '', '', '-7', '3', '5'],
    ['3', ...new Array<null>(15).fill(null)],
    ['4', '0', '0', 'NaN', 'false', '0001-01-01', '23:59:59.999999', '9999-12-31T23:59:59.999999',
      format(0n), 'true', '"s"', 'PQ==', '007', '0', '-12.345', 'true'],
  ];
}
