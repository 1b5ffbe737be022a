import { badRequest } from '../../errors.ts';
import { formatInstantMicros } from '../../time.ts';
import { Decimal, Instant, JsonValue, LocalTimestamp, SqlDate, SqlTime, type Value } from '../../values.ts';

/**
 * An incremental export's watermark: the largest value of its column that a
 * successful run delivered. Kept as the plain value the next run binds to
 * the parameter (a number, a bigint, a string or a boolean), stored as JSON
 * with integers past 2^53 as digits, and shown as the API's JSON value.
 */

export type Watermark = number | bigint | string | boolean;

/** The stored form: `{value}`, `{value: "digits", bigint: true}` for integers past 2^53. */
export interface StoredWatermark {
  value: unknown;
  bigint?: boolean;
}

export function storeWatermark(value: Watermark): StoredWatermark {
  return typeof value === 'bigint' ? { value: value.toString(), bigint: true } : { value };
}

export function readWatermark(stored: StoredWatermark | null): Watermark | null {
  if (stored === null) return null;
  return stored.bigint ? BigInt(stored.value as string) : (stored.value as Watermark);
}

/** As JSON shows it: an integer past 2^53 as its digits (a JSON number would lose them). */
export function showWatermark(value: Watermark | null): number | string | boolean | null {
  return typeof value === 'bigint' ? value.toString() : value;
}

/**
 * A result value as a watermark: what the next run binds, in the form the
 * database reads back as the same value (dates, times and decimals as their
 * text, a zoned instant in ISO 8601 with its offset). Null never moves it.
 */
export function watermarkOf(value: Value, column: string): Watermark | null {
  if (value === null) return null;
  if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'string' || typeof value === 'boolean') return value;
  if (value instanceof Decimal || value instanceof SqlDate || value instanceof SqlTime || value instanceof LocalTimestamp) return value.text;
  if (value instanceof Instant) return formatInstantMicros(value.epochMicros);
  const kind = value instanceof JsonValue ? 'a JSON value' : 'binary';
  throw badRequest(`The incremental column "${column}" holds ${kind}; a watermark column must hold numbers, text, dates or timestamps`);
}

/** Ordering of two values the same column gave. Numbers by value, instants by time, text by code point. */
export function later(a: Value, b: Value): boolean {
  if (a === null) return false;
  if (b === null) return true;
  if ((typeof a === 'number' || typeof a === 'bigint') && (typeof b === 'number' || typeof b === 'bigint')) return a > b;
  if (a instanceof Instant && b instanceof Instant) return a.epochMicros > b.epochMicros;
  if (a instanceof Decimal && b instanceof Decimal) return compareDecimals(a.text, b.text) > 0;
  const text = (v: Value) => (v instanceof SqlDate || v instanceof SqlTime || v instanceof LocalTimestamp ? v.text : String(v));
  return text(a) > text(b);
}

/** Compares canonical decimal texts (`-12.340`) exactly. */
export function compareDecimals(a: string, b: string): number {
  const negA = a.startsWith('-');
  const negB = b.startsWith('-');
  if (negA !== negB) return negA ? -1 : 1;
  const magnitude = compareMagnitudes(negA ? a.slice(1) : a, negB ? b.slice(1) : b);
  return negA ? -magnitude : magnitude;
}

function compareMagnitudes(a: string, b: string): number {
  const [ai = '', af = ''] = a.split('.');
  const [bi = '', bf = ''] = b.split('.');
  const intA = ai.replace(/^0+/, '');
  const intB = bi.replace(/^0+/, '');
  if (intA.length !== intB.length) return intA.length > intB.length ? 1 : -1;
  if (intA !== intB) return intA > intB ? 1 : -1;
  const width = Math.max(af.length, bf.length);
  const fracA = af.padEnd(width, '0');
  const fracB = bf.padEnd(width, '0');
  return fracA === fracB ? 0 : fracA > fracB ? 1 : -1;
}
