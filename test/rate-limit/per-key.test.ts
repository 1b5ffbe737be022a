import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_KEY, apiKey, asAdmin, expectStatus, scopedKey } from '../access/fixtures.ts';
import { type Origin, startOrigin } from '../harness/origin.ts';
import { type FreshDatabase, freshDatabase } from '../harness/postgres-store.ts';
import { countOf, get, parallel } from './helpers.ts';
import { unique } from '../harness/unique.ts';

/** A key's own `rate_limit`, counted per key, alone and beside SLUICE_RATE_LIMIT. */

const REDIS_URL = 'redis://127.0.0.1:6379';

describe('a key with a rate_limit, no server-wide limit', () => {
  let origin: Origin;
  beforeAll(async () => {
    origin = await startOrigin({ env: { SLUICE_API_KEY: ADMIN_KEY } });
  });
  afterAll(() => origin?.stop());

  it('counts down X-RateLimit-Key-Remaining, then answers 429 with the per-key body', async () => {
    const secret = await scopedKey(origin, unique('limited'), { rate_limit: '3/minute' });
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await get(origin, '/catalog', apiKey(secret)));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 429]);
    expect(answers.map((a) => a.headers.get('x-ratelimit-key-limit'))).toEqual(['3', '3', '3', '3']);
    expect(answers.map((a) => a.headers.get('x-ratelimit-key-remaining'))).toEqual(['2', '1', '0', '0']);
    // No server-wide limit: no server-wide headers.
    expect(answers.every((a) => a.headers.get('x-ratelimit-limit') === null)).toBe(true);
    const refused = answers[3]!;
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(61);
    expect(refused.body).toEqual({ error: 'Rate limit exceeded for this API key', retry_after: retryAfter });
    expect(answers[0]!.body.caller).toMatchObject({ rate_limit: '3/minute', server_rate_limit: null });
  });

  it('limits that key only: other keys and the server key carry on', async () => {
    const limited = await scopedKey(origin, unique('one'), { rate_limit: '1/hour' });
    const free = await scopedKey(origin, unique('free'));
    expect((await get(origin, '/catalog', apiKey(limited))).status).toBe(200);
    expect((await get(origin, '/catalog', apiKey(limited))).status).toBe(429);
    const other = await get(origin, '/catalog', apiKey(free));
    expect(other.status).toBe(200);
    expect(other.headers.get('x-ratelimit-key-limit')).toBeNull();
    const admin = await get(origin, '/catalog', apiKey(ADMIN_KEY));
    expect(admin.status).toBe(200);
    expect(admin.headers.get('x-ratelimit-key-limit')).toBeNull();
  });

  it('counts both secrets of a pending rotation as one key', async () => {
    const name = unique('rotating');
    const old = await scopedKey(origin, name, { rate_limit: '4/minute' });
    const rotated = await asAdmin(origin, 'POST', `/api/v1/api-keys/${encodeURIComponent(name)}/rotate`, { grace_minutes: 60 });
    expectStatus(rotated, 200);
    const current: string = rotated.body.secret;
    const answers = [];
    for (const secret of [old, current, old, current]) answers.push(await get(origin, '/catalog', apiKey(secret)));
    expect(answers.map((a) => a.headers.get('x-ratelimit-key-remaining'))).toEqual(['3', '2', '1', '0']);
    expect((await get(origin, '/catalog', apiKey(old))).status).toBe(429);
    expect((await get(origin, '/catalog', apiKey(current))).status).toBe(429);
  });

  it('lets exactly 10 of 50 parallel requests through a limit of 10', async () => {
    const secret = await scopedKey(origin, unique('burst'), { rate_limit: '10/minute' });
    const answers = await parallel([origin], 50, '/catalog', () => apiKey(secret));
    expect(countOf(answers, 200)).toBe(10);
    expect(countOf(answers, 429)).toBe(40);
  });
});

describe('a key limit beside SLUICE_RATE_LIMIT', () => {
  let origin: Origin;
  beforeAll(async () => {
    origin = await startOrigin({ env: { SLUICE_API_KEY: ADMIN_KEY, SLUICE_RATE_LIMIT: '5/minute', SLUICE_TRUST_PROXY: '1' } });
  });
  afterAll(() => origin?.stop());

  it('checks both and sends both pairs of headers', async () => {
    const from = { 'x-forwarded-for': '198.51.100.20' };
    const limited = await scopedKey(origin, unique('both'), { rate_limit: '3/minute' });
    const free = await scopedKey(origin, unique('nolimit'));
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await get(origin, '/catalog', { ...from, ...apiKey(limited) }));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 429]);
    expect(answers.map((a) => a.headers.get('x-ratelimit-remaining'))).toEqual(['4', '3', '2', '1']);
    expect(answers.map((a) => a.headers.get('x-ratelimit-key-remaining'))).toEqual(['2', '1', '0', '0']);
    expect(answers[3]!.body.error).toBe('Rate limit exceeded for this API key');
    // The address has one request left under the server-wide limit, whatever key it uses.
    expect((await get(origin, '/catalog', { ...from, ...apiKey(free) })).status).toBe(200);
    const refused = await get(origin, '/catalog', { ...from, ...apiKey(free) });
    expect(refused.status).toBe(429);
    expect(refused.body.error).toBe('Rate limit exceeded');
    expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
  });

  it('counts requests with wrong keys against the address', async () => {
    const from = { 'x-forwarded-for': '198.51.100.21' };
    const statuses = [];
    for (let i = 0; i < 6; i++) statuses.push((await get(origin, '/catalog', { ...from, ...apiKey(`slc_wrong${i}`) })).status);
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429]);
  });
});

describe('a key limit on two origins sharing a store and Redis', () => {
  let database: FreshDatabase;
  const origins: Origin[] = [];
  const prefix = `sluice-test-${randomBytes(4).toString('hex')}:`;
  beforeAll(async () => {
    database = await freshDatabase();
    const env = { SLUICE_API_KEY: ADMIN_KEY, SLUICE_DATABASE_URL: database.url, SLUICE_REDIS_URL: REDIS_URL, SLUICE_REDIS_PREFIX: prefix };
    // One after the other: the first migrates the store.
    origins.push(await startOrigin({ env }));
    origins.push(await startOrigin({ env }));
  });
  afterAll(async () => {
    await Promise.all(origins.map((o) => o.stop()));
    await database?.drop();
    const redis = new Redis(REDIS_URL);
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  });

  it('lets exactly 10 of 50 parallel requests through a limit of 10, across both', async () => {
    const secret = await scopedKey(origins[0]!, unique('shared'), { rate_limit: '10/minute' });
    const answers = await parallel(origins, 50, '/catalog', () => apiKey(secret));
    // Unshared counts would let 20 through; an origin that did not know the key would answer 401s.
    expect(countOf(answers, 200)).toBe(10);
    expect(countOf(answers, 429)).toBe(40);
    const remaining = answers.filter((a) => a.status === 200).map((a) => Number(a.headers.get('x-ratelimit-key-remaining')));
    expect(remaining.sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });
});
