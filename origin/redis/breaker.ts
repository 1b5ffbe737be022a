import type { Redis } from 'ioredis';
import type { Logger } from '../observability/logger.ts';
import { Outage } from '../observability/outage.ts';
import { redisClient } from './client.ts';

/** While Redis is down, one background PING tries it this often. */
export const REDIS_PROBE_INTERVAL_MS = 1_000;

/** Thrown instead of reaching Redis while it is down; the outage is already logged. */
export class RedisUnavailable extends Error {
  constructor(cause?: Error) {
    super(cause ? `Redis unreachable: ${cause.message}` : 'Redis unreachable');
    this.name = 'RedisUnavailable';
  }
}

/**
 * The one Redis connection of an origin (cache and rate limits), behind a
 * circuit breaker. The first command that fails for want of Redis (timeout,
 * refused, reset) opens it: from then on every command fails at once with
 * `RedisUnavailable`, so callers take their fail-open path without waiting,
 * and a single background PING every `REDIS_PROBE_INTERVAL_MS` closes it
 * again once Redis answers. An outage is logged twice: down, then back.
 *
 * A reply error (a script or type error from a reachable Redis) is not an
 * outage: it is passed on as is.
 */
export class RedisBreaker {
  private readonly outage: Outage;

  private constructor(
    readonly redis: Redis,
    logger: Pick<Logger, 'info' | 'warn'>,
    private readonly isReplyError: (err: unknown) => boolean,
  ) {
    this.outage = new Outage({
      probe: () => redis.ping().then(() => true, () => false),
      intervalMs: REDIS_PROBE_INTERVAL_MS,
      logger,
      downMessage: 'Redis unreachable: responses run uncached and rate limits let every request through until it is back',
      backMessage: 'Redis reachable again: responses are cached and rate limits counted',
    });
    // ioredis reports each failed (re)connection here; an unlistened 'error' would be printed raw.
    redis.on('error', (err: Error) => this.trip(err));
  }

  static async open(url: string, logger: Pick<Logger, 'info' | 'warn'>): Promise<RedisBreaker> {
    const { ReplyError } = await import('ioredis');
    return new RedisBreaker(await redisClient(url), logger, (err) => err instanceof ReplyError);
  }

  /** Runs `command` on Redis, or throws `RedisUnavailable` at once while it is down. */
  async run<T>(command: (redis: Redis) => Promise<T>): Promise<T> {
    if (this.outage.down) throw new RedisUnavailable();
    try {
      return await command(this.redis);
    } catch (err) {
      if (this.isReplyError(err)) throw err;
      this.trip(err as Error);
      throw new RedisUnavailable(err as Error);
    }
  }

  async close(): Promise<void> {
    this.outage.stop();
    await this.redis.quit().catch(() => this.redis.disconnect());
  }

  private trip(err: Error): void {
    this.outage.markDown({ err: { message: err.message } });
  }
}
