import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Origin } from '../harness/origin.ts';
import { addVersion, createQuery, getQ, sleep } from '../q/fixture.ts';
import { expectFresh, expectHit, expectUncached } from './fixture.ts';
import { sharedOrigin } from '../harness/shared-origin.ts';

/** How long a cached answer is served: its TTL, a retuned cache_ttl, a new published version. */

let origin: Origin;

beforeAll(async () => {
  origin = await sharedOrigin();
});

afterAll(async () => {
  await origin?.stop();
});

const versionPath = (name: string, n: number) => `/api/v1/queries/${encodeURIComponent(name)}/versions/${n}`;
const setTtl = async (name: string, n: number, ttl: number | null) => {
  const res = await origin.call('PATCH', versionPath(name, n), { cache_ttl: ttl });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
};
const maxAge = (res: { headers: Headers }) => Number(/max-age=(\d+)/.exec(res.headers.get('cache-control') ?? '')?.[1]);

describe('lifetime', () => {
  it('serves an entry until its cache_ttl has passed, then runs again', async () => {
    // 3 s: the hit right after the fill comes within it even on a loaded machine.
    const name = await createQuery(origin, { sql: 'SELECT now() AS at', cache_ttl: 3 }, 'short');
    const miss = await getQ(origin, name);
    const filled = Date.now();
    expectFresh(miss, 3);
    expectHit(await getQ(origin, name), miss);
    // The entry was stored before its answer arrived: 3 s after that answer, it has expired.
    await sleep(filled + 3_100 - Date.now());
    const again = await getQ(origin, name);
    expectFresh(again, 3);
    expect(again.text).not.toBe(miss.text);
  });
});

describe('retuning cache_ttl with PATCH', () => {
  it('a lower cache_ttl stops serving entries older than it at once', async () => {
    const name = await createQuery(origin, { sql: 'SELECT now() AS at', cache_ttl: 300 }, 'lowered');
    const miss = await getQ(origin, name);
    expectFresh(miss, 300);
    expectHit(await getQ(origin, name), miss);
    await sleep(1_100);
    await setTtl(name, 1, 1);
    const after = await getQ(origin, name);
    expectFresh(after, 1);
    expect(after.text).not.toBe(miss.text);
  });

  it('a lower cache_ttl caps the max-age of a younger entry to what the new TTL leaves', async () => {
    const name = await createQuery(origin, { sql: 'SELECT now() AS at', cache_ttl: 300 }, 'capped');
    const miss = await getQ(origin, name);
    expectFresh(miss, 300);
    await setTtl(name, 1, 30);
    const hit = await getQ(origin, name);
    expectHit(hit, miss);
    expect(maxAge(hit)).toBeLessThanOrEqual(30);
    // What 30 leaves after the entry's age (a few seconds at most on a loaded machine): capped, not the old 300.
    expect(maxAge(hit)).toBeGreaterThanOrEqual(20);
  });

  it('a raised cache_ttl applies to the next fill; cache_ttl 0 or null stops caching at once', async () => {
    const name = await createQuery(origin, { sql: 'SELECT now() AS at', cache_ttl: 1 }, 'raised');
    expectFresh(await getQ(origin, name), 1);
    await sleep(1_100);
    await setTtl(name, 1, 120);
    const refilled = await getQ(origin, name);
    expectFresh(refilled, 120);
    expectHit(await getQ(origin, name), refilled);
    for (const ttl of [0, null]) {
      await setTtl(name, 1, ttl);
      const plain = await getQ(origin, name);
      expect(plain.status).toBe(200);
      expectUncached(plain);
      expect(plain.text).not.toBe(refilled.text);
      await setTtl(name, 1, 120);
    }
  });

  it('a cache_ttl set on a query that had none starts caching at once', async () => {
    const name = await createQuery(origin, { sql: 'SELECT 42 AS answer' }, 'enabled');
    expectUncached(await getQ(origin, name));
    await setTtl(name, 1, 45);
    const miss = await getQ(origin, name);
    expectFresh(miss, 45);
    expectHit(await getQ(origin, name), miss);
  });
});

describe('versions', () => {
  it('a newly published version misses at once; the previous one keeps its own entry', async () => {
    const name = await createQuery(origin, { sql: "SELECT 'one' AS v", cache_ttl: 60 }, 'versions');
    const v1 = await getQ(origin, name);
    expectFresh(v1, 60);
    expectHit(await getQ(origin, name), v1);
    const draft = await addVersion(origin, name, { sql: "SELECT 'two' AS v", connection_name: 'examples', cache_ttl: 60 });
    // A draft changes nothing for the published endpoint.
    expectHit(await getQ(origin, name), v1);
    const published = await origin.call('POST', `/api/v1/queries/${encodeURIComponent(name)}/publish`, { version: draft });
    expect(published.status, JSON.stringify(published.body)).toBe(200);
    const v2 = await getQ(origin, name);
    expectFresh(v2, 60);
    expect(v2.body).toEqual([{ v: 'two' }]);
    expectHit(await getQ(origin, name, { version: 1 }), v1);
    expectHit(await getQ(origin, name), v2);
  });

  it('a new version published on creation misses, and takes its own cache_ttl', async () => {
    const name = await createQuery(origin, { sql: "SELECT 'one' AS v", cache_ttl: 60 }, 'republish');
    expectFresh(await getQ(origin, name), 60);
    await addVersion(origin, name, { sql: "SELECT 'one' AS v", connection_name: 'examples', cache_ttl: 20, publish: true });
    expectFresh(await getQ(origin, name), 20);
  });
});
