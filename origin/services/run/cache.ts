import { noneMatch } from '../../../shared/etag.ts';
import { REPLAYED_HEADERS } from '../../../shared/http/replayed-headers.ts';
import type { AppDeps } from '../../deps.ts';
import { responseCacheKey, responseEtag } from '../../cache/key.ts';
import { type CacheEntry, type CacheMeta, type CachedResponse, secondsLeft } from '../../cache/response-cache.ts';
import { type RequestScope, spanOf } from '../../observability/request-context.ts';
import { RedisUnavailable } from '../../redis/breaker.ts';
import type { RowOptions } from './options.ts';
import type { PageBody } from './page-body.ts';

/** A saved-query page run, resolved and checked, about to reach the database. */
export interface CacheablePage {
  query: string;
  version: number;
  /** The version's `cache_ttl` as read for this request; 0 or null: no caching. */
  cacheTtl: number | null;
  /** The statement is one plain read: writes are never cached. */
  isRead: boolean;
  connection: string;
  params: Record<string, unknown>;
  options: RowOptions;
}

/** A page as it is answered: fresh or replayed, 304 when the client holds it already. */
export interface AnsweredPage {
  status: 200 | 304;
  /** Null for a 304. */
  body: Uint8Array | null;
  headers: Record<string, string>;
  /** Null when the page came from the cache: it was neither run nor serialised now. */
  serializationMs: number | null;
}

/** Whether a run takes part in the response cache: paged reads of a saved version with `cache_ttl > 0`. */
export const isCacheable = (page: CacheablePage): boolean => (page.cacheTtl ?? 0) > 0 && page.options.paging !== null && page.isRead;

/**
 * Answers a cacheable page through the response cache: a live entry is
 * replayed (`X-Cache: HIT`, no database, no run history); otherwise
 * `produce()` runs and its page is stored (`X-Cache: MISS`). Either way a
 * matching `If-None-Match` gets 304 with no body.
 *
 * The TTL is the version's current `cache_ttl`: an entry stored under a
 * longer one is served only until `created + current cache_ttl` (and never
 * past its own expiry). A cache that fails (Redis down) counts as a miss;
 * the run goes on.
 */
export async function cachedPage(deps: AppDeps, scope: RequestScope, target: CacheablePage, ifNoneMatch: string | undefined, produce: () => Promise<PageBody>): Promise<AnsweredPage> {
  const ttl = target.cacheTtl ?? 0;
  const paging = target.options.paging!;
  const meta: CacheMeta = {
    query: target.query,
    version: target.version,
    connection: target.connection,
    format: target.options.format,
    page: paging.page,
    page_size: paging.pageSize,
  };
  const key = responseCacheKey({ ...meta, params: target.params, pageSize: paging.pageSize, countBeyond: paging.countBeyond, maxBytes: paging.maxBytes });
  const failed = (operation: string) => (err: unknown) => {
    // An outage is logged once, by the breaker, not once per request.
    if (err instanceof RedisUnavailable) return null;
    deps.logger.warn({ ...scope, err: { message: (err as Error).message } }, `response cache ${operation} failed`);
    return null;
  };

  const lookup = spanOf(scope).child('sluice.cache', { 'sluice.cache.store': deps.cache.kind });
  const hit = await deps.cache.get(key).catch(failed('read'));
  const now = Date.now();
  const expiresAt = hit ? Math.min(hit.expiresAt, hit.createdAt + ttl * 1000) : 0;
  lookup.set({ 'sluice.cache.result': expiresAt > now ? 'hit' : 'miss' });
  lookup.end();
  if (hit && expiresAt > now) return { ...replay(hit, 'HIT', secondsLeft(expiresAt, now), ifNoneMatch), serializationMs: null };

  const page = await produce();
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(page.headers)) {
    if (REPLAYED_HEADERS.includes(name.toLowerCase())) headers[name.toLowerCase()] = value;
  }
  const stored: CachedResponse = {
    body: page.body,
    contentType: page.headers['Content-Type'] ?? 'application/octet-stream',
    etag: responseEtag(page.body),
    headers,
    meta,
  };
  // Awaited so the next request (here or on another origin) finds it.
  await deps.cache.set(key, stored, ttl).catch(failed('write'));
  return { ...replay(stored, 'MISS', ttl, ifNoneMatch), serializationMs: page.serializationMs };
}

function replay(entry: CachedResponse | CacheEntry, outcome: 'HIT' | 'MISS', maxAge: number, ifNoneMatch: string | undefined): Omit<AnsweredPage, 'serializationMs'> {
  const headers: Record<string, string> = {
    ETag: entry.etag,
    'Cache-Control': `private, max-age=${maxAge}`,
    'X-Cache': outcome,
  };
  if (noneMatch(ifNoneMatch, entry.etag)) return { status: 304, body: null, headers };
  return { status: 200, body: entry.body, headers: { ...entry.headers, ...headers, 'Content-Type': entry.contentType } };
}
