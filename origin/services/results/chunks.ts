import type { Format } from '../../formats/index.ts';
import { serializerFor } from '../../formats/index.ts';
import type { ObjectStore } from '../../object-storage/types.ts';
import type { ResultChunk } from '../../store/schema/index.ts';
import type { Value } from '../../values.ts';
import type { StreamRun } from '../run/engine.ts';
import { chunkFile } from './folder.ts';

/** Thrown into the writer when the result would pass SLUICE_RESULT_MAX_BYTES. */
export class ResultTooLarge extends Error {}

export interface ChunkWriting {
  id: string;
  format: Format;
  chunkRows: number;
  store: ObjectStore;
  signal: AbortSignal;
  /** Bytes the result may still take before it passes SLUICE_RESULT_MAX_BYTES. */
  room: number;
  /** Called once each chunk is complete and in place, in order. */
  written(chunk: ResultChunk): Promise<void>;
}

/**
 * The stream's rows as numbered chunks of `chunkRows` rows, each a complete
 * file of its format (csv and tsv chunks each with their header line, parquet
 * chunks whole parquet files), pulled from the cursor one chunk at a time.
 * An empty result is one chunk with no rows (a header, an empty file), so a
 * client always has a file to read.
 */
export async function writeChunks(run: StreamRun, writing: ChunkWriting): Promise<void> {
  const { body } = run;
  if (body.kind !== 'rows') throw new Error('a result reads rows as values');
  const serializer = await serializerFor(writing.format);
  const source = body.batches[Symbol.asyncIterator]();
  let carried: Value[][] = [];
  let exhausted = false;
  /** The next rows: those left over from the last chunk first. */
  const nextRows = async (): Promise<Value[][] | null> => {
    if (carried.length > 0) return carried.splice(0);
    if (exhausted) return null;
    const next = await source.next();
    if (next.done) {
      exhausted = true;
      return null;
    }
    return next.value;
  };
  let used = 0;
  try {
    for (let index = 0; ; index++) {
      const first = await nextRows();
      if (first === null && index > 0) return;
      let rows = 0;
      async function* chunkRows(): AsyncGenerator<Value[][]> {
        let batch = first;
        while (batch !== null) {
          const room = writing.chunkRows - rows;
          if (batch.length > room) {
            carried = batch.slice(room);
            batch = batch.slice(0, room);
          }
          rows += batch.length;
          if (batch.length > 0) yield batch;
          if (rows >= writing.chunkRows) return;
          batch = await nextRows();
        }
      }
      const bytes = capped(serializer.serialize(run.columns, chunkRows()), writing.room - used);
      const object = await writing.store.put(`${writing.id}/${chunkFile(index, writing.format)}`, bytes, { contentType: serializer.contentType, signal: writing.signal });
      used += object.bytes;
      await writing.written({ index, rows, bytes: object.bytes });
    }
  } finally {
    await source.return?.();
  }
}

/** The bytes, failing with `ResultTooLarge` once they pass `room`. */
async function* capped(chunks: AsyncIterable<Uint8Array>, room: number): AsyncGenerator<Uint8Array> {
  let bytes = 0;
  for await (const chunk of chunks) {
    bytes += chunk.byteLength;
    if (bytes > room) throw new ResultTooLarge();
    yield chunk;
  }
}
