import type { Logger } from '../../observability/logger.ts';
import type { Env } from '../../env.ts';
import type { RateSpec } from '../../../shared/access/rate.ts';
import type { WindowDecision } from '../../../shared/access/window.ts';
import { MemoryRateLimiter } from './memory.ts';
import type { RedisBreaker } from '../../redis/breaker.ts';
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

/** Redis when `SLUICE_REDIS_URL` is set (`redis`: exact counts shared by every origin on it), else process memory. */
export function createRateLimiter(env: Pick<Env, 'SLUICE_REDIS_PREFIX'>, redis: RedisBreaker | null, logger: Pick<Logger, 'warn'>): RateLimiter {
  if (redis) return new RedisRateLimiter({ redis, prefix: env.SLUICE_REDIS_PREFIX, logger });
  return new MemoryRateLimiter();
}
