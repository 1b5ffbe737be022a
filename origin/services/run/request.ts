import type { BudgetLeft } from '../../../shared/access/budget.ts';
import type { Caller } from '../../access/caller.ts';
import type { RequestScope } from '../../observability/request-context.ts';
import type { StreamRun } from './engine.ts';
import type { RowOptions } from './options.ts';
import type { RunLabel } from './record.ts';

/** Ad-hoc SQL (`POST /execute_sql`, MCP `execute_sql`). */
export interface SqlSource {
  kind: 'sql';
  sql: string;
  params: Record<string, unknown>;
  connection: string;
}

/** An ad-hoc find (`POST /execute_mongo`); its parts are checked by the run. */
export interface FindSource {
  kind: 'find';
  connection: string;
  collection: unknown;
  filter: unknown;
  projection: unknown;
  sort: unknown;
  skip: number;
  limit: number;
  params: Record<string, unknown>;
}

/** A saved query's version (`/q/<name>`, an MCP query tool, an export): SQL or a find, as the version says. */
export interface SavedSource {
  kind: 'saved';
  name: string;
  /** Absent: the published version. */
  version?: number;
  /** The request's connection; wins over the version's saved default. */
  connection?: string;
  /** Parameter values as supplied: text from a query string, typed values from JSON. */
  supplied: Record<string, unknown>;
  source: 'query' | 'json';
  /** Parameter problems the transport found itself (a repeated argument), listed with the rest. */
  problems?: Record<string, string>;
  /** The sign-in token the request presented; `from_claim` parameters take their values from its claims only. */
  signInToken?: string;
  /** Only SQL versions may run (an export). */
  sqlOnly?: boolean;
}

export type RunSource = SqlSource | FindSource | SavedSource;

/**
 * One run, as every transport asks for it: who, what, how the rows are
 * wanted, and what the transport is (recorded in history: `http` is `http`
 * for a page and `stream` for `stream=true`).
 */
export interface RunRequest {
  caller: Caller;
  source: RunSource;
  options: RowOptions;
  transport: 'http' | 'mcp' | 'export' | 'result';
  /** Aborted when the consumer goes away (or an export's timeout or lost lease); the statement is cancelled. */
  signal: AbortSignal;
  /** The request the run is for, named in its log lines and history. */
  scope: RequestScope;
  /** Writes refused whatever the caller's grants (MCP `execute_sql`). */
  readOnly?: boolean;
  /** The client's `If-None-Match`: a cached page with that ETag answers 304. */
  ifNoneMatch?: string;
  /** What the run's history entry names besides its outcome (an export: its name and destination). */
  details?: Record<string, unknown>;
  /** An export's stream: see `Consumer`. */
  consumer?: Consumer;
}

/**
 * A consumer that reads a stream as values or takes a file (an export), got
 * ready once the run is checked and before the statement starts, so that a
 * failure to get ready is the run's failure.
 */
export interface Consumer {
  /** The values are read (an incremental export tracks its column): never the database's own lines. */
  valuesOnly?: boolean;
  /**
   * Returns where the database may write a whole parquet file itself (ADR
   * 0021), or, with `parquetChunkRows`, a folder of files of about that many
   * rows each (ADR 0030); or nothing.
   */
  ready(label: RunLabel): Promise<{ parquetPath?: string; parquetChunkRows?: number } | void>;
}

/** A page: its bytes and headers as answered (fresh or from the response cache), 304 with no body. */
export interface PageAnswer {
  kind: 'page';
  label: RunLabel;
  status: 200 | 304;
  body: Uint8Array | null;
  headers: Record<string, string>;
  /** Null when the page was replayed from the cache. */
  serializationMs: number | null;
  /** The key's day budget left when the run started; null without one. */
  budget: BudgetLeft | null;
}

/**
 * A stream: the rows (or the database's lines, or its parquet file) pulled
 * as the consumer reads; its history entry and its admission end with it.
 * A consumer that never reads it calls `run.abandon()`.
 */
export interface StreamAnswer {
  kind: 'stream';
  label: RunLabel;
  run: StreamRun;
  /** The key's day budget left when the run started; null without one. */
  budget: BudgetLeft | null;
  /**
   * An export records its run when its object is committed (or not): the
   * outcome it gives here (`error` absent: a success), with its details.
   * Other transports' streams are recorded when their rows end and never
   * call this.
   */
  settle(outcome: { error?: unknown; details?: Record<string, unknown> }): void;
}

export type RunAnswer = PageAnswer | StreamAnswer;
