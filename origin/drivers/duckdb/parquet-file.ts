import { mkdtemp, open, rm, type FileHandle } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DuckDBConnection, DuckDBInstance, DuckDBValue } from '@duckdb/node-api';
import { uniqueColumnNames } from '../column-names.ts';
import type { StatementSource } from '../cursor.ts';
import { collectYoungGarbage } from '../../native-memory.ts';
import type { ColumnMeta, RunRequest } from '../types.ts';
import { connectSession, createInstance, type InstanceSpec } from './instances.ts';
import { duckWrappedPlan } from './lines.ts';
import { DECLINED, parquetSelectSql } from './parquet-sql.ts';
import { OUT_OF_MEMORY, STREAM_MEMORY_PER_THREAD_MB, holdPipeSlot, memoryBytes } from './pipe.ts';
import { sqlString } from './render.ts';

/**
 * A result DuckDB writes itself as a parquet file (`Driver.streamParquet`):
 * `COPY (the typed statement of parquet-sql.ts) TO` the caller's path, or a
 * file in a new private folder (mode 700, `sluice-parquet-*` under the
 * system's temporary folder), on an instance of its own, READ_ONLY on the connection's file and locked
 * down like every instance with that file as the one extra path (as a pipe
 * stream's, ADR 0016). Once the COPY has returned, the file's bytes are read
 * as the consumer pulls; the private folder goes when the statement
 * finishes (a caller's path is the caller's to remove).
 *
 * The statement is planned on that instance too: the connection's shared
 * instance need not be open for it (~20 MiB). A regular file, unlike a
 * stream's pipe, cannot make a statement that names it wait (ADR 0017).
 *
 * Memory: the instance first gets the pipe streams' small limit (10 MB per
 * thread) and, if DuckDB runs out of it, starts over with the connection's
 * `memory_limit`. Row groups are the JS writer's size (`rowGroupRows`):
 * DuckDB holds a row group per thread before writing it.
 *
 * One thread (PARQUET_FILE_THREADS), whatever `stream_threads` says: the
 * file's row groups are written in order, so a second thread only adds a
 * row group in memory and the work of ordering them. Measured on the 5M-row
 * export (2026-11-27, 2 cores): 1 thread 4.5M rows/s at 150 MiB peak RSS;
 * 2 threads 3.1M rows/s at 163 MiB, 2.0M rows/s at 171-184 MiB without the
 * fine scan tasks (scan-tasks.ts).
 *
 * Chunked (a stored result's chunks, ADR 0030): the COPY writes a folder of
 * files of K row groups each (ROW_GROUPS_PER_FILE), groups of the JS
 * writer's size in whole vectors (larger ones outgrew the 10 MB first try
 * and wrote more slowly: 2026-11-29, 5M rows, 1 thread, 1.6 s with 14,336
 * rows, 2.3-2.8 s with 61,440-112,640), K of them making up about
 * `chunkRows`. One thread keeps the files in row order (two wrote them out
 * of order). DuckDB closes a group at the end of the vector that fills it,
 * so a file holds K groups of at least their size.
 */
export const PARQUET_FILE_THREADS = 1;

/** DuckDB's vector: a row group ends at a vector's end. */
const VECTOR_ROWS = 2048;

/** Row groups per file and their size, for files of about `chunkRows` rows in groups of about `groupRows`. */
export function chunkLayout(chunkRows: number, groupRows: number): { groups: number; groupRows: number } {
  const size = VECTOR_ROWS * Math.max(1, Math.round(groupRows / VECTOR_ROWS));
  // At least `chunkRows` in full vectors, so there are never more chunks than the JS writer would make.
  return { groups: Math.max(1, Math.ceil(chunkRows / size)), groupRows: size };
}

/** The statement's own columns, and the SQL that selects its rows typed for parquet. */
export interface ParquetPlan {
  columns: ColumnMeta[];
  text: string;
  rowGroupRows: number;
}

/** Prepares the statement (nothing runs) and its typed wrapping; null on any doubt (the JS path then runs it and reports its errors). */
export async function duckParquetPlan(connection: DuckDBConnection, request: RunRequest, rowGroupRows: (columns: number) => number): Promise<ParquetPlan | null> {
  const plan = await duckWrappedPlan(connection, request, (types, names) => parquetSelectSql(request.text, types, uniqueColumnNames(names)));
  return plan && { ...plan, rowGroupRows: rowGroupRows(plan.columns.length) };
}

const READ_CHUNK = 256 * 1024;
/** Reads between young-generation collections: each read is a new buffer V8 counts only as external memory. */
const READS_PER_COLLECTION = 16;

export class DuckParquetFile implements StatementSource<Uint8Array> {
  /** Rows in the file, once written. */
  rows = 0;
  /** A column or a value the push-down cannot type as the JS writer does: no file, the caller writes it in JS. */
  declined = false;
  /** Where the file is written. */
  path: string | null = null;
  /** Chunked: the files written, in row order. */
  files: Array<{ path: string; rows: number }> | undefined;
  private plan: ParquetPlan | null = null;
  private folder: string | null = null;
  private instance: DuckDBInstance | null = null;
  private connection: DuckDBConnection | null = null;
  private file: FileHandle | null = null;
  private reads = 0;
  private readonly releaseSlot = holdPipeSlot();

  constructor(
    private readonly spec: InstanceSpec,
    private readonly request: RunRequest,
    private readonly rowGroupRows: (columns: number) => number,
    private readonly target: string | null,
    private readonly chunkRows: number | null = null,
  ) {}

  async start(cancelled: AbortSignal): Promise<ColumnMeta[]> {
    const small = `${STREAM_MEMORY_PER_THREAD_MB * this.spec.threads}MB`;
    if (memoryBytes(this.spec.memoryLimit) > memoryBytes(small)) {
      try {
        return await this.write(small, cancelled);
      } catch (error) {
        // Nothing was read yet: the statement may start over with the connection's own limit.
        if (!OUT_OF_MEMORY.test(String(error))) throw error;
      }
    }
    return this.write(this.spec.memoryLimit, cancelled);
  }

  /**
   * Opens the instance, plans the statement on it (the first time; the
   * connection's shared instance need not be open at all), and runs the COPY.
   */
  private async write(memoryLimit: string, cancelled: AbortSignal): Promise<ColumnMeta[]> {
    this.closeInstance();
    if (this.target === null) this.folder ??= await mkdtemp(join(tmpdir(), 'sluice-parquet-'));
    const path = this.target ?? join(this.folder!, 'result.parquet');
    this.path = path;
    const chunked = this.chunkRows !== null && this.target !== null;
    await rm(path, { force: true, recursive: chunked });
    cancelled.throwIfAborted();
    this.instance = chunked ? await createInstance({ ...this.spec, memoryLimit }, [], [path]) : await createInstance({ ...this.spec, memoryLimit }, [path]);
    this.connection = await connectSession(this.instance, this.spec);
    if (!this.plan) {
      this.plan = await duckParquetPlan(this.connection, this.request, this.rowGroupRows);
      if (!this.plan) {
        this.declined = true;
        return [];
      }
    }
    cancelled.throwIfAborted();
    const values = this.request.values as DuckDBValue[];
    const chunks = chunked ? chunkLayout(this.chunkRows!, this.plan.rowGroupRows) : null;
    const layout = chunks ? `ROW_GROUP_SIZE ${chunks.groupRows}, ROW_GROUPS_PER_FILE ${chunks.groups}, FILENAME_PATTERN 'chunk_{i}'` : `ROW_GROUP_SIZE ${this.plan.rowGroupRows}`;
    const copy = `COPY (${this.plan.text}) TO ${sqlString(path)} (FORMAT parquet, ${layout})`;
    try {
      const result = await this.connection.runAndReadAll(copy, values.length ? values : undefined);
      this.rows = Number(result.getRows()[0]?.[0] ?? 0);
    } catch (error) {
      if (!String(error).includes(DECLINED)) throw error;
      this.declined = true;
      return this.plan.columns;
    }
    if (chunked) this.files = await this.writtenFiles(path);
    else this.file = await open(path, 'r');
    return this.plan.columns;
  }

  /** The chunked COPY's files in row order (`chunk_<i>`), with the row counts of their footers. */
  private async writtenFiles(folder: string): Promise<Array<{ path: string; rows: number }>> {
    const read = await this.connection!.runAndReadAll(`SELECT file_name, num_rows FROM parquet_file_metadata(${sqlString(`${folder}/chunk_*.parquet`)})`);
    const files = read.getRows().map(([file, rows]) => ({ path: String(file), rows: Number(rows), index: Number(/chunk_(\d+)\.parquet$/.exec(String(file))?.[1]) }));
    return files.sort((a, b) => a.index - b.index).map(({ path, rows }) => ({ path, rows }));
  }

  async pull(): Promise<Uint8Array | null> {
    if (!this.file) return null;
    if (++this.reads % READS_PER_COLLECTION === 0) collectYoungGarbage();
    const buffer = Buffer.allocUnsafe(READ_CHUNK);
    const { bytesRead } = await this.file.read(buffer, 0, READ_CHUNK, null);
    return bytesRead === 0 ? null : buffer.subarray(0, bytesRead);
  }

  interrupt(): void {
    this.connection?.interrupt();
  }

  async finish(): Promise<void> {
    try {
      await this.file?.close().catch(() => {});
      this.file = null;
      this.closeInstance();
      if (this.folder) await rm(this.folder, { recursive: true, force: true }).catch(() => {});
    } finally {
      this.releaseSlot();
    }
  }

  private closeInstance(): void {
    try {
      this.connection?.closeSync();
      this.instance?.closeSync();
    } catch {
      // already closed
    }
    this.connection = null;
    this.instance = null;
  }
}
