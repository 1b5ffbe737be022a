import type { Logger } from '../../observability/logger.ts';
import type { Env } from '../../env.ts';
import type { RateSpec } from '../../../shared/access/rate.ts';
import type { WindowDecision } from '../../../shared/access/window.ts';
import { MemoryRateLimiter } from './memory.ts';
import { redisClient } from '../../redis/client.ts';
import { RedisRateLimiter } from './redis.ts';

/**
 * Counts requests per subject (`ip:<address>`, `key:<id>`) in sliding
 * windows (shared/access/window.ts). A subject limited under two periods
 * keeps one count per period.
 */
export interface RateLimiter {
  readonly kind: 'memory' | 'redis';
  /** Decides one request of `subject` under `spec`, counting it when allowed. */
  hit(subject: string, spec: RateSpec): Promise<WindowDecision>;
  close(): Promise<void>;
}

/** Redis when `SLUICE_REDIS_URL` is set (exact counts shared by every origin on it), else process memory. */
export async function createRateLimiter(
  env: Pick<Env, 'SLUICE_REDIS_URL' | 'SLUICE_REDIS_PREFIX'>,
  logger: Pick<Logger, 'info' | 'warn'>,
): Promise<RateLimiter> {
  if (env.SLUICE_REDIS_URL) return new RedisRateLimiter({ redis: await redisClient(env.SLUICE_REDIS_URL), prefix: env.SLUICE_REDIS_PREFIX, logger });
  return new MemoryRateLimiter();
}
