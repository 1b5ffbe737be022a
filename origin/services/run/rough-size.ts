import { Decimal, Instant, JsonValue, LocalTimestamp, SqlDate, SqlTime } from '../../values.ts';

/** What a number, an instant or a literal takes as JSON, at most. */
const SCALAR = 32;

/**
 * About how many bytes `row` (a row of values, or a document) takes as
 * JSON: strings by their length, binary as hex, numbers and instants at
 * their widest. Cheap and without recursion (a document may nest deeply):
 * a page that must stay under a byte budget stops reading on it, and the
 * answer is cut exactly once it is JSON.
 */
export function roughJsonBytes(row: unknown): number {
  let bytes = 0;
  const pending: unknown[] = [row];
  while (pending.length > 0) {
    const value = pending.pop();
    if (typeof value === 'string') bytes += value.length + 2;
    else if (value === null || value === undefined || typeof value !== 'object') bytes += SCALAR;
    else if (value instanceof Uint8Array) bytes += value.byteLength * 2 + 2;
    else if (value instanceof Decimal || value instanceof SqlDate || value instanceof SqlTime || value instanceof LocalTimestamp) bytes += value.text.length + 2;
    else if (value instanceof Instant || value instanceof Date) bytes += SCALAR;
    else if (value instanceof JsonValue) pending.push(value.value);
    else if (Array.isArray(value)) {
      bytes += 2 + value.length;
      for (const item of value) pending.push(item);
    } else {
      for (const [key, item] of Object.entries(value)) {
        bytes += key.length + 4;
        pending.push(item);
      }
    }
  }
  return bytes;
}
