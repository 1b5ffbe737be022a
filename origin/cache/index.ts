import type { Env } from '../env.ts';
import { MemoryCache } from './memory.ts';
import type { RedisBreaker } from '../redis/breaker.ts';
import { RedisCache } from './redis.ts';
import type { ResponseCache } from './response-cache.ts';

export type { CacheEntry, CacheEntryInfo, CacheMeta, CachedResponse, ResponseCache } from './response-cache.ts';

/** Redis when `SLUICE_REDIS_URL` is set (`redis`: shared by every origin on it), else process memory. */
export function createCache(env: Pick<Env, 'SLUICE_REDIS_PREFIX' | 'SLUICE_CACHE_MAX_BYTES'>, redis: RedisBreaker | null): ResponseCache {
  if (redis) return new RedisCache({ redis, prefix: env.SLUICE_REDIS_PREFIX, maxEntryBytes: env.SLUICE_CACHE_MAX_BYTES });
  return new MemoryCache({ maxBytes: env.SLUICE_CACHE_MAX_BYTES });
}
