import { createHash } from 'node:crypto';
import type { RunDialect } from '../drivers/types.ts';
import type { AppDeps } from '../deps.ts';
import { memoByText } from '../text-memo.ts';
import { countPushdownStream, observeSerialization, queryFinished, queryStarted } from './metrics.ts';
import { type RequestScope, spanOf } from './request-context.ts';
import { type QueryPlace, startQuerySpan } from './tracing/query-span.ts';
import { errorCode } from './tracing/span.ts';

export interface QueryStart {
  connection: string;
  dialect: RunDialect;
  /** The statement as the client or the saved query gave it (hashed, never logged). */
  sql: string;
  /** Null for `stream=true`: the whole result. */
  paging: { page: number; pageSize: number } | null;
  timeoutMs: number;
  /** The connection's server and the saved query, for the query span. */
  place?: QueryPlace;
}

export interface QueryEnd {
  ok: boolean;
  rows: number;
  /** Streams: cut at SLUICE_STREAM_MAX_ROWS. */
  capped?: boolean;
  /** What failed it, when known: its code goes on the query span. */
  error?: unknown;
}

/** One running statement's log lines and metrics. */
export interface ObservedQuery {
  /** The request the statement runs for, for lines written after the handler returned. */
  scope: RequestScope;
  /** Call exactly once, when the statement's rows are all read (or it failed). */
  end(outcome: QueryEnd): void;
}

/**
 * Logs the `query` line as a statement starts (`connection`, `dialect`,
 * `limit`, `offset`, `timeout` in seconds, `sql_hash`: SHA-256 of the SQL,
 * never the SQL or its values) and, at its end, counts it in the metrics and
 * warns when it took at least SLUICE_SLOW_QUERY_THRESHOLD seconds, every
 * line naming the request it runs for (`scope`): a stream ends after it.
 * Its span, under the request's, lasts as long.
 */
export function observeQuery(deps: Pick<AppDeps, 'env' | 'logger'>, scope: RequestScope, start: QueryStart): ObservedQuery {
  const fields = {
    logger: 'sluice.query',
    ...scope,
    connection: start.connection,
    dialect: start.dialect,
    limit: start.paging?.pageSize ?? null,
    offset: start.paging ? (start.paging.page - 1) * start.paging.pageSize : null,
    timeout: start.timeoutMs / 1000,
    sql_hash: sqlHash(start.sql),
  };
  deps.logger.info(fields, 'query');
  const span = startQuerySpan(spanOf(scope), { dialect: start.dialect, text: start.sql, withText: deps.env.SLUICE_OTEL_SQL_TEXT, ...start.place });
  queryStarted();
  const t0 = performance.now();
  let ended = false;
  return {
    scope,
    end(outcome) {
      if (ended) return;
      ended = true;
      const ms = performance.now() - t0;
      span.set({ 'db.response.returned_rows': outcome.rows });
      if (!outcome.ok) span.fail(errorCode(outcome.error));
      span.end();
      queryFinished({
        connection: start.connection,
        dialect: start.dialect,
        status: outcome.ok ? 'success' : 'error',
        key: scope.key,
        seconds: ms / 1000,
        rows: outcome.rows,
        traceId: span.sampled ? span.traceId : undefined,
      });
      if (start.paging === null && outcome.ok) countPushdownStream(outcome.capped ? 'truncated' : 'success');
      const threshold = deps.env.SLUICE_SLOW_QUERY_THRESHOLD;
      if (threshold > 0 && ms >= threshold * 1000) {
        deps.logger.warn({ ...fields, duration_ms: Math.round(ms * 100) / 100 }, `slow query: at least ${threshold} s`);
      }
    },
  };
}

/** Saved queries and clients run the same few texts over and over: each is hashed once. */
const sqlHash = memoByText((sql) => createHash('sha256').update(sql).digest('hex'));

/** A page was serialised: the `serialization_duration_seconds` metric; the rounded time for the access line's `serialization_ms`. */
export function pageSerialized(format: string, ms: number): number {
  observeSerialization(format, ms / 1000);
  return Math.round(ms * 100) / 100;
}
