import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryRateLimiter } from '../../origin/access/rate-limit/memory.ts';
import { RedisRateLimiter } from '../../origin/access/rate-limit/redis.ts';
import { RedisBreaker } from '../../origin/redis/breaker.ts';
import { RATE_LIMIT_SCRIPT } from '../../origin/access/rate-limit/redis-script.ts';
import { parseRate } from '../../shared/access/rate.ts';
import { BUCKETS, consume, stateLifetimeMs, type WindowState } from '../../shared/access/window.ts';

const REDIS_URL = 'redis://127.0.0.1:6379';
const rate = (text: string) => parseRate(text)!;
const T0 = 1_750_000_020_000;

describe('the Redis script', () => {
  let redis: Redis;
  const prefix = `sluice-test-${randomBytes(4).toString('hex')}:`;
  beforeAll(() => {
    redis = new Redis(REDIS_URL);
  });
  afterAll(async () => {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  });

  it('decides exactly as the shared window arithmetic, request after request', async () => {
    let seed = 11;
    const random = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
    for (const text of ['4/second', '9/minute', '3/hour']) {
      const spec = rate(text);
      const key = `${prefix}${text}`;
      let state: WindowState = [];
      let t = T0;
      for (let i = 0; i < 400; i++) {
        t += random() < 0.85 ? Math.floor(random() * spec.windowMs * 0.05) : Math.floor(random() * spec.windowMs * 0.6);
        const expected = consume(state, spec, t);
        state = expected.state;
        const got = (await redis.eval(RATE_LIMIT_SCRIPT, 1, key, spec.limit, spec.windowMs, BUCKETS, String(t))) as number[];
        expect({ i, allowed: got[0] === 1, remaining: got[1], retryAfter: got[2] }).toEqual({
          i,
          allowed: expected.decision.allowed,
          remaining: expected.decision.remaining,
          retryAfter: expected.decision.retryAfter,
        });
      }
      // Only live slots stay stored.
      const stored = await redis.hgetall(key);
      expect(Object.keys(stored).length).toBeLessThanOrEqual(BUCKETS + 1);
    }
  });

  it('stores the count under the prefix with an expiry of the window plus one slot', async () => {
    const logger = pino({ level: 'silent' });
    const connection = await RedisBreaker.open(REDIS_URL, logger);
    const limiter = new RedisRateLimiter({ redis: connection, prefix, logger });
    const spec = rate('5/minute');
    const first = await limiter.hit('ip:192.0.2.7', spec);
    expect(first).toEqual({ allowed: true, limit: 5, remaining: 4, retryAfter: 0 });
    const key = `${prefix}ratelimit:ip:192.0.2.7:60000`;
    const ttl = await redis.pttl(key);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(stateLifetimeMs(spec));
    expect(Object.values(await redis.hgetall(key))).toEqual(['1']);
    await connection.close();
  });

  it('lets requests through while Redis cannot be reached', async () => {
    const logger = pino({ level: 'silent' });
    const connection = await RedisBreaker.open('redis://127.0.0.1:1', logger);
    const limiter = new RedisRateLimiter({ redis: connection, prefix, logger });
    const spec = rate('1/minute');
    const decisions = [await limiter.hit('ip:x', spec), await limiter.hit('ip:x', spec)];
    expect(decisions.map((d) => d.allowed)).toEqual([true, true]);
    await connection.close();
  });
});

describe('the memory limiter', () => {
  it('forgets subjects once their requests have left the window', async () => {
    let now = T0;
    const limiter = new MemoryRateLimiter({ now: () => now, sweepIntervalMs: 1000 });
    const spec = rate('2/second');
    for (let i = 0; i < 50; i++) await limiter.hit(`ip:10.0.0.${i}`, spec);
    expect(limiter.size).toBe(50);
    now += stateLifetimeMs(spec);
    await limiter.hit('ip:10.0.1.1', spec);
    expect(limiter.size).toBe(1);
  });

  it('keeps a subject whose requests still count, and keeps counting it', async () => {
    let now = T0;
    const limiter = new MemoryRateLimiter({ now: () => now, sweepIntervalMs: 1000 });
    const spec = rate('2/minute');
    await limiter.hit('key:1', spec);
    await limiter.hit('key:1', spec);
    now += 30_000;
    const third = await limiter.hit('key:1', spec);
    expect(third.allowed).toBe(false);
    expect(limiter.size).toBe(1);
  });

  it('holds at most maxSubjects, forgetting the least recently seen', async () => {
    const limiter = new MemoryRateLimiter({ maxSubjects: 3 });
    const spec = rate('1/hour');
    for (const subject of ['a', 'b', 'c']) await limiter.hit(subject, spec);
    // `a` is seen again (refused), so `b` is now the least recently seen.
    expect((await limiter.hit('a', spec)).allowed).toBe(false);
    await limiter.hit('d', spec);
    expect(limiter.size).toBe(3);
    expect((await limiter.hit('a', spec)).allowed).toBe(false);
    expect((await limiter.hit('b', spec)).allowed).toBe(true);
  });

  it('counts one subject separately per period', async () => {
    const limiter = new MemoryRateLimiter();
    expect((await limiter.hit('key:9', rate('1/second'))).allowed).toBe(true);
    expect((await limiter.hit('key:9', rate('1/minute'))).allowed).toBe(true);
    expect((await limiter.hit('key:9', rate('1/minute'))).allowed).toBe(false);
  });
});
