import { createHash } from 'node:crypto';
import { type CacheKeyParts, cacheKeyText } from '../../shared/cache-key.ts';

/**
 * The response-cache key and ETag on the origin: the very values of
 * `shared/cache-key.ts` and `shared/etag.ts` (the edge derives them with Web
 * Crypto), hashed synchronously with node:crypto. Web Crypto's digest is a
 * promise settled through the thread pool: on a cache hit that was the
 * largest single cost of the request.
 */
export function responseCacheKey(parts: CacheKeyParts): string {
  return createHash('sha256').update(cacheKeyText(parts)).digest('hex');
}

/** Strong ETag of a stored body: its SHA-256, quoted. */
export function responseEtag(body: Uint8Array): string {
  return `"${createHash('sha256').update(body).digest('hex')}"`;
}
