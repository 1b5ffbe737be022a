import type { Value, ValueKind } from '../values.ts';

export type DriverType = 'postgres' | 'mysql' | 'duckdb' | 'sqlite' | 'clickhouse' | 'jdbc' | 'h2';

/** The SQL dialect a driver speaks; the SQL analyser tokenizes by it. */
/** `jdbc`: standard SQL as JDBC drivers take it (ANSI quoting, `?` placeholders), for the jdbc and h2 types. */
export type Dialect = 'postgres' | 'mysql' | 'duckdb' | 'sqlite' | 'clickhouse' | 'jdbc';

/** A connection's settings as the driver sees them: the password already resolved. */
export interface ConnectionSettings {
  type: DriverType;
  host?: string | null;
  port?: number | null;
  user?: string | null;
  password?: string | null;
  database?: string | null;
  options: Record<string, unknown>;
}

/** Process-wide settings every driver gets from the server's environment. */
export interface DriverEnv {
  /** Idle sessions kept per driver instance (`SERVICE_POOL_SIZE`); 0 disables pooling. */
  poolSize: number;
  /** An idle session closes after this long (`SERVICE_POOL_IDLE_TIMEOUT`). */
  poolIdleTimeoutMs: number;
  /** `SERVICE_ALLOW_WRITES`: when false every statement runs read-only, whatever `RunRequest.readOnly` says. */
  allowWrites: boolean;
}

export interface ColumnMeta {
  name: string;
  /** The database's own type name, for documentation (`int8`, `VARCHAR`...). */
  dbType: string;
  kind: ValueKind;
}

export interface RunRequest {
  /** SQL in the driver's placeholder style (`$1` for postgres/duckdb, `?` for mysql/sqlite, `{p1:Type}` for clickhouse). */
  text: string;
  values: unknown[];
  /** Run in a read-only transaction or session where the database supports one. */
  readOnly: boolean;
  /**
   * Milliseconds; 0 means no limit. Past it the statement is cancelled in the
   * database. The limit runs from `run()` until the cursor is read to its end
   * or closed, so a reader that stalls mid-stream also hits it.
   */
  timeoutMs: number;
  /** Aborted when the client goes away: the statement is cancelled in the database. */
  signal: AbortSignal;
  /** Rows per yielded batch. */
  batchSize: number;
}

/**
 * A running statement. `batches` pulls from the database cursor on demand
 * (backpressure); `close()` releases the session whether or not the batches
 * were read to the end, and is safe to call twice.
 */
export interface Cursor<T> {
  columns: ColumnMeta[];
  batches: AsyncIterable<T>;
  close(): Promise<void>;
}

export type RowCursor = Cursor<Value[][]>;

/** The formats whose rows a driver may render itself (`Driver.streamLines`). */
export type LineFormat = 'csv' | 'tsv' | 'ndjson';

/**
 * A statement whose rows the database writes as finished lines. `columns` are
 * the statement's own (the header and JSON keys come from them); each batch is
 * a chunk of bytes: whole lines in order, each ended by the format's line end
 * (csv `\r\n`, tsv and ndjson `\n`), a chunk possibly ending mid-line.
 */
export type LineStream = Cursor<Uint8Array>;

export interface SchemaColumn {
  name: string;
  type: string;
  nullable: boolean;
  position: number;
}

export interface SchemaTable {
  name: string;
  type: string;
  columns: SchemaColumn[];
}

export interface SchemaListing {
  tables: SchemaTable[];
  truncated: boolean;
}

/** One connection's way into its database. Instances are pooled per distinct settings. */
export interface Driver {
  readonly type: DriverType;
  readonly dialect: Dialect;
  /**
   * Starts a statement and resolves once the database has accepted it (column
   * metadata known), so errors before the first row reach the client as JSON.
   * Rejects with a `SluiceError`: `timeout` (504), `query_failed` (500, `detail`
   * carries the database message with credentials redacted), `connection_failed`.
   */
  run(request: RunRequest): Promise<RowCursor>;
  /**
   * Optional serialization push-down for `stream=true`: runs the statement so
   * that the database itself writes each row as the finished csv/tsv/ndjson
   * line, byte for byte what the JS serializer would write from `run()`'s
   * values, and streams those bytes. Resolves null, having run nothing,
   * whenever it cannot promise that (a column type it cannot render exactly, a
   * statement it cannot wrap, parameters it cannot pass): the caller then runs
   * it with `run()`. Once started it behaves as `run()` does: it rejects for a
   * statement the database refuses before the first line, honours the time
   * limit and the abort signal, and `close()` cancels and frees the session.
   */
  streamLines?(request: RunRequest, format: LineFormat): Promise<LineStream | null>;
  /** Tables and columns; at most `maxColumns` columns in all, then `truncated`. */
  schema(options: { database?: string; maxColumns: number }): Promise<SchemaListing>;
  databases(): Promise<string[]>;
  /** DDL text for one table, as the database would write it (or a reconstruction). */
  tableDdl(table: string): Promise<string>;
  /** Opens a session and runs a trivial statement. */
  test(): Promise<void>;
  /** Sessions now idle in this driver's pool (for the `pool_idle_connections` gauge). */
  idleSessions(): number;
  /** Closes idle pooled sessions and releases the driver; busy sessions close when released. */
  close(): Promise<void>;
}
