import { z } from 'zod';
import type { Env } from '../../env.ts';
import { badRequest } from '../../errors.ts';
import { FORMATS, STREAMABLE, type Format } from '../../formats/index.ts';
import type { Paging } from '../../sql/index.ts';

/** The common row-response parameters, from the query string and/or the body. */
export interface RowOptions {
  format: Format;
  /** Null with `stream=true`: the whole result is streamed. */
  paging: Paging | null;
  stream: boolean;
  /** Effective limit in milliseconds (0: none). */
  timeoutMs: number;
}

export interface RawRowOptions {
  format?: unknown;
  page?: unknown;
  page_size?: unknown;
  stream?: unknown;
  timeout?: unknown;
}

const scalarOption = z.union([z.string(), z.number(), z.boolean()]).optional();

/** The row options a JSON body may carry (`/execute_sql`, `POST /q`); validated by `parseRowOptions`. */
export const rowOptionFields = {
  format: z.string().optional(),
  timeout: scalarOption,
  page: scalarOption,
  page_size: scalarOption,
  stream: scalarOption,
};

/** `parseRowOptions` under the server's own limits. */
export const requestRowOptions = (env: Pick<Env, 'SLUICE_MAX_PAGE_SIZE' | 'SLUICE_QUERY_TIMEOUT'>, query: RawRowOptions, body: RawRowOptions) =>
  parseRowOptions(query, body, { maxPageSize: env.SLUICE_MAX_PAGE_SIZE, serverTimeoutSeconds: env.SLUICE_QUERY_TIMEOUT });

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
  limits: { maxPageSize: number; serverTimeoutSeconds: number },
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
    throw badRequest(`page_size must be at most ${limits.maxPageSize}`);
  }

  return {
    format,
    stream,
    paging: stream ? null : { page: page ?? 1, pageSize: pageSize ?? 10 },
    timeoutMs: effectiveTimeoutMs(pick('timeout'), limits.serverTimeoutSeconds),
  };
}

function effectiveTimeoutMs(raw: unknown, serverSeconds: number): number {
  const server = serverSeconds * 1000;
  if (raw === undefined || raw === null || raw === '') return server;
  const seconds = typeof raw === 'number' ? raw : /^\d+(\.\d+)?$/.test(String(raw)) ? Number(raw) : NaN;
  if (!Number.isFinite(seconds) || seconds <= 0) throw badRequest('timeout must be a positive number of seconds');
  const requested = Math.ceil(seconds * 1000);
  return server === 0 ? requested : Math.min(server, requested);
}
