import type { DuckDBConnection, DuckDBDataChunk, DuckDBResult, DuckDBValue } from '@duckdb/node-api';
import type { Value } from '../../values.ts';
import type { Outcome, StatementSource } from '../cursor.ts';
import { duckType, type DuckColumnType } from './types.ts';
import { collectYoungGarbage } from '../../native-memory.ts';
import type { ColumnMeta, LineFormat, RunRequest } from '../types.ts';

/** Chunks (2,048 rows each) between collections of the dead ones' native memory (native-memory.ts). */
const CHUNKS_PER_COLLECTION = 8;

/**
 * One statement streamed chunk by chunk. The next chunk is always asked for
 * before the current one is converted: DuckDB computes it on its own thread
 * while JS converts, so the two overlap instead of taking turns.
 */
abstract class DuckChunks<T> implements StatementSource<T> {
  protected types: DuckColumnType[] = [];
  private result: DuckDBResult | null = null;
  private next: Promise<DuckDBDataChunk | null> | null = null;
  private chunks = 0;
  private exhausted = false;

  constructor(
    private readonly connection: DuckDBConnection,
    protected readonly request: RunRequest,
    private readonly readTransaction: boolean,
    private readonly release: (reusable: boolean) => Promise<void>,
  ) {}

  async start(cancelled: AbortSignal): Promise<ColumnMeta[]> {
    if (this.readTransaction) await this.connection.run('BEGIN TRANSACTION READ ONLY');
    cancelled.throwIfAborted();
    const values = this.request.values as DuckDBValue[];
    this.result = await this.connection.stream(this.request.text, values.length ? values : undefined);
    const names = this.result.columnNames();
    this.types = this.result.columnTypes().map(duckType);
    return names.map((name, i) => ({ name, dbType: this.types[i].name, kind: this.types[i].kind }));
  }

  abstract pull(): Promise<T | null>;

  /** The next non-empty chunk, or null at the end; the one after it is already being computed. */
  protected async chunk(): Promise<DuckDBDataChunk | null> {
    if (this.exhausted) return null;
    const chunk = await (this.next ?? this.result!.fetchChunk());
    if (!chunk || chunk.rowCount === 0) {
      this.exhausted = true;
      this.next = null;
      return null;
    }
    this.next = this.result!.fetchChunk();
    // A fetch nobody awaits (the statement closed early) must not surface as unhandled.
    this.next.catch(() => {});
    if (++this.chunks % CHUNKS_PER_COLLECTION === 0) collectYoungGarbage();
    return chunk;
  }

  interrupt(): void {
    this.connection.interrupt();
  }

  /** A read's transaction ends with its connection, which `release` replaces (duckdb.ts): a rollback. */
  async finish(_outcome: Outcome, interrupted: boolean): Promise<void> {
    // The connection runs one thing at a time: let an outstanding fetch settle first.
    await this.next?.catch(() => {});
    this.next = null;
    this.result = null;
    await this.release(!interrupted);
  }
}

/** Rows as values, converted column by column with each column's converter, in batches of `batchSize`. */
export class DuckRows extends DuckChunks<Value[][]> {
  private pending: Value[][] = [];

  async pull(): Promise<Value[][] | null> {
    const size = Math.max(1, this.request.batchSize);
    while (this.pending.length < size) {
      const chunk = await this.chunk();
      if (!chunk) break;
      this.append(chunk);
    }
    if (this.pending.length === 0) return null;
    if (this.pending.length <= size) {
      const rows = this.pending;
      this.pending = [];
      return rows;
    }
    const rows = this.pending.slice(0, size);
    this.pending = this.pending.slice(size);
    return rows;
  }

  private append(chunk: DuckDBDataChunk): void {
    const count = chunk.rowCount;
    const width = this.types.length;
    const rows: Value[][] = new Array(count);
    for (let r = 0; r < count; r++) rows[r] = new Array(width);
    for (let c = 0; c < width; c++) {
      const vector = chunk.getColumnVector(c);
      const convert = this.types[c].convert;
      for (let r = 0; r < count; r++) {
        const item = vector.getItem(r);
        rows[r][c] = item === null ? null : convert ? convert(item) : (item as Value);
      }
    }
    for (const row of rows) this.pending.push(row);
  }
}

const LINE_END: Record<LineFormat, string> = { csv: '\r\n', tsv: '\n', ndjson: '\n' };

/**
 * Finished lines (the push-down's one text column): a chunk's lines joined
 * with the format's line end, as bytes. `columns` are the original
 * statement's, which the header and JSON keys come from.
 */
export class DuckLines extends DuckChunks<Uint8Array> {
  constructor(
    private readonly columns: ColumnMeta[],
    private readonly format: LineFormat,
    ...base: ConstructorParameters<typeof DuckRows>
  ) {
    super(...base);
  }

  override async start(cancelled: AbortSignal): Promise<ColumnMeta[]> {
    await super.start(cancelled);
    return this.columns;
  }

  async pull(): Promise<Uint8Array | null> {
    const chunk = await this.chunk();
    if (!chunk) return null;
    const vector = chunk.getColumnVector(0);
    const end = LINE_END[this.format];
    let text = '';
    for (let r = 0, n = chunk.rowCount; r < n; r++) text += (vector.getItem(r) as string) + end;
    return Buffer.from(text, 'utf8');
  }
}
