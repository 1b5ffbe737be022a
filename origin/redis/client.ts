import type { Redis } from 'ioredis';

/** A command gives up after this long: a healthy Redis answers in a millisecond or two. */
export const REDIS_COMMAND_TIMEOUT_MS = 500;
/** A connection attempt gives up after this long. */
export const REDIS_CONNECT_TIMEOUT_MS = 1_000;

/**
 * The client for `SLUICE_REDIS_URL`, shared by the response cache and the
 * rate limits through one `RedisBreaker` (breaker.ts). Timeouts are short so
 * a hung or refused Redis costs a request at most one command's timeout, and
 * only until the breaker opens. ioredis is loaded on first use: a server
 * without Redis never holds it in memory.
 */
export async function redisClient(url: string): Promise<Redis> {
  const { Redis } = await import('ioredis');
  return new Redis(url, { maxRetriesPerRequest: 1, commandTimeout: REDIS_COMMAND_TIMEOUT_MS, connectTimeout: REDIS_CONNECT_TIMEOUT_MS });
}
