import type { Context } from 'hono';
import type { AppEnv } from './context.ts';
import { requestScopeOf } from './request-scope.ts';
import type { RunInput } from '../services/run/run-sql.ts';
import { noneMatch } from '../../shared/etag.ts';
import { REPLAYED_HEADERS } from '../../shared/http/replayed-headers.ts';
import { responseCacheKey, responseEtag } from '../cache/key.ts';
import { RedisUnavailable } from '../redis/breaker.ts';
import { type CacheEntry, type CacheMeta, type CachedResponse, secondsLeft } from '../cache/response-cache.ts';

/** A saved-query run, resolved and checked, about to reach the database. */
export interface CacheableRun {
  query: string;
  version: number;
  /** The version's `cache_ttl` as read for this request; 0 or null: no caching. */
  cacheTtl: number | null;
  /** The statement is one plain read: writes are never cached. */
  isRead: boolean;
  input: Pick<RunInput, 'params' | 'connection' | 'options'>;
}

/**
 * Answers a saved-query run through the response cache: a live entry is
 * replayed (`X-Cache: HIT`, no database, no run history); otherwise `run()`
 * answers and a 200 is stored (`X-Cache: MISS`). Either way a matching
 * `If-None-Match` gets 304 with no body.
 *
 * Only paged runs of read SQL whose version has `cache_ttl > 0` take part;
 * anything else is just `run()`, with no caching headers. The TTL is the
 * version's current `cache_ttl`: an entry stored under a longer one is served
 * only until `created + current cache_ttl` (and never past its own expiry).
 * A cache that fails (Redis down) counts as a miss; the request still runs.
 */
export async function respondCached(c: Context<AppEnv>, target: CacheableRun, run: () => Promise<Response>): Promise<Response> {
  const ttl = target.cacheTtl ?? 0;
  const paging = target.input.options.paging;
  if (ttl <= 0 || paging === null || !target.isRead) return run();

  const { cache, logger } = c.get('deps');
  const meta: CacheMeta = {
    query: target.query,
    version: target.version,
    connection: target.input.connection,
    format: target.input.options.format,
    page: paging.page,
    page_size: paging.pageSize,
  };
  const key = responseCacheKey({ ...meta, params: target.input.params, pageSize: paging.pageSize, countBeyond: paging.countBeyond, maxBytes: paging.maxBytes });
  const failed = (operation: string) => (err: unknown) => {
    // An outage is logged once, by the breaker, not once per request.
    if (err instanceof RedisUnavailable) return null;
    logger.warn({ ...requestScopeOf(c), err: { message: (err as Error).message } }, `response cache ${operation} failed`);
    return null;
  };

  const hit = await cache.get(key).catch(failed('read'));
  if (hit) {
    const now = Date.now();
    const expiresAt = Math.min(hit.expiresAt, hit.createdAt + ttl * 1000);
    if (expiresAt > now) return replay(c, hit, 'HIT', secondsLeft(expiresAt, now));
  }

  const response = await run();
  if (response.status !== 200 || response.body === null) return response;
  const body = new Uint8Array(await response.arrayBuffer());
  const headers: Record<string, string> = {};
  for (const name of REPLAYED_HEADERS) {
    const value = response.headers.get(name);
    if (value !== null) headers[name] = value;
  }
  const stored: CachedResponse = {
    body,
    contentType: response.headers.get('content-type') ?? 'application/octet-stream',
    etag: responseEtag(body),
    headers,
    meta,
  };
  // Awaited so the next request (here or on another origin) finds it.
  await cache.set(key, stored, ttl).catch(failed('write'));
  return replay(c, stored, 'MISS', ttl);
}

function replay(c: Context<AppEnv>, entry: CachedResponse | CacheEntry, outcome: 'HIT' | 'MISS', maxAge: number): Response {
  const headers = new Headers({
    ETag: entry.etag,
    'Cache-Control': `private, max-age=${maxAge}`,
    'X-Cache': outcome,
  });
  if (noneMatch(c.req.header('if-none-match'), entry.etag)) return new Response(null, { status: 304, headers });
  for (const [name, value] of Object.entries(entry.headers)) headers.set(name, value);
  headers.set('Content-Type', entry.contentType);
  return new Response(entry.body as Uint8Array<ArrayBuffer>, { status: 200, headers });
}
