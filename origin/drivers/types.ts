import type { Engine } from '../sql/engine.ts';
import type { Value, ValueKind } from '../values.ts';
import type { TraceSpan } from '../observability/tracing/span.ts';

export type DriverType = 'postgres' | 'mysql' | 'duckdb' | 'sqlite' | 'clickhouse' | 'jdbc' | 'h2' | 'mongodb';

/** The connection types that run SQL (every one but the document database). */
export type SqlDriverType = Exclude<DriverType, 'mongodb'>;

/** The SQL dialect a driver speaks; the SQL analyser tokenizes by it. */
/** `jdbc`: standard SQL as JDBC drivers take it (ANSI quoting, `?` placeholders), for the jdbc and h2 types. */
export type Dialect = 'postgres' | 'mysql' | 'duckdb' | 'sqlite' | 'clickhouse' | 'jdbc';

/** What a run reads in, for its log line and metrics: a SQL dialect, or `mongodb` for document queries. */
export type RunDialect = Dialect | 'mongodb';

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
  /** Sessions open at once per driver instance, busy and idle (`SLUICE_POOL_MAX`); callers past it wait. */
  poolMax: number;
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
  /** The span of the request the statement runs for: its wait for a session is traced under it. */
  span?: TraceSpan;
  /** The most rows the statement can return (its page folded into it as a LIMIT), when known: a driver may read them in one go. */
  rowsAtMost?: number;
  /** PostgreSQL, with `rowsAtMost`: `text` with `values` written in as literals (sql/markers.ts), when each value could be. */
  inlined?: string;
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

/**
 * A result the database wrote itself as one whole parquet file: each batch
 * is a chunk of the file's bytes, in order; `rows` is the file's row count
 * (the file is complete before the cursor opens).
 */
export interface ParquetStream extends Cursor<Uint8Array> {
  readonly rows: number;
  /** Where the file is: the `path` asked for, or the driver's own temporary file (removed on close). */
  readonly path: string;
  /**
   * With `chunkRows`: the files written into the folder at `path`, in row
   * order, each with its row count; the cursor's batches are then empty.
   */
  readonly files?: ReadonlyArray<{ path: string; rows: number }>;
}

export interface ParquetOptions {
  /** Rows per row group for a result of this many columns (the JS writer's rule). */
  rowGroupRows(columns: number): number;
  /**
   * Write the file here (a new file, in a folder the caller made; the caller
   * removes it if the cursor fails or resolves null) instead of a temporary
   * file of the driver's own.
   */
  path?: string;
  /**
   * With `path`: write a new folder there of files of about this many rows
   * each, in row order, every file cut where a row group ends (so a file
   * may hold a few thousand rows more or less), instead of one file.
   */
  chunkRows?: number;
}

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

/** A comment the database keeps on a table (`column` null) or a column; tables named as in the schema listing. */
export interface CatalogComment {
  table: string;
  column: string | null;
  comment: string;
}

/** What every driver offers, whatever its query language: the catalog, the connection test, its pool. */
export interface ConnectionDriver {
  readonly type: DriverType;
  /** Tables and columns; at most `maxColumns` columns in all, then `truncated`. */
  schema(options: { database?: string; maxColumns: number }): Promise<SchemaListing>;
  databases(): Promise<string[]>;
  /** The comments of the connection's own database (`COMMENT ON`...); null for an engine that keeps none (SQLite, MongoDB). */
  comments(): Promise<CatalogComment[] | null>;
  /** DDL text for one table, as the database would write it (or a reconstruction). */
  tableDdl(table: string): Promise<string>;
  /** Opens a session and runs a trivial statement. */
  test(): Promise<void>;
  /** Sessions now idle in this driver's pool (for the `pool_idle_connections` gauge). */
  idleSessions(): number;
  /** Closes idle pooled sessions and releases the driver; busy sessions close when released. */
  close(): Promise<void>;
}

/** One SQL connection's way into its database. Instances are pooled per distinct settings. */
export interface Driver extends ConnectionDriver {
  readonly type: SqlDriverType;
  readonly dialect: Dialect;
  /**
   * The engine whose rules the read-only guard applies, when the dialect does
   * not tell it: a jdbc connection runs on H2, PostgreSQL or an unknown engine
   * (origin/sql/engine.ts). Absent: the dialect's own engine.
   */
  readonly engine?: Engine;
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
  /**
   * Optional parquet push-down for exports: runs the statement so that the
   * database itself writes the whole result as a parquet file with the column names, logical types and values the JS
   * writer (formats/parquet.ts) gives `run()`'s rows, row groups of
   * `rowGroupRows(columns)` rows, and streams the file's bytes (a caller
   * that gave `path` may take the file there instead). Resolves
   * null, leaving nothing behind, whenever it cannot promise that (a column
   * type, a value met while writing that the JS writer would type otherwise,
   * no room to run it): the caller then runs the statement with `run()`.
   * Otherwise as `streamLines`: the statement's own errors reject, and the
   * time limit, the abort signal and `close()` stop it. It resolves only
   * once the file is complete: a `stream=true` download, whose headers go
   * before the file is written, keeps the JS writer (ADR 0021).
   */
  streamParquet?(request: RunRequest, options: ParquetOptions): Promise<ParquetStream | null>;
}

/**
 * A document database's read: a find on one collection. Parameters are
 * already bound into `filter` as values (services/documents/bind.ts); nothing
 * here is text to splice.
 */
export interface DocumentQuery {
  collection: string;
  filter: Record<string, unknown>;
  projection: Record<string, unknown> | null;
  sort: Record<string, unknown> | null;
  skip: number;
  /** 0: no limit. */
  limit: number;
}

export interface DocumentRequest extends Pick<RunRequest, 'timeoutMs' | 'signal' | 'batchSize'> {
  /** The find to run, in the connection's database. */
  query: DocumentQuery;
}

/**
 * One document: its top-level fields in the order stored, each as the value
 * model holds it (nested documents and arrays as `JsonValue`, their leaves
 * converted the same way). A list of pairs, so no field name is special.
 */
export type DocumentFields = Array<[string, Value]>;

/** A running find: batches of documents; `columns` is empty (documents carry their own fields). */
export type DocumentCursor = Cursor<DocumentFields[]>;

/** A document database's way in: reads through `find`, never SQL. */
export interface DocumentDriver extends ConnectionDriver {
  readonly type: 'mongodb';
  /**
   * Starts a find and resolves once the server answered its first batch, so
   * errors before the first document reach the client as JSON. The time limit
   * is the server's own (`maxTimeMS`) and a client-side cancel; the abort
   * signal and `close()` end the server's cursor.
   */
  find(request: DocumentRequest): Promise<DocumentCursor>;
  /** The distinct values of one field in a collection (a parameter's `values_field`), under the server's time limit. */
  distinct(request: { collection: string; field: string; timeoutMs: number }): Promise<Value[]>;
}

/** Any connection type's driver. */
export type AnyDriver = Driver | DocumentDriver;

/** True for drivers that run SQL. */
export const runsSql = (driver: AnyDriver): driver is Driver => driver.type !== 'mongodb';
