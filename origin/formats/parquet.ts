/**
 * parquet through hyparquet-writer, written to a temporary file (os.tmpdir())
 * one row group at a time, then streamed out; the file is deleted when the
 * stream ends, fails or is cancelled (not if the process dies mid-way: the
 * directories are named `sluice-parquet-*`).
 *
 * Memory stays bounded by one row group: rows are buffered until a group is
 * full (`rowGroupRows`: ~60k cells, between 1,000 and 100,000 rows), converted,
 * encoded, appended to the file, and dropped. Nothing is yielded until the
 * whole file is written, so a query that fails part-way fails before any byte.
 *
 * Column types (parquet-columns.ts) are decided when the first row group is
 * full, from ColumnMeta.kind and that group's values:
 * - integer -> INT64, or DECIMAL(38,0) when a value exceeds 64 bits; float ->
 *   DOUBLE; decimal -> DECIMAL(p,s) from the declared type (`numeric(12,2)`),
 *   else DECIMAL(38,s) with s the largest scale among the values (values with
 *   fewer decimals are scaled up, exactly); boolean -> BOOLEAN; date -> DATE;
 *   time -> TIME(micros; a time with an offset makes it text); timestamp ->
 *   TIMESTAMP(micros, not adjusted to UTC); timestamptz -> TIMESTAMP(micros,
 *   isAdjustedToUTC); text, json, binary -> UTF8 text (binary as base64).
 * - `unknown` kinds take the type of their values: all integers -> INT64 (or
 *   DECIMAL(38,0)); integers and floats -> DOUBLE; Decimals (with integers) ->
 *   DECIMAL(38,s); all booleans, dates, times, zone-less timestamps or instants
 *   -> their type; anything else, a mix, or no non-null value -> UTF8 text.
 * - A known kind whose first-group values do not all fit its type becomes
 *   text as well: the first row group never loses a value.
 * The rule for later values: a value after the first row group that the
 * chosen type cannot hold exactly (a string in an INT64 column, a decimal with
 * more decimals than the chosen scale, a fraction in a column typed INT64 from
 * whole numbers…) is written as NULL — a typed parquet column cannot carry
 * text — and counted: the file's key-value metadata then holds
 * `sluice.unrepresentable_values`, a JSON object of column name -> count.
 * Text columns take any value, so this only concerns typed columns.
 */
import { mkdtemp, open, rm, type FileHandle } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ByteWriter, ParquetWriter } from 'hyparquet-writer';
import { collectIfHeapGrew, collectYoungGarbage } from '../native-memory.ts';
import type { ColumnMeta } from '../drivers/types.ts';
import type { Value } from '../values.ts';
import type { Serializer } from './index.ts';
import { uniqueColumnNames } from '../drivers/column-names.ts';
import { MISFIT, planColumn, type ColumnPlan } from './parquet-columns.ts';

// Larger row groups wrote more slowly and held more memory (hyparquet-writer's per-group garbage; ADR 0007).
const CELLS_PER_GROUP = 60_000;
const READ_CHUNK = 256 * 1024;
const CHUNKS_PER_COLLECTION = 16;
const HEAP_GROWTH_BEFORE_COLLECTING = 32 * 1024 * 1024;
export const MISFIT_METADATA_KEY = 'sluice.unrepresentable_values';

/** Rows per row group: about 60k cells (10k rows of 6 columns), at least 1,000 and at most 100,000 rows. */
export function rowGroupRows(columnCount: number): number {
  return Math.max(1000, Math.min(100_000, Math.floor(CELLS_PER_GROUP / Math.max(1, columnCount))));
}

async function writeAll(file: FileHandle, bytes: ByteWriter): Promise<void> {
  let done = 0;
  while (done < bytes.index) {
    const { bytesWritten } = await file.write(new Uint8Array(bytes.buffer, done, bytes.index - done));
    done += bytesWritten;
  }
  bytes.index = 0;
}

function convertColumn(plan: ColumnPlan, rows: Value[][], index: number, misfits: Map<string, number>) {
  const out: unknown[] = new Array(rows.length);
  for (let r = 0; r < rows.length; r++) {
    const v = rows[r][index];
    if (v === null || v === undefined) {
      out[r] = null;
      continue;
    }
    const converted = plan.convert(v);
    if (converted === MISFIT) {
      out[r] = null;
      misfits.set(plan.element.name, (misfits.get(plan.element.name) ?? 0) + 1);
    } else {
      out[r] = converted;
    }
  }
  return out;
}

async function writeParquet(path: string, columns: ColumnMeta[], rows: AsyncIterable<Value[][]>, groupRows: number): Promise<void> {
  const names = uniqueColumnNames(columns.map((c) => c.name));
  // Loaded on first use: a server that never writes parquet never holds the writer in memory.
  const { ByteWriter, ParquetWriter } = await import('hyparquet-writer');
  const file = await open(path, 'w');
  try {
    const bytes = new ByteWriter(1 << 20);
    const misfits = new Map<string, number>();
    let writer: ParquetWriter | undefined;
    let plans: ColumnPlan[] = [];
    let group: Value[][] = [];

    const flush = async (): Promise<ParquetWriter> => {
      if (!writer) {
        plans = columns.map((c, i) => planColumn(c, names[i], group.map((row) => row[i] ?? null)));
        const schema = [{ name: 'root', num_children: plans.length }, ...plans.map((p) => p.element)];
        writer = new ParquetWriter({ writer: bytes, schema, createdBy: 'sluice' });
      }
      if (group.length > 0 && plans.length > 0) {
        const columnData = plans.map((plan, i) => ({ name: plan.element.name, data: convertColumn(plan, group, i, misfits) }));
        await writer.write({ columnData, rowGroupSize: group.length });
      }
      group = [];
      await writeAll(file, bytes);
      // Written groups are garbage in the old generation by now, which V8 lets grow over a long
      // stream unless collected once the heap has grown this much (ADR 0007).
      collectIfHeapGrew(HEAP_GROWTH_BEFORE_COLLECTING);
      return writer;
    };

    for await (const batch of rows) {
      for (const row of batch) {
        group.push(row);
        if (group.length >= groupRows) await flush();
      }
    }
    const finished = await flush();
    if (misfits.size > 0) {
      finished.kvMetadata = [{ key: MISFIT_METADATA_KEY, value: JSON.stringify(Object.fromEntries(misfits)) }];
    }
    await finished.finish();
    await writeAll(file, bytes);
  } finally {
    await file.close();
  }
}

async function* fileChunks(path: string): AsyncIterable<Uint8Array> {
  const file = await open(path, 'r');
  try {
    for (let read = 1; ; read++) {
      // Sent chunks are dead young buffers V8 counts only as external memory: free them every few MB.
      if (read % CHUNKS_PER_COLLECTION === 0) collectYoungGarbage();
      const buffer = Buffer.allocUnsafe(READ_CHUNK);
      const { bytesRead } = await file.read(buffer, 0, READ_CHUNK, null);
      if (bytesRead === 0) return;
      yield buffer.subarray(0, bytesRead);
    }
  } finally {
    await file.close();
  }
}

export interface ParquetOptions {
  /** Rows per row group (default `rowGroupRows(columns)`); tests make it small. */
  rowGroupRows?: number;
  /** Where the temporary directory goes (default os.tmpdir()). */
  tmpDir?: string;
}

export function parquetSerializer(options: ParquetOptions = {}): Serializer {
  return {
    contentType: 'application/vnd.apache.parquet',
    extension: 'parquet',
    async *serialize(columns, rows) {
      const dir = await mkdtemp(join(options.tmpDir ?? tmpdir(), 'sluice-parquet-'));
      try {
        const path = join(dir, 'result.parquet');
        await writeParquet(path, columns, rows, options.rowGroupRows ?? rowGroupRows(columns.length));
        yield* fileChunks(path);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
  };
}

export const parquet = parquetSerializer();
