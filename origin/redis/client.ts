import type { Redis } from 'ioredis';

/**
 * A client for `SLUICE_REDIS_URL` (the response cache and the rate limits
 * each hold one): a failing command gives up after one retry and 2 s, so a
 * Redis outage degrades a request instead of stalling it. ioredis is loaded
 * on first use: a server without Redis never holds it in memory.
 */
export async function redisClient(url: string): Promise<Redis> {
  const { Redis } = await import('ioredis');
  return new Redis(url, { maxRetriesPerRequest: 1, commandTimeout: 2_000, connectTimeout: 5_000 });
}
