import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Origin, startOrigin } from '../harness/origin.ts';
import { getQ, postQ, requestIdOf, wasRecorded } from '../q/fixture.ts';
import { REDIS_URL, expectFresh, expectHit, runPrefix } from './fixture.ts';
import { unique } from '../harness/unique.ts';

/**
 * Two origins on one Redis (SLUICE_REDIS_URL) share the response cache. Each
 * origin has its own store, so the same query is created on both (same name,
 * version 1, same connection: the same key). The run keys under its own
 * SLUICE_REDIS_PREFIX so parallel runs never meet.
 */

let a: Origin;
let b: Origin;
const prefix = runPrefix('shared');
const name = unique('shared');

beforeAll(async () => {
  const env = { SLUICE_REDIS_URL: REDIS_URL, SLUICE_REDIS_PREFIX: prefix };
  [a, b] = await Promise.all([startOrigin({ env }), startOrigin({ env })]);
  for (const origin of [a, b]) {
    const res = await origin.call('POST', '/api/v1/queries', {
      name,
      sql: 'SELECT id, title, now() AS served_at FROM films WHERE id <= :max_id ORDER BY id',
      parameters: { max_id: 'integer' },
      connection_name: 'examples',
      cache_ttl: 120,
      publish: true,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
  }
});

afterAll(async () => {
  await a?.call('DELETE', '/api/v1/cache/entries');
  await Promise.all([a?.stop(), b?.stop()]);
});

describe('SLUICE_REDIS_URL', () => {
  it('origin A misses and fills; origin B hits with the same body and ETag, and records no run', async () => {
    const miss = await getQ(a, name, { max_id: 3 });
    expectFresh(miss, 120);
    const hit = await getQ(b, name, { max_id: 3 });
    expectHit(hit, miss);
    expectHit(await postQ(b, name, { params: { max_id: 3 } }), miss);
    const notModified = await getQ(b, name, { max_id: 3 }, { 'if-none-match': miss.headers.get('etag')! });
    expect(notModified.status).toBe(304);
    expect(await wasRecorded(b, requestIdOf(hit))).toBe(false);
  });

  it('both origins list the shared entries; an eviction on one is seen by the other', async () => {
    const miss = await getQ(b, name, { max_id: 4, format: 'csv' });
    expectFresh(miss, 120);
    const fromA = (await a.call('GET', '/api/v1/cache/entries')).body.entries as Array<{ key: string; meta: Record<string, unknown> }>;
    const fromB = (await b.call('GET', '/api/v1/cache/entries')).body.entries as Array<{ key: string }>;
    expect(fromA.map((e) => e.key).sort()).toEqual(fromB.map((e) => e.key).sort());
    const csv = fromA.find((e) => e.meta.format === 'csv')!;
    expect(csv.meta).toEqual({ query: name, version: 1, connection: 'examples', format: 'csv', page: 1, page_size: 10 });
    const body = await a.fetch(`/api/v1/cache/entries/${csv.key}`);
    expect(await body.text()).toBe(miss.text);

    expect((await a.call('DELETE', `/api/v1/cache/entries/${csv.key}`)).body).toEqual({ evicted: 1 });
    expect((await b.call('GET', `/api/v1/cache/entries/${csv.key}`)).status).toBe(404);
    expectFresh(await getQ(b, name, { max_id: 4, format: 'csv' }), 120);
    const cleared = await b.call('DELETE', '/api/v1/cache/entries');
    expect(cleared.body.evicted).toBeGreaterThanOrEqual(2);
    expect((await a.call('GET', '/api/v1/cache/entries')).body.entries).toEqual([]);
  });

  it('a malformed SLUICE_REDIS_URL stops startup, naming the variable and never echoing it', async () => {
    const failed = await startOrigin({ env: { SLUICE_REDIS_URL: 'http://user:s3cret@127.0.0.1:6379' }, template: false }).then(
      (origin) => origin.stop().then(() => null),
      (err: Error) => err,
    );
    expect(failed?.message).toMatch(/SLUICE_REDIS_URL: must be a redis:\/\/ or rediss:\/\/ URL/);
    expect(failed?.message).not.toContain('s3cret');
  });
});
