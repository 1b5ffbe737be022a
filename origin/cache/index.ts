import type { Logger } from '../observability/logger.ts';
import type { Env } from '../env.ts';
import { MemoryCache } from './memory.ts';
import { redisClient } from '../redis/client.ts';
import { RedisCache } from './redis.ts';
import type { ResponseCache } from './response-cache.ts';

export type { CacheEntry, CacheEntryInfo, CacheMeta, CachedResponse, ResponseCache } from './response-cache.ts';

/** Redis when `SLUICE_REDIS_URL` is set (shared by every origin on it), else process memory. */
export async function createCache(
  env: Pick<Env, 'SLUICE_REDIS_URL' | 'SLUICE_REDIS_PREFIX' | 'SLUICE_CACHE_MAX_BYTES'>,
  logger: Pick<Logger, 'info' | 'warn'>,
): Promise<ResponseCache> {
  if (env.SLUICE_REDIS_URL) {
    return new RedisCache({ redis: await redisClient(env.SLUICE_REDIS_URL), prefix: env.SLUICE_REDIS_PREFIX, maxEntryBytes: env.SLUICE_CACHE_MAX_BYTES, logger });
  }
  return new MemoryCache({ maxBytes: env.SLUICE_CACHE_MAX_BYTES });
}
