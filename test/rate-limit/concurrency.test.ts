import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { type Origin, startOrigin } from '../harness/origin.ts';
import { countOf, parallel } from './helpers.ts';

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
    const answers = await parallel(pair, 50, '/catalog');
    expect(countOf(answers, 200)).toBe(10);
    expect(countOf(answers, 429)).toBe(40);
    expect(remainders(answers)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    // Both origins answered some of each: the count is shared, not per process.
    const fromFirst = answers.filter((_, i) => i % 2 === 0);
    expect(countOf(fromFirst, 200) + countOf(fromFirst, 429)).toBe(25);
    // The counts live under this deployment's prefix.
    const redis = new Redis(REDIS_URL);
    expect((await redis.keys(`${prefix}ratelimit:ip:*`)).length).toBe(1);
    await redis.quit();
  });
});
