/**
 * Parquet column types and value conversion. A column's type is decided once,
 * from its kind (ColumnMeta.kind) checked against the first row group's values,
 * or for `unknown` kinds from those values alone (see parquet.ts for the rule).
 */
import type { SchemaElement } from 'hyparquet';
import type { ColumnMeta } from '../drivers/types.ts';
import { Decimal, Instant, LocalTimestamp, SqlDate, SqlTime, type Value } from '../values.ts';
import { dateDays, integerDigits, parseDecimal, timeMicros, timestampMicros, unscaled, type ParsedDecimal } from './parquet-values.ts';
import { valueText } from './text.ts';

/** What `convert` returns for a value the column's type cannot hold exactly. */
export const MISFIT: unique symbol = Symbol('misfit');
type Physical = bigint | number | boolean | string;
type NonNull = Exclude<Value, null>;

export interface ColumnPlan {
  element: SchemaElement;
  /** Short type label for messages (`INT64`, `DECIMAL(38,5)`…). */
  label: string;
  convert(v: NonNull): Physical | typeof MISFIT;
}

const MAX_PRECISION = 38;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

const plan = (label: string, element: Omit<SchemaElement, 'name'>, convert: ColumnPlan['convert']) =>
  (name: string): ColumnPlan => ({ label, element: { name, repetition_type: 'OPTIONAL', ...element }, convert });

function decimalOf(v: NonNull): ParsedDecimal | null {
  if (v instanceof Decimal) return parseDecimal(v.text);
  if (typeof v === 'bigint') return parseDecimal(v.toString());
  if (typeof v === 'number' && Number.isFinite(v)) return parseDecimal(String(v));
  return null;
}

const int64 = plan('INT64', { type: 'INT64' }, (v) => {
  if (typeof v === 'number') {
    if (Number.isSafeInteger(v)) return BigInt(v);
    return Number.isInteger(v) && v >= -(2 ** 63) && v < 2 ** 63 ? BigInt(v) : MISFIT;
  }
  const b = typeof v === 'bigint' ? v : v instanceof Decimal ? decimalToInteger(v) : null;
  return b !== null && b >= INT64_MIN && b <= INT64_MAX ? b : MISFIT;
});

function decimalToInteger(v: Decimal): bigint | null {
  const d = parseDecimal(v.text);
  return d && unscaled(d, MAX_PRECISION, 0);
}

/** Bytes of a two's-complement integer holding any `precision`-digit value. */
function decimalBytes(precision: number): number {
  const max = 10n ** BigInt(precision) - 1n;
  let bytes = 1;
  while (max >= 1n << BigInt(8 * bytes - 1)) bytes++;
  return bytes;
}

function decimal(precision: number, scale: number) {
  return plan(`DECIMAL(${precision},${scale})`, {
    type: 'FIXED_LEN_BYTE_ARRAY',
    type_length: decimalBytes(precision),
    converted_type: 'DECIMAL',
    precision,
    scale,
    logical_type: { type: 'DECIMAL', precision, scale },
  }, (v) => {
    const d = decimalOf(v);
    return (d && unscaled(d, precision, scale)) ?? MISFIT;
  });
}

/** DECIMAL(38, s): s the largest scale among the values, when every value then fits 38 digits. */
function decimalFromValues(values: NonNull[]): ((name: string) => ColumnPlan) | null {
  if (values.length === 0) return null;
  let scale = 0;
  let digits = 0;
  for (const v of values) {
    const d = decimalOf(v);
    if (!d) return null;
    scale = Math.max(scale, d.scale);
    digits = Math.max(digits, integerDigits(d));
  }
  return digits + scale <= MAX_PRECISION ? decimal(MAX_PRECISION, scale) : null;
}

/** DECIMAL(p, s) as the database declared it (`numeric(12,2)`), when parquet readers can take it. */
function decimalFromDbType(dbType: string): ((name: string) => ColumnPlan) | null {
  const m = /\b(?:decimal|numeric|number|dec)\s*\(\s*(\d+)\s*(?:,\s*(\d+)\s*)?\)/i.exec(dbType);
  if (!m) return null;
  const precision = Number(m[1]);
  const scale = Number(m[2] ?? 0);
  return precision >= 1 && precision <= MAX_PRECISION && scale <= precision ? decimal(precision, scale) : null;
}

const double = plan('DOUBLE', { type: 'DOUBLE' }, (v) => {
  if (typeof v === 'number') return v;
  if (typeof v === 'bigint') return BigInt(Number(v)) === v ? Number(v) : MISFIT;
  return MISFIT;
});

const boolean = plan('BOOLEAN', { type: 'BOOLEAN' }, (v) => (typeof v === 'boolean' ? v : MISFIT));

const date = plan('DATE', { type: 'INT32', converted_type: 'DATE', logical_type: { type: 'DATE' } },
  (v) => (v instanceof SqlDate ? dateDays(v.text) ?? MISFIT : MISFIT));

const time = plan('TIME', { type: 'INT64', logical_type: { type: 'TIME', isAdjustedToUTC: false, unit: 'MICROS' } },
  (v) => (v instanceof SqlTime ? timeMicros(v.text) ?? MISFIT : MISFIT));

const timestamp = plan('TIMESTAMP', { type: 'INT64', logical_type: { type: 'TIMESTAMP', isAdjustedToUTC: false, unit: 'MICROS' } },
  (v) => (v instanceof LocalTimestamp ? timestampMicros(v.text) ?? MISFIT : MISFIT));

const timestamptz = plan('TIMESTAMP(UTC)', {
  type: 'INT64',
  converted_type: 'TIMESTAMP_MICROS',
  logical_type: { type: 'TIMESTAMP', isAdjustedToUTC: true, unit: 'MICROS' },
}, (v) => (v instanceof Instant ? v.epochMicros : MISFIT));

/** Text holds every value: this is the fallback that never loses one. */
const text = plan('UTF8', { type: 'BYTE_ARRAY', converted_type: 'UTF8', logical_type: { type: 'STRING' } }, valueText);

type Tag = 'int' | 'float' | 'decimal' | 'bool' | 'date' | 'time' | 'timestamp' | 'instant' | 'other';

function tagOf(v: NonNull): Tag {
  if (typeof v === 'number') return Number.isInteger(v) ? 'int' : 'float';
  if (typeof v === 'bigint') return 'int';
  if (typeof v === 'boolean') return 'bool';
  if (v instanceof Decimal) return 'decimal';
  if (v instanceof SqlDate) return 'date';
  if (v instanceof SqlTime) return 'time';
  if (v instanceof LocalTimestamp) return 'timestamp';
  if (v instanceof Instant) return 'instant';
  return 'other';
}

/** Candidate types for values of unknown kind, most specific first. */
function inferred(values: NonNull[]): ((name: string) => ColumnPlan | null)[] {
  const tags = new Set(values.map(tagOf));
  const only = (...allowed: Tag[]) => [...tags].every((t) => allowed.includes(t));
  if (tags.size === 0 || tags.has('other')) return [];
  if (only('int')) return [int64, decimal(MAX_PRECISION, 0)];
  if (only('int', 'float')) return [double];
  if (only('int', 'decimal')) return [(name) => decimalFromValues(values)?.(name) ?? null];
  if (tags.size > 1) return [];
  const single: Partial<Record<Tag, (name: string) => ColumnPlan>> = {
    bool: boolean, date, time, timestamp, instant: timestamptz,
  };
  const found = single[[...tags][0]];
  return found ? [found] : [];
}

/** Candidate types for a column of known kind, most specific first. */
function candidates(column: ColumnMeta, values: NonNull[]): ((name: string) => ColumnPlan | null)[] {
  switch (column.kind) {
    case 'integer': return [int64, decimal(MAX_PRECISION, 0)];
    case 'float': return [double];
    case 'decimal': return [(name) => decimalFromDbType(column.dbType)?.(name) ?? null, (name) => decimalFromValues(values)?.(name) ?? null];
    case 'boolean': return [boolean];
    case 'date': return [date];
    case 'time': return [time];
    case 'timestamp': return [timestamp];
    case 'timestamptz': return [timestamptz];
    case 'unknown': return inferred(values);
    default: return []; // text, json, binary: text
  }
}

/** The first candidate type that holds every sampled value exactly; text otherwise. */
export function planColumn(column: ColumnMeta, name: string, sample: Value[]): ColumnPlan {
  const values = sample.filter((v): v is NonNull => v !== null && v !== undefined);
  for (const candidate of candidates(column, values)) {
    const chosen = candidate(name);
    if (chosen && values.every((v) => chosen.convert(v) !== MISFIT)) return chosen;
  }
  return text(name);
}
