/**
 * Shared by the text formats: a value's plain text, and the loop that renders
 * rows into ~64 KiB chunks while pulling batches one at a time (backpressure:
 * the next batch is requested only when the consumer asks for more bytes).
 */
import { Decimal, Instant, JsonValue, LocalTimestamp, SqlDate, SqlTime, type Value } from '../values.ts';
import { formatInstantMicros } from '../time.ts';
import { base64, jsonNested } from './json-text.ts';

export const CHUNK_CHARS = 64 * 1024;

/**
 * A non-null value as text (csv, tsv, xml, parquet text columns, xlsx
 * fallbacks): numbers as JS prints them (`NaN`, `Infinity` included), bigint
 * and Decimal digits exact, dates and times as their ISO text, an Instant in
 * the server zone with its offset, binary as base64, JsonValue as JSON text.
 */
export function valueText(v: Exclude<Value, null>): string {
  switch (typeof v) {
    case 'string':
      return v;
    case 'number':
      return String(v);
    case 'bigint':
      return v.toString();
    case 'boolean':
      return v ? 'true' : 'false';
  }
  if (v instanceof Instant) return formatInstantMicros(v.epochMicros);
  if (v instanceof Decimal || v instanceof SqlDate || v instanceof SqlTime || v instanceof LocalTimestamp) return v.text;
  if (v instanceof Uint8Array) return base64(v);
  if (v instanceof JsonValue) return jsonNested(v.value);
  return jsonNested(v);
}

// Characters XML 1.0 cannot carry at all (not even as references): C0 controls
// other than tab/LF/CR, U+FFFE/U+FFFF, and unpaired surrogates.
const XML_ILLEGAL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** Replaces characters XML 1.0 forbids with U+FFFD, so the reader sees something was there. */
export function xmlLegal(text: string): string {
  XML_ILLEGAL.lastIndex = 0;
  return XML_ILLEGAL.test(text) ? text.replace(XML_ILLEGAL, '\uFFFD') : text;
}

/**
 * Renders a row stream to UTF-8 chunks of about CHUNK_CHARS characters.
 * `render` gets each row and its index; `head` and `tail` frame the body.
 */
export async function* textChunks(
  head: string,
  rows: AsyncIterable<Value[][]>,
  render: (row: Value[], index: number) => string,
  tail: string | ((rowCount: number) => string),
): AsyncIterable<Uint8Array> {
  let buffer = head;
  let index = 0;
  for await (const batch of rows) {
    for (const row of batch) {
      buffer += render(row, index++);
      if (buffer.length >= CHUNK_CHARS) {
        yield Buffer.from(buffer, 'utf8');
        buffer = '';
      }
    }
  }
  buffer += typeof tail === 'string' ? tail : tail(index);
  if (buffer.length > 0) yield Buffer.from(buffer, 'utf8');
}
