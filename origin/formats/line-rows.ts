/**
 * Rows in finished lines the database wrote itself (`Driver.streamLines`):
 * counted, and cut at a row's end for a row cap, without parsing the values.
 * A row ends at a line feed, except in csv, where a line feed inside a quoted
 * field belongs to the value (RFC 4180: quotes inside a field are doubled, so
 * the quote count's parity says whether a position is inside one). tsv and
 * ndjson escape every line feed in a value.
 */
import type { LineFormat } from '../drivers/types.ts';

const LF = 0x0a;
const QUOTE = 0x22;

class RowEnds {
  private inQuotes = false;
  /** The chunk last searched, and its first quote at or after the last search's start (Infinity: none). */
  private chunk: Buffer | null = null;
  private quote = -1;

  constructor(private readonly csv: boolean) {}

  /**
   * Where, after `from`, the next row ends (the offset just past its line
   * feed), or -1 when this chunk holds no further row end.
   */
  next(chunk: Buffer, from: number): number {
    if (!this.csv) {
      const lf = chunk.indexOf(LF, from);
      return lf < 0 ? -1 : lf + 1;
    }
    let at = from;
    for (;;) {
      const quote = this.quoteFrom(chunk, at);
      if (this.inQuotes) {
        if (quote === Infinity) return -1;
        this.inQuotes = false;
        at = quote + 1;
        continue;
      }
      const lf = chunk.indexOf(LF, at);
      if (lf >= 0 && lf < quote) return lf + 1;
      if (quote === Infinity) return -1;
      this.inQuotes = true;
      at = quote + 1;
    }
  }

  /**
   * The first quote at or after `at`. Searches only move forward in a chunk,
   * so the last one found still answers until it is passed: most rows have
   * no quote, and searching afresh on each would scan ahead to the next
   * quoted field every time.
   */
  private quoteFrom(chunk: Buffer, at: number): number {
    if (chunk !== this.chunk || this.quote < at) {
      this.chunk = chunk;
      const found = chunk.indexOf(QUOTE, at);
      this.quote = found < 0 ? Infinity : found;
    }
    return this.quote;
  }
}

/**
 * The chunks passed through while counting rows; with `max`, the bytes stop
 * at the end of row `max` and `capped()` tells whether more rows followed
 * (as `capRows` does for values).
 */
export function capLines(chunks: AsyncIterable<Uint8Array>, format: LineFormat, max: number | undefined) {
  let passed = 0;
  let capped = false;
  const ends = new RowEnds(format === 'csv');
  async function* limited() {
    for await (const bytes of chunks) {
      if (bytes.length === 0) continue;
      if (max !== undefined && passed >= max) {
        capped = true;
        return;
      }
      const chunk = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      let at = 0;
      for (let end = ends.next(chunk, at); end >= 0; end = ends.next(chunk, at)) {
        passed++;
        at = end;
        if (max !== undefined && passed >= max) {
          if (at < chunk.length) {
            capped = true;
            yield chunk.subarray(0, at);
            return;
          }
          break;
        }
      }
      yield chunk;
    }
  }
  return { chunks: limited(), rows: () => passed, capped: () => capped };
}
