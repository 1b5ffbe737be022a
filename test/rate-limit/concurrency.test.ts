import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { type Origin, startOrigin } from '../harness/origin.ts';
import { countOf, get, parallel } from './helpers.ts';

const REDIS_URL = 'redis://127.0.0.1:6379';

/** The `X-RateLimit-Remaining` values of the successes: each of N-1..0 exactly once when counting is atomic. */
const remainders = (answers: Awaited<ReturnType<typeof parallel>>) =>
  answers
    .filter((a) => a.status === 200)
    .map((a) => Number(a.headers.get('x-ratelimit-remaining')))
    .sort((a, b) => a - b);

describe('50 parallel requests against a limit of 10', () => {
  const origins: Origin[] = [];
  const prefix = `sluice-test-${randomBytes(4).toString('hex')}:`;
  afterAll(async () => {
    await Promise.all(origins.map((o) => o.stop()));
    const redis = new Redis(REDIS_URL);
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  });

  it('give exactly 10 successes on one origin (memory), forwarded-for headers ignored without a trusted proxy', async () => {
    const origin = await startOrigin({ env: { SLUICE_RATE_LIMIT: '10/minute' } });
    origins.push(origin);
    // Without SLUICE_TRUST_PROXY a client cannot pose as fifty addresses.
    const answers = await parallel([origin], 50, '/catalog', (i) => ({ 'x-forwarded-for': `192.0.2.${i + 1}` }));
    expect(countOf(answers, 200)).toBe(10);
    expect(countOf(answers, 429)).toBe(40);
    expect(remainders(answers)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it('give exactly 10 successes across two origins sharing Redis', async () => {
    const env = { SLUICE_RATE_LIMIT: '10/minute', SLUICE_REDIS_URL: REDIS_URL, SLUICE_REDIS_PREFIX: prefix };
    const pair = await Promise.all([startOrigin({ env }), startOrigin({ env })]);
    origins.push(...pair);
    // One request to each first: both let one through, and the second counts on from the first's count.
    const first = await get(pair[0], '/catalog');
    const second = await get(pair[1], '/catalog');
    expect([first.status, second.status]).toEqual([200, 200]);
    expect([first.headers.get('x-ratelimit-remaining'), second.headers.get('x-ratelimit-remaining')]).toEqual(['9', '8']);
    // Then 48 at once, 24 to each: exactly the 8 left succeed, so both origins refuse some too.
    const burst = await parallel(pair, 48, '/catalog');
    const answers = [first, second, ...burst];
    expect(countOf(answers, 200)).toBe(10);
    expect(countOf(answers, 429)).toBe(40);
    expect(remainders(answers)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    // The counts live under this deployment's prefix.
    const redis = new Redis(REDIS_URL);
    expect((await redis.keys(`${prefix}ratelimit:ip:*`)).length).toBe(1);
    await redis.quit();
  });
});
