/**
 * Rows the database already rendered (a driver's `renderLines` push-down):
 * each row is `[line]`. The format's own serializer writes the header (it is
 * given the columns and no rows), then the lines follow with the format's
 * line end, in ~64 KiB chunks pulled batch by batch like the other formats.
 */
import type { ColumnMeta, LineFormat } from '../drivers/types.ts';
import type { Value } from '../values.ts';
import type { Serializer } from './index.ts';
import { CHUNK_CHARS } from './text.ts';

const LINE_END: Record<LineFormat, string> = { csv: '\r\n', tsv: '\n', ndjson: '\n' };

async function* noRows(): AsyncIterable<Value[][]> {}

export async function* renderedLines(
  serializer: Serializer,
  format: LineFormat,
  columns: ColumnMeta[],
  rows: AsyncIterable<Value[][]>,
): AsyncIterable<Uint8Array> {
  yield* serializer.serialize(columns, noRows());
  const end = LINE_END[format];
  let buffer = '';
  for await (const batch of rows) {
    for (const row of batch) {
      buffer += (row[0] as string) + end;
      if (buffer.length >= CHUNK_CHARS) {
        yield Buffer.from(buffer, 'utf8');
        buffer = '';
      }
    }
  }
  if (buffer.length > 0) yield Buffer.from(buffer, 'utf8');
}
