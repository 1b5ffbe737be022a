import { createReadStream } from 'node:fs';
import { mkdtemp, open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deserialize, serialize } from 'node:v8';
import type { DocumentFields } from '../../drivers/types.ts';
import { Decimal, Instant, JsonValue, type Value } from '../../values.ts';

/**
 * Documents written to a temporary file and read back in order: a parquet
 * stream learns every field of the result before its first row group (the
 * file's columns are fixed up front) without holding the documents in memory.
 * Records are length-prefixed `v8.serialize` frames; the value-model classes
 * travel as objects tagged under keys starting with NUL, which no BSON field
 * name can hold.
 */

const DECIMAL = '\0d';
const INSTANT = '\0i';
const JSON_VALUE = '\0j';

function encode(value: unknown): unknown {
  if (value instanceof Decimal) return { [DECIMAL]: value.text };
  if (value instanceof Instant) return { [INSTANT]: value.epochMicros };
  if (value instanceof JsonValue) return { [JSON_VALUE]: encode(value.value) };
  if (Array.isArray(value)) return value.map(encode);
  if (value !== null && typeof value === 'object' && !(value instanceof Uint8Array)) {
    const out: Record<string, unknown> = {};
    for (const [key, child] of Object.entries(value)) Object.defineProperty(out, key, { value: encode(child), enumerable: true, writable: true, configurable: true });
    return out;
  }
  return value;
}

function decode(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(decode);
  if (value !== null && typeof value === 'object' && !(value instanceof Uint8Array)) {
    const record = value as Record<string, unknown>;
    if (Object.hasOwn(record, DECIMAL)) return new Decimal(record[DECIMAL] as string);
    if (Object.hasOwn(record, INSTANT)) return new Instant(record[INSTANT] as bigint);
    if (Object.hasOwn(record, JSON_VALUE)) return new JsonValue(decode(record[JSON_VALUE]));
    const out: Record<string, unknown> = {};
    for (const [key, child] of Object.entries(record)) Object.defineProperty(out, key, { value: decode(child), enumerable: true, writable: true, configurable: true });
    return out;
  }
  return value;
}

export interface Spool {
  write(documents: DocumentFields[]): Promise<void>;
  /** The documents in the order written, in batches; the file is removed once read (or on `discard`). */
  read(batchSize: number): AsyncIterable<DocumentFields[]>;
  discard(): Promise<void>;
}

export async function openSpool(): Promise<Spool> {
  const dir = await mkdtemp(join(tmpdir(), 'sluice-documents-'));
  const path = join(dir, 'documents.bin');
  const file = await open(path, 'w');
  let closed = false;
  const discard = async () => {
    if (!closed) {
      closed = true;
      await file.close().catch(() => {});
    }
    await rm(dir, { recursive: true, force: true });
  };
  return {
    async write(documents) {
      const frames: Buffer[] = [];
      for (const document of documents) {
        const body = serialize(document.map(([name, value]) => [name, encode(value)]));
        const length = Buffer.alloc(4);
        length.writeUInt32LE(body.length);
        frames.push(length, body);
      }
      await file.write(Buffer.concat(frames));
    },
    async *read(batchSize) {
      closed = true;
      await file.close();
      try {
        let pending: Buffer = Buffer.alloc(0);
        let batch: DocumentFields[] = [];
        for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 })) {
          pending = pending.length === 0 ? (chunk as Buffer) : Buffer.concat([pending, chunk as Buffer]);
          let at = 0;
          while (pending.length - at >= 4) {
            const length = pending.readUInt32LE(at);
            if (pending.length - at - 4 < length) break;
            const fields = deserialize(pending.subarray(at + 4, at + 4 + length)) as [string, unknown][];
            batch.push(fields.map(([name, value]) => [name, decode(value) as Value]));
            at += 4 + length;
            if (batch.length >= batchSize) {
              yield batch;
              batch = [];
            }
          }
          pending = pending.subarray(at);
        }
        if (batch.length > 0) yield batch;
      } finally {
        await discard();
      }
    },
    discard,
  };
}
