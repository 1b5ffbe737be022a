import { createReadStream } from 'node:fs';
import { rename, rm, stat } from 'node:fs/promises';
import type { Format } from '../../formats/index.ts';
import { serializerFor } from '../../formats/index.ts';
import type { ObjectStore, WrittenObject } from '../../object-storage/types.ts';
import type { ResultChunk } from '../../store/schema/index.ts';
import type { Value } from '../../values.ts';
import type { StreamBody, StreamRun } from '../run/engine.ts';
import { chunkFile } from './folder.ts';
import type { TraceSpan } from '../../observability/tracing/span.ts';

/** Thrown into the writer when the result would pass SLUICE_RESULT_MAX_BYTES. */
export class ResultTooLarge extends Error {}

export interface ChunkWriting {
  id: string;
  format: Format;
  chunkRows: number;
  store: ObjectStore;
  signal: AbortSignal;
  /** The result's run span: each chunk's upload parts go under it. */
  span: TraceSpan;
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
  if (body.kind === 'file' && body.files) return placeFiles(body, body.files, writing);
  // Whole documents as the database's own lines (a find as ndjson): one line a row, no newline inside one.
  if (body.kind === 'lines' && body.format === 'ndjson') return writeLineChunks(body.chunks, writing);
  if (body.kind !== 'rows') throw new Error('a result reads rows as values, or ndjson lines');
  const serializer = await serializerFor(writing.format);
  return writeNumbered(body.batches, writing, serializer.contentType, (first, source) => {
    let rows = 0;
    async function* chunkRows(): AsyncGenerator<Value[][]> {
      let batch = first;
      while (batch !== null) {
        const room = writing.chunkRows - rows;
        if (batch.length > room) {
          source.carry(batch.slice(room));
          batch = batch.slice(0, room);
        }
        rows += batch.length;
        if (batch.length > 0) yield batch;
        if (rows >= writing.chunkRows) return;
        batch = await source.next();
      }
    }
    return { bytes: serializer.serialize(run.columns, chunkRows()), rows: () => rows };
  });
}

/** One chunk being cut from the source: its bytes, and the rows they held once read. */
interface CutChunk {
  bytes: AsyncIterable<Uint8Array>;
  rows(): number;
}

/**
 * The numbered chunks cut from `pieces` (`cut` reads one chunk's pieces,
 * starting with `first`, and carries back what belongs to the next), each
 * written in turn under SLUICE_RESULT_MAX_BYTES' room and recorded. An
 * empty source still makes chunk 0.
 */
async function writeNumbered<T>(pieces: AsyncIterable<T>, writing: ChunkWriting, contentType: string, cut: (first: T | null, source: Carrying<T>) => CutChunk): Promise<void> {
  const source = carrying(pieces);
  let used = 0;
  try {
    for (let index = 0; ; index++) {
      const first = await source.next();
      if (first === null && index > 0) return;
      const chunk = cut(first, source);
      const object = await writing.store.put(`${writing.id}/${chunkFile(index, writing.format)}`, capped(chunk.bytes, writing.room - used), { contentType, signal: writing.signal, span: writing.span });
      used += object.bytes;
      await writing.written({ index, rows: chunk.rows(), bytes: object.bytes });
    }
  } finally {
    await source.close();
  }
}

/** A file's bytes in 1 MiB pieces (the 64 KiB default halves an upload's rate). */
const fileBytes = (path: string): AsyncIterable<Uint8Array> => createReadStream(path, { highWaterMark: 2 ** 20 });

/**
 * Files the database wrote itself (parquet chunks from DuckDB, ADR 0030),
 * in row order: each moved into place as the next chunk (renamed into a
 * local folder, uploaded to a bucket), then the run's (empty) body read to
 * its end so that the run ends as read through.
 */
async function placeFiles(body: Extract<StreamBody, { kind: 'file' }>, files: ReadonlyArray<{ path: string; rows: number }>, writing: ChunkWriting): Promise<void> {
  const { contentType } = await serializerFor(writing.format);
  let used = 0;
  for (const [index, file] of files.entries()) {
    writing.signal.throwIfAborted();
    used += (await stat(file.path)).size;
    if (used > writing.room) throw new ResultTooLarge();
    const key = `${writing.id}/${chunkFile(index, writing.format)}`;
    let object: WrittenObject;
    const reserved = writing.store.reserveFile ? await writing.store.reserveFile(key) : null;
    if (reserved) {
      try {
        await rename(file.path, reserved.path);
        object = await reserved.commit(writing.signal);
      } finally {
        await reserved.discard();
      }
    } else {
      object = await writing.store.put(key, fileBytes(file.path), { contentType, signal: writing.signal, span: writing.span });
      await rm(file.path, { force: true });
    }
    await writing.written({ index, rows: file.rows, bytes: object.bytes });
  }
  for await (const _ of body.chunks);
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

/** ndjson lines as chunks of `chunkRows` lines each, split where a line ends. */
function writeLineChunks(lines: AsyncIterable<Uint8Array>, writing: ChunkWriting): Promise<void> {
  return writeNumbered(lines, writing, 'application/x-ndjson', (first, source) => {
    let rows = 0;
    async function* chunkLines(): AsyncGenerator<Uint8Array> {
      let bytes = first;
      while (bytes !== null) {
        let at = -1;
        while (rows < writing.chunkRows && (at = bytes.indexOf(0x0a, at + 1)) !== -1) rows++;
        if (rows >= writing.chunkRows && at !== -1 && at + 1 < bytes.length) {
          source.carry(bytes.subarray(at + 1));
          bytes = bytes.subarray(0, at + 1);
        }
        yield bytes;
        if (rows >= writing.chunkRows) return;
        bytes = await source.next();
      }
    }
    return { bytes: chunkLines(), rows: () => rows };
  });
}

/**
 * A source read one piece at a time, where a piece cut at a chunk's end
 * hands its rest back (`carry`) to start the next chunk; `next` gives null
 * once the source has ended. `close` ends the source early.
 */
interface Carrying<T> {
  next(): Promise<T | null>;
  carry(rest: T): void;
  close(): Promise<unknown>;
}

function carrying<T>(pieces: AsyncIterable<T>): Carrying<T> {
  const source = pieces[Symbol.asyncIterator]();
  let carried: T | null = null;
  let exhausted = false;
  return {
    async next() {
      if (carried !== null) {
        const rest = carried;
        carried = null;
        return rest;
      }
      if (exhausted) return null;
      const next = await source.next();
      if (next.done) {
        exhausted = true;
        return null;
      }
      return next.value;
    },
    carry(rest) {
      carried = rest;
    },
    close: async () => source.return?.(),
  };
}
