import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_KEY, apiKey, asAdmin, expectStatus, scopedKey } from '../access/fixtures.ts';
import { type Origin, logsCaughtUp, startOrigin } from '../harness/origin.ts';
import { type PrivateRedis, startPrivateRedis } from '../harness/private-redis.ts';
import { type QResponse, getQ } from '../q/fixture.ts';
import { unique } from '../harness/unique.ts';

/**
 * SLUICE_REDIS_URL on a Redis of the test's own, hung (SIGSTOP: connections
 * open, nothing answers) and then killed (connections refused). Either way a
 * request with a rate-limited key on a cached saved query answers at once,
 * uncached and not limited (the documented fail-open), the outage is logged
 * once, and Redis is used again as soon as it is back.
 */

const DOWN = 'Redis unreachable';
const BACK = 'Redis reachable again';
/** Generous: an origin stalled on Redis took 3–6 s per request. */
const QUICK_MS = 1_000;

let redis: PrivateRedis;
let origin: Origin;
let secret: string;
/** A key with no limit of its own. */
let unlimited: string;
let query: string;

const countLines = (text: string) => origin.logs.filter((line) => line.includes(text)).length;

async function waitForCount(text: string, count: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (countLines(text) < count) {
    if (Date.now() > deadline) throw new Error(`fewer than ${count} lines with "${text}":\n${origin.logs.join('\n')}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

async function timed(key = secret): Promise<QResponse & { ms: number }> {
  const started = performance.now();
  const res = await getQ(origin, query, { max_id: 3 }, apiKey(key));
  return { ...res, ms: performance.now() - started };
}

/** Requests while Redis is away: each quick, 200 although over the key's limit, and never a cache hit. */
async function expectFailOpen(count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    const res = await timed();
    expect(res.status, res.text).toBe(200);
    expect(res.ms).toBeLessThan(QUICK_MS);
    expect(res.headers.get('x-cache')).not.toBe('HIT');
  }
}

beforeAll(async () => {
  redis = await startPrivateRedis();
  origin = await startOrigin({ env: { SLUICE_API_KEY: ADMIN_KEY, SLUICE_REDIS_URL: redis.url } });
  secret = await scopedKey(origin, unique('limited'), { rate_limit: '3/hour' });
  unlimited = await scopedKey(origin, unique('unlimited'));
  query = unique('outage');
  const created = await asAdmin(origin, 'POST', '/api/v1/queries', {
    name: query,
    sql: 'SELECT id, title FROM films WHERE id <= :max_id ORDER BY id',
    parameters: { max_id: 'integer' },
    connection_name: 'examples',
    cache_ttl: 300,
    publish: true,
  });
  expectStatus(created, 201);
});

afterAll(async () => {
  await origin?.stop();
  await redis?.stop();
});

describe('Redis hung, then killed', () => {
  it('counts and caches while Redis answers', async () => {
    const miss = await timed();
    expect(miss.status, miss.text).toBe(200);
    expect(miss.headers.get('x-cache')).toBe('MISS');
    expect(miss.headers.get('x-ratelimit-key-remaining')).toBe('2');
    const hit = await timed();
    expect(hit.headers.get('x-cache')).toBe('HIT');
    expect(hit.headers.get('x-ratelimit-key-remaining')).toBe('1');
  });

  it('hung: answers quickly, uncached and unlimited, logging the outage once', async () => {
    redis.hang();
    await expectFailOpen(6);
    await logsCaughtUp(origin);
    expect(countLines(DOWN)).toBe(1);
    expect(origin.logs.filter((line) => line.includes('response cache') && line.includes('failed'))).toEqual([]);
  });

  it('resumed: the background probe finds it, and the cache and the count are used again', async () => {
    redis.resume();
    await waitForCount(BACK, 1);
    expect((await timed(unlimited)).headers.get('x-cache')).toBe('HIT');
    // One request was left; a count sent before the hang timed out may have been taken since.
    const statuses = [(await timed()).status, (await timed()).status];
    expect(statuses).toContain(429);
  });

  it('killed: answers quickly, not limited, logging the new outage once', async () => {
    const before = origin.logs.length;
    await redis.kill();
    await expectFailOpen(6);
    await logsCaughtUp(origin);
    expect(countLines(DOWN)).toBe(2);
    // No warning or error per request: the outage's one line only.
    expect(origin.logs.slice(before).filter((line) => /^\S+ (WARN|ERROR) /.test(line) && !line.includes(DOWN))).toEqual([]);
  });

  it('started again: used again, with a fresh count and an empty cache', async () => {
    await redis.start();
    await waitForCount(BACK, 2);
    const miss = await timed();
    expect(miss.status, miss.text).toBe(200);
    expect(miss.headers.get('x-cache')).toBe('MISS');
    expect(miss.headers.get('x-ratelimit-key-remaining')).toBe('2');
    expect((await timed()).headers.get('x-cache')).toBe('HIT');
  });
});
