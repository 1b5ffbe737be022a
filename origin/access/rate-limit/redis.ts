import type { Redis } from 'ioredis';
import type { Logger } from '../../observability/logger.ts';
import type { RateSpec } from '../../../shared/access/rate.ts';
import { BUCKETS, type WindowDecision } from '../../../shared/access/window.ts';
import type { RateLimiter } from './limiter.ts';
import { RATE_LIMIT_SCRIPT } from './redis-script.ts';

export interface RedisRateLimiterOptions {
  /** From `redisClient` (redis/client.ts); closed with this limiter. */
  redis: Redis;
  /** Counts live under `<prefix>ratelimit:<subject>:<window ms>`. */
  prefix: string;
  logger: Pick<Logger, 'info' | 'warn'>;
}

type ScriptRedis = Redis & { sluiceRateLimit(key: string, limit: number, windowMs: number, buckets: number, now: string): Promise<[number, number, number]> };

/**
 * Counts shared by every origin on one Redis, decided by one atomic script
 * per request (redis-script.ts) on Redis's clock.
 *
 * When Redis cannot be reached the request is let through (logged once per
 * outage): an outage of the counter store should not take the whole service
 * down with it. See docs/reference/rate-limits.md.
 */
export class RedisRateLimiter implements RateLimiter {
  readonly kind = 'redis';
  private readonly redis: ScriptRedis;
  private readonly namespace: string;
  private readonly logger: Pick<Logger, 'info' | 'warn'>;
  private healthy = true;

  constructor(options: RedisRateLimiterOptions) {
    this.namespace = `${options.prefix}ratelimit:`;
    this.logger = options.logger;
    const redis = options.redis;
    // EVALSHA, falling back to EVAL once when Redis does not hold the script yet.
    redis.defineCommand('sluiceRateLimit', { numberOfKeys: 1, lua: RATE_LIMIT_SCRIPT });
    redis.on('error', (err: Error) => this.unreachable(err));
    redis.on('ready', () => {
      if (this.healthy) return;
      this.healthy = true;
      options.logger.info('rate limits: Redis reachable again');
    });
    this.redis = redis as ScriptRedis;
  }

  private unreachable(err: Error): void {
    if (!this.healthy) return;
    this.healthy = false;
    this.logger.warn({ err: { message: err.message } }, 'rate limits: Redis unreachable; requests are not limited until it is back');
  }

  async hit(subject: string, spec: RateSpec): Promise<WindowDecision> {
    try {
      const [allowed, remaining, retryAfter] = await this.redis.sluiceRateLimit(`${this.namespace}${subject}:${spec.windowMs}`, spec.limit, spec.windowMs, BUCKETS, '');
      return { allowed: allowed === 1, limit: spec.limit, remaining, retryAfter };
    } catch (err) {
      this.unreachable(err as Error);
      return { allowed: true, limit: spec.limit, remaining: spec.limit, retryAfter: 0 };
    }
  }

  async close(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}
