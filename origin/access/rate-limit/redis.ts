import type { Redis } from 'ioredis';
import type { Logger } from '../../observability/logger.ts';
import { type RedisBreaker, RedisUnavailable } from '../../redis/breaker.ts';
import type { RateSpec } from '../../../shared/access/rate.ts';
import { BUCKETS, type WindowDecision } from '../../../shared/access/window.ts';
import type { RateLimiter } from './limiter.ts';
import { RATE_LIMIT_SCRIPT } from './redis-script.ts';

export interface RedisRateLimiterOptions {
  /** The origin's Redis connection (redis/breaker.ts), shared with the cache and closed by its owner. */
  redis: RedisBreaker;
  /** Counts live under `<prefix>ratelimit:<subject>:<window ms>`. */
  prefix: string;
  logger: Pick<Logger, 'warn'>;
}

type ScriptRedis = Redis & { sluiceRateLimit(key: string, limit: number, windowMs: number, buckets: number, now: string): Promise<[number, number, number]> };

/**
 * Counts shared by every origin on one Redis, decided by one atomic script
 * per request (redis-script.ts) on Redis's clock.
 *
 * When Redis cannot be reached the request is let through (the breaker logs
 * the outage once, and answers at once while it lasts): an outage of the
 * counter store should not take the whole service down with it. See
 * docs/reference/rate-limits.md.
 */
export class RedisRateLimiter implements RateLimiter {
  readonly kind = 'redis';
  private readonly redis: RedisBreaker;
  private readonly namespace: string;
  private readonly logger: Pick<Logger, 'warn'>;

  constructor(options: RedisRateLimiterOptions) {
    this.namespace = `${options.prefix}ratelimit:`;
    this.logger = options.logger;
    // EVALSHA, falling back to EVAL once when Redis does not hold the script yet.
    options.redis.redis.defineCommand('sluiceRateLimit', { numberOfKeys: 1, lua: RATE_LIMIT_SCRIPT });
    this.redis = options.redis;
  }

  async hit(subject: string, spec: RateSpec): Promise<WindowDecision> {
    const key = `${this.namespace}${subject}:${spec.windowMs}`;
    try {
      const [allowed, remaining, retryAfter] = await this.redis.run((redis) => (redis as ScriptRedis).sluiceRateLimit(key, spec.limit, spec.windowMs, BUCKETS, ''));
      return { allowed: allowed === 1, limit: spec.limit, remaining, retryAfter };
    } catch (err) {
      // An outage is logged once by the breaker; anything else a reachable Redis refused is worth a line.
      if (!(err instanceof RedisUnavailable)) this.logger.warn({ err: { message: (err as Error).message } }, 'rate limit: Redis refused the count; request let through');
      return { allowed: true, limit: spec.limit, remaining: spec.limit, retryAfter: 0 };
    }
  }

  /** The connection is the breaker owner's to close. */
  async close(): Promise<void> {}
}
