/**
 * The value model every driver produces and every serializer consumes. Drivers
 * convert their native values into these so that formats never guess: a 64-bit
 * integer stays a bigint, a decimal keeps its digits, and a zoned instant is
 * rendered in the server's time zone by one function (`time.ts`).
 *
 * Plain JS values: null, boolean, number (floats and JS-safe integers), bigint
 * (integers past 2^53), string, Uint8Array (binary).
 */

/** An exact decimal, kept as its canonical text (`-12.340`). */
export class Decimal {
  constructor(readonly text: string) {}
}

/** A calendar date with no zone: `YYYY-MM-DD`. */
export class SqlDate {
  constructor(readonly text: string) {}
}

/** A time of day: `HH:MM:SS[.ffffff]`, with `±HH:MM` only when the database stored one. */
export class SqlTime {
  constructor(readonly text: string) {}
}

/** A timestamp without a zone: `YYYY-MM-DDTHH:MM:SS[.ffffff]`. Never given an invented offset. */
export class LocalTimestamp {
  constructor(readonly text: string) {}
}

/** A timestamp with a zone: an instant, rendered in the server's zone. */
export class Instant {
  constructor(readonly epochMicros: bigint) {}
}

/** A structured value (JSON, arrays, maps, structs): emitted as JSON text where a format needs text. */
export class JsonValue {
  constructor(readonly value: unknown) {}
}

export type Value =
  | null
  | boolean
  | number
  | bigint
  | string
  | Uint8Array
  | Decimal
  | SqlDate
  | SqlTime
  | LocalTimestamp
  | Instant
  | JsonValue;

/**
 * What a driver knows of a column's type, so formats with typed columns
 * (parquet, xlsx) need not infer it from values. `unknown` means "infer".
 */
export type ValueKind =
  | 'integer'
  | 'float'
  | 'decimal'
  | 'boolean'
  | 'date'
  | 'time'
  | 'timestamp'
  | 'timestamptz'
  | 'text'
  | 'binary'
  | 'json'
  | 'unknown';
