import { Decimal, Instant, JsonValue, LocalTimestamp, SqlDate, SqlTime, type Value } from '../values.ts';
import { localFromMicros } from './temporal.ts';

/**
 * Elements of arrays, lists, structs and maps become plain JSON values so a
 * serializer can write them with `JSON.stringify`. Exactness wins over
 * convenience: integers past 2^53 and decimals become strings, as DuckDB's own
 * JSON conversion does.
 */
export function jsonSafe(value: Value): unknown {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : String(value);
  if (typeof value === 'bigint') return Number.isSafeInteger(Number(value)) ? Number(value) : value.toString();
  if (value instanceof Uint8Array) return `\\x${Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('hex')}`;
  if (value instanceof JsonValue) return value.value;
  if (value instanceof Instant) return `${localFromMicros(value.epochMicros)}Z`;
  if (value instanceof Decimal || value instanceof SqlDate || value instanceof SqlTime || value instanceof LocalTimestamp) {
    return value.text;
  }
  return String(value);
}

/** An integer from its decimal text: a number when JS holds it exactly, else a bigint. */
export function integerFromText(text: string): number | bigint {
  const n = Number(text);
  return Number.isSafeInteger(n) ? n : BigInt(text);
}

/** An integer from a bigint: a number when JS holds it exactly. */
export function integerFromBigInt(value: bigint): number | bigint {
  return value >= -9007199254740991n && value <= 9007199254740991n ? Number(value) : value;
}

/** Bytes as a plain Uint8Array (a view, no copy) rather than a Buffer, so every driver hands out the same type. */
export function plainBytes(bytes: Uint8Array): Uint8Array {
  return bytes.constructor === Uint8Array ? bytes : new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
