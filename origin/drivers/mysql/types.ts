import { Decimal, Instant, JsonValue, LocalTimestamp, SqlDate, SqlTime, type Value, type ValueKind } from '../../values.ts';
import { integerFromText, plainBytes } from '../json-values.ts';
import { dateText, instantMicrosFromText, localTimestampText, timeText } from '../temporal.ts';

/**
 * MySQL/MariaDB columns. mysql2 runs with `supportBigNumbers`,
 * `bigNumberStrings`, `dateStrings` and `jsonStrings`, so BIGINT, DECIMAL,
 * dates, times and JSON arrive as text and are converted here exactly; the
 * session's `time_zone` is UTC, so TIMESTAMP text is an instant.
 */

/** The column definition fields mysql2 reports (`fields` event). */
export interface MysqlField {
  name: string;
  columnType: number;
  characterSet: number;
  flags: number;
  columnLength?: number;
  extendedFormat?: string;
  extendedTypeName?: string;
}

export interface MysqlType {
  name: string;
  kind: ValueKind;
  /** Null when mysql2's own value is already the model's. */
  convert: ((value: unknown) => Value) | null;
}

const BINARY_CHARSET = 63;
const UNSIGNED_FLAG = 32;

/** Protocol type codes (mysql2 `Types`). */
const T = {
  DECIMAL: 0, TINY: 1, SHORT: 2, LONG: 3, FLOAT: 4, DOUBLE: 5, NULL: 6, TIMESTAMP: 7, LONGLONG: 8, INT24: 9,
  DATE: 10, TIME: 11, DATETIME: 12, YEAR: 13, NEWDATE: 14, VARCHAR: 15, BIT: 16, VECTOR: 242, JSON: 245,
  NEWDECIMAL: 246, ENUM: 247, SET: 248, TINY_BLOB: 249, MEDIUM_BLOB: 250, LONG_BLOB: 251, BLOB: 252,
  VAR_STRING: 253, STRING: 254, GEOMETRY: 255,
} as const;

const decimal = (v: unknown) => new Decimal(v as string);
const integer = (v: unknown) => integerFromText(v as string);
const json = (v: unknown) => new JsonValue(JSON.parse(v as string));
const date = (v: unknown) => {
  const d = dateText(v as string);
  return d === null ? (v as string) : new SqlDate(d);
};
const datetime = (v: unknown) => {
  const local = localTimestampText(v as string);
  return local === null ? (v as string) : new LocalTimestamp(local);
};
const timestamp = (v: unknown) => {
  const micros = instantMicrosFromText(v as string);
  return micros === null ? (v as string) : new Instant(micros);
};
const time = (v: unknown) => {
  const text = timeText(v as string);
  return /^\d{2}:\d{2}:\d{2}/.test(text) && Number(text.slice(0, 2)) < 24 ? new SqlTime(text) : text;
};
/** BIT(n) arrives as big-endian bytes. */
const bits = (v: unknown) => {
  let n = 0n;
  for (const byte of v as Uint8Array) n = (n << 8n) | BigInt(byte);
  return n <= 9007199254740991n ? Number(n) : n;
};
const binary = (v: unknown) => plainBytes(v as Buffer);
const structured = (v: unknown) => new JsonValue(v);

export function mysqlType(field: MysqlField): MysqlType {
  const unsigned = (field.flags & UNSIGNED_FLAG) !== 0 ? ' UNSIGNED' : '';
  const isBinary = field.characterSet === BINARY_CHARSET;
  if (field.extendedFormat === 'json') return { name: 'JSON', kind: 'json', convert: json };
  switch (field.columnType) {
    case T.TINY:
      return { name: `TINYINT${unsigned}`, kind: 'integer', convert: null };
    case T.SHORT:
      return { name: `SMALLINT${unsigned}`, kind: 'integer', convert: null };
    case T.INT24:
      return { name: `MEDIUMINT${unsigned}`, kind: 'integer', convert: null };
    case T.LONG:
      return { name: `INT${unsigned}`, kind: 'integer', convert: null };
    case T.YEAR:
      return { name: 'YEAR', kind: 'integer', convert: null };
    case T.LONGLONG:
      return { name: `BIGINT${unsigned}`, kind: 'integer', convert: integer };
    case T.FLOAT:
      return { name: 'FLOAT', kind: 'float', convert: null };
    case T.DOUBLE:
      return { name: 'DOUBLE', kind: 'float', convert: null };
    case T.DECIMAL:
    case T.NEWDECIMAL:
      return { name: 'DECIMAL', kind: 'decimal', convert: decimal };
    case T.DATE:
    case T.NEWDATE:
      return { name: 'DATE', kind: 'date', convert: date };
    case T.DATETIME:
      return { name: 'DATETIME', kind: 'timestamp', convert: datetime };
    case T.TIMESTAMP:
      return { name: 'TIMESTAMP', kind: 'timestamptz', convert: timestamp };
    case T.TIME:
      return { name: 'TIME', kind: 'time', convert: time };
    case T.JSON:
      return { name: 'JSON', kind: 'json', convert: json };
    case T.BIT:
      return { name: 'BIT', kind: 'integer', convert: bits };
    case T.NULL:
      return { name: 'NULL', kind: 'unknown', convert: null };
    case T.GEOMETRY:
      return { name: 'GEOMETRY', kind: 'json', convert: structured };
    case T.VECTOR:
      return { name: 'VECTOR', kind: 'json', convert: structured };
    case T.ENUM:
      return { name: 'ENUM', kind: 'text', convert: null };
    case T.SET:
      return { name: 'SET', kind: 'text', convert: null };
    case T.TINY_BLOB:
    case T.MEDIUM_BLOB:
    case T.LONG_BLOB:
    case T.BLOB:
      return isBinary ? { name: 'BLOB', kind: 'binary', convert: binary } : { name: 'TEXT', kind: 'text', convert: null };
    case T.STRING:
      return isBinary ? { name: 'BINARY', kind: 'binary', convert: binary } : { name: 'CHAR', kind: 'text', convert: null };
    case T.VARCHAR:
    case T.VAR_STRING:
      return isBinary
        ? { name: 'VARBINARY', kind: 'binary', convert: binary }
        : { name: field.extendedTypeName?.toUpperCase() || 'VARCHAR', kind: 'text', convert: null };
    default:
      return isBinary
        ? { name: `TYPE ${field.columnType}`, kind: 'binary', convert: binary }
        : { name: `TYPE ${field.columnType}`, kind: 'unknown', convert: null };
  }
}
