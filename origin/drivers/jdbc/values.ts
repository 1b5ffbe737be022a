import { Decimal, Instant, LocalTimestamp, SqlDate, SqlTime, type Value, type ValueKind } from '../../values.ts';
import { integerFromText } from '../json-values.ts';

/**
 * The helper's kinds (SluiceJdbc.Kind) and how their JSON becomes the value
 * model: 64-bit integers and decimals arrive as text (never through a
 * double), dates and times as ISO text, zoned instants as epoch microseconds,
 * bytes as base64.
 */
const CONVERT: Record<string, (value: unknown) => Value> = {
  boolean: (v) => v as boolean,
  integer: (v) => v as number,
  bigint: (v) => integerFromText(v as string),
  decimal: (v) => new Decimal(v as string),
  float: (v) => (typeof v === 'number' ? v : Number(v)),
  text: (v) => v as string,
  date: (v) => new SqlDate(v as string),
  time: (v) => new SqlTime(v as string),
  timestamp: (v) => new LocalTimestamp(v as string),
  timestamptz: (v) => new Instant(BigInt(v as string)),
  binary: (v) => new Uint8Array(Buffer.from(v as string, 'base64')),
  unknown: (v) => v as Value,
};

export function converter(kind: string): (value: unknown) => Value {
  const convert = CONVERT[kind] ?? CONVERT.unknown;
  return (value) => (value === null ? null : convert(value));
}

export function valueKind(kind: string): ValueKind {
  if (kind === 'bigint') return 'integer';
  return kind in CONVERT ? (kind as ValueKind) : 'unknown';
}

/** A bound value as the helper binds it: integers as text, so none passes through a double. */
export function param(value: unknown): { t: string; v?: unknown } {
  if (value === null || value === undefined) return { t: 'null' };
  if (typeof value === 'boolean') return { t: 'bool', v: value };
  if (typeof value === 'bigint') return { t: 'bigint', v: value.toString() };
  if (typeof value === 'number') return Number.isSafeInteger(value) ? { t: 'int', v: String(value) } : { t: 'float', v: value };
  return { t: 'text', v: String(value) };
}
