/**
 * Lines the database wrote itself (a driver's `streamLines` push-down): the
 * format's own serializer writes the header (it is given the columns and no
 * rows), then the database's bytes follow as they come.
 */
import type { ColumnMeta } from '../drivers/types.ts';
import type { Value } from '../values.ts';
import type { Serializer } from './index.ts';

async function* noRows(): AsyncIterable<Value[][]> {}

export async function* renderedLines(serializer: Serializer, columns: ColumnMeta[], chunks: AsyncIterable<Uint8Array>): AsyncIterable<Uint8Array> {
  yield* serializer.serialize(columns, noRows());
  yield* chunks;
}
