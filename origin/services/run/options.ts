import { z } from 'zod';
import type { Env } from '../../env.ts';
import { badRequest } from '../../errors.ts';
import type { Caller } from '../../access/caller.ts';
import { FORMATS, STREAMABLE, type Format } from '../../formats/index.ts';
import type { Paging } from '../../sql/index.ts';
import { MAX_TIMEOUT_SECONDS } from '../../../shared/access/grants-input.ts';

/** The common row-response parameters, from the query string and/or the body. */
export interface RowOptions {
  format: Format;
  /** Null with `stream=true`: the whole result is streamed. */
  paging: Paging | null;
  stream: boolean;
  /** Effective limit in milliseconds (0: none). */
  timeoutMs: number;
  /** Rows a stream ends at: the lower of SLUICE_STREAM_MAX_ROWS and the key's max_rows; undefined: unbounded. */
  streamMaxRows?: number;
  /** What sets `streamMaxRows`, for the warning when a stream is cut. */
  streamCap?: 'SLUICE_STREAM_MAX_ROWS' | 'max_rows';
  /** `dry_run=true`: everything is checked and the engine's planner asked, nothing runs (services/run/dry-run.ts). */
  dryRun?: boolean;
}

/** The limits a request's options are checked against: the server's, lowered by the caller's key. */
export interface RowLimits {
  maxPageSize: number;
  /** Why `maxPageSize` is what it is, for the 400 (the server's setting, or the key's max_rows). */
  pageSizeSource?: string;
  /** Seconds, 0: none. */
  serverTimeoutSeconds: number;
  streamMaxRows?: number;
  streamCap?: 'SLUICE_STREAM_MAX_ROWS' | 'max_rows';
}

export interface RawRowOptions {
  format?: unknown;
  page?: unknown;
  page_size?: unknown;
  stream?: unknown;
  timeout?: unknown;
  dry_run?: unknown;
}

const scalarOption = z.union([z.string(), z.number(), z.boolean()]).optional();

/** The row options a JSON body may carry (`/execute_sql`, `POST /q`); validated by `parseRowOptions`. */
export const rowOptionFields = {
  format: z.string().optional(),
  timeout: scalarOption,
  page: scalarOption,
  page_size: scalarOption,
  stream: scalarOption,
  dry_run: scalarOption,
};

type LimitEnv = Pick<Env, 'SLUICE_MAX_PAGE_SIZE' | 'SLUICE_QUERY_TIMEOUT' | 'SLUICE_STREAM_MAX_ROWS'>;

/**
 * The server's limits lowered by a key's own: `max_rows` caps a page's size
 * (a larger `page_size` is a 400, as past SLUICE_MAX_PAGE_SIZE) and a stream
 * (cut there, as at SLUICE_STREAM_MAX_ROWS); `query_timeout` lowers
 * SLUICE_QUERY_TIMEOUT (or sets one when the server has none). A key never
 * raises a server limit.
 */
export function rowLimits(env: LimitEnv, caller?: Pick<Caller, 'key'>): RowLimits {
  const grants = caller?.key?.grants;
  const maxRows = grants?.max_rows ?? null;
  const keyPages = maxRows !== null && maxRows < env.SLUICE_MAX_PAGE_SIZE;
  const keyStream = maxRows !== null && (env.SLUICE_STREAM_MAX_ROWS === undefined || maxRows < env.SLUICE_STREAM_MAX_ROWS);
  const keyTimeout = grants?.query_timeout ?? null;
  const server = env.SLUICE_QUERY_TIMEOUT;
  return {
    maxPageSize: keyPages ? maxRows! : env.SLUICE_MAX_PAGE_SIZE,
    pageSizeSource: keyPages ? "this API key's max_rows" : undefined,
    serverTimeoutSeconds: keyTimeout === null ? server : server === 0 ? keyTimeout : Math.min(server, keyTimeout),
    streamMaxRows: keyStream ? maxRows! : env.SLUICE_STREAM_MAX_ROWS,
    streamCap: keyStream ? 'max_rows' : env.SLUICE_STREAM_MAX_ROWS === undefined ? undefined : 'SLUICE_STREAM_MAX_ROWS',
  };
}

/** `parseRowOptions` under the server's limits, lowered by the caller's key when it has one. */
export const requestRowOptions = (env: LimitEnv, query: RawRowOptions, body: RawRowOptions, caller?: Pick<Caller, 'key'>) =>
  parseRowOptions(query, body, rowLimits(env, caller));

const DEFAULT_PAGE_SIZE = 10;

const positiveWhole = (name: string, raw: unknown): number | undefined => {
  if (raw === undefined || raw === null || raw === '') return undefined;
  const text = String(raw);
  if (!/^\d+$/.test(text) || Number(text) < 1) throw badRequest(`${name} must be a whole number of at least 1`);
  return Number(text);
};

const booleanText = (name: string, raw: unknown): boolean => {
  if (raw === undefined || raw === null || raw === '' || raw === false || raw === 'false' || raw === '0') return false;
  if (raw === true || raw === 'true' || raw === '1') return true;
  throw badRequest(`${name} must be true or false`);
};

/**
 * Validates the row options. The query string wins over the body where both
 * carry one. A request's `timeout` may only lower the server's limit.
 */
export function parseRowOptions(
  query: RawRowOptions,
  body: RawRowOptions,
  limits: RowLimits,
): RowOptions {
  const pick = (field: keyof RawRowOptions) => query[field] ?? body[field];

  const formatRaw = pick('format') ?? 'json';
  if (typeof formatRaw !== 'string' || !(FORMATS as readonly string[]).includes(formatRaw)) {
    throw badRequest(`Unknown format "${String(formatRaw)}"; use one of ${FORMATS.join(', ')}`);
  }
  const format = formatRaw as Format;

  const stream = booleanText('stream', pick('stream'));
  const page = positiveWhole('page', pick('page'));
  const pageSize = positiveWhole('page_size', pick('page_size'));
  if (stream) {
    if (page !== undefined || pageSize !== undefined) throw badRequest('page and page_size cannot be combined with stream=true');
    if (!STREAMABLE.has(format)) {
      throw badRequest(`format ${format} cannot be streamed; use one of ${[...STREAMABLE].join(', ')}`);
    }
  }
  if (pageSize !== undefined && pageSize > limits.maxPageSize) {
    throw badRequest(`page_size must be at most ${limits.maxPageSize}${limits.pageSizeSource ? ` (${limits.pageSizeSource})` : ''}`);
  }

  return {
    format,
    stream,
    paging: stream ? null : { page: page ?? 1, pageSize: pageSize ?? Math.min(DEFAULT_PAGE_SIZE, limits.maxPageSize) },
    timeoutMs: effectiveTimeoutMs(pick('timeout'), limits.serverTimeoutSeconds),
    streamMaxRows: stream ? limits.streamMaxRows : undefined,
    streamCap: stream ? limits.streamCap : undefined,
    dryRun: booleanText('dry_run', pick('dry_run')),
  };
}

function effectiveTimeoutMs(raw: unknown, serverSeconds: number): number {
  const server = serverSeconds * 1000;
  if (raw === undefined || raw === null || raw === '') return server;
  const seconds = typeof raw === 'number' ? raw : /^\d+(\.\d+)?$/.test(String(raw)) ? Number(raw) : NaN;
  // Bounded: past ~24.8 days a Node timer fires at once.
  if (!(seconds > 0 && seconds <= MAX_TIMEOUT_SECONDS)) throw badRequest(`timeout must be a positive number of seconds, at most ${MAX_TIMEOUT_SECONDS}`);
  const requested = Math.ceil(seconds * 1000);
  return server === 0 ? requested : Math.min(server, requested);
}
