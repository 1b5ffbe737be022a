/**
 * Result formats. Every serializer turns column metadata and a lazily pulled
 * stream of row batches into a lazily produced stream of byte chunks (~64 KiB
 * for the text formats). Heavy libraries (exceljs, hyparquet-writer) load on
 * first use.
 */
import type { ColumnMeta } from '../drivers/types.ts';
import { SluiceError } from '../errors.ts';
import type { Value } from '../values.ts';

export { uniqueColumnNames } from '../drivers/column-names.ts';

export const FORMATS = ['json', 'ndjson', 'csv', 'tsv', 'xml', 'yaml', 'xlsx', 'parquet'] as const;
export type Format = (typeof FORMATS)[number];

/** Formats `?stream=true` may serve (the spec's list). */
export const STREAMABLE: ReadonlySet<Format> = new Set<Format>(['csv', 'tsv', 'ndjson', 'parquet']);

export interface Serializer {
  contentType: string;
  /** For Content-Disposition filenames. */
  extension: string;
  /**
   * Serialises the row stream. Consumes `rows` lazily (backpressure) and never
   * holds the whole result. Parquet holds one row group in memory and the
   * file on disk; it yields only once the file is complete.
   */
  serialize(columns: ColumnMeta[], rows: AsyncIterable<Value[][]>): AsyncIterable<Uint8Array>;
}

export function isFormat(value: string): value is Format {
  return (FORMATS as readonly string[]).includes(value);
}

const loaders: Record<Format, () => Promise<Serializer>> = {
  json: async () => (await import('./json.ts')).json,
  ndjson: async () => (await import('./ndjson.ts')).ndjson,
  csv: async () => (await import('./csv.ts')).csv,
  tsv: async () => (await import('./tsv.ts')).tsv,
  xml: async () => (await import('./xml.ts')).xml,
  yaml: async () => (await import('./yaml.ts')).yaml,
  // The writer libraries are loaded with their serializer (the modules import them only where
  // they write), so one that is missing fails here, before any row is read.
  xlsx: async () => {
    await import('exceljs');
    return (await import('./xlsx.ts')).xlsx;
  },
  parquet: async () => {
    try {
      await import('hyparquet-writer');
      return (await import('./parquet.ts')).parquet;
    } catch {
      // The loader's message may name server paths: it is not passed on.
      throw new SluiceError('format_unavailable', 'The parquet component is not available on this server.');
    }
  },
};

const loaded = new Map<Format, Promise<Serializer>>();

/** The serializer of a format; loads its module (and library) on first use. */
export function serializerFor(format: Format): Promise<Serializer> {
  let serializer = loaded.get(format);
  if (!serializer) {
    serializer = loaders[format]();
    loaded.set(format, serializer);
    // A failed load is not cached, so a later call tries again.
    serializer.catch(() => loaded.delete(format));
  }
  return serializer;
}
