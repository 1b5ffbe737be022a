/**
 * The response cache of saved-query runs: in process memory (`MemoryCache`)
 * or shared through Redis (`RedisCache`) when `SLUICE_REDIS_URL` is set.
 * Keys come from `shared/cache-key.ts`.
 */

/** What the entry is the answer to (listed, never the body). */
export interface CacheMeta {
  query: string;
  version: number;
  connection: string;
  format: string;
  page: number;
  page_size: number;
}

/** A response as it is stored. */
export interface CachedResponse {
  body: Uint8Array;
  contentType: string;
  /** Strong ETag, quoted, derived from the body's SHA-256. */
  etag: string;
  /** Response headers replayed on a hit besides the content type (paging headers, Content-Disposition). */
  headers: Record<string, string>;
  meta: CacheMeta;
}

/** A stored entry with its lifetime. Times are epoch milliseconds. */
export interface CacheEntry extends CachedResponse {
  createdAt: number;
  /** The `cache_ttl` it was stored under. */
  ttlSeconds: number;
  /** When the store drops it (never served at or after this). */
  expiresAt: number;
}

/** An entry as listed: metadata only. */
export interface CacheEntryInfo {
  key: string;
  contentType: string;
  sizeBytes: number;
  createdAt: number;
  ttlSeconds: number;
  expiresAt: number;
  meta: CacheMeta;
}

export interface ResponseCache {
  readonly kind: 'memory' | 'redis';
  /** The live entry under `key`, or null (an expired entry is never returned). */
  get(key: string): Promise<CacheEntry | null>;
  /** Stores (or replaces) the entry for `ttlSeconds` (at least 1) from now. */
  set(key: string, response: CachedResponse, ttlSeconds: number): Promise<void>;
  /** True when an entry was there. */
  delete(key: string): Promise<boolean>;
  /** Evicts every entry; answers how many there were. */
  clear(): Promise<number>;
  /** Live entries, in no particular order. */
  list(): Promise<CacheEntryInfo[]>;
  close(): Promise<void>;
}

/** Milliseconds left before `expiresAt`, as whole seconds rounded down (never claims more than is left). */
export const secondsLeft = (expiresAt: number, now: number): number => Math.max(0, Math.floor((expiresAt - now) / 1000));
