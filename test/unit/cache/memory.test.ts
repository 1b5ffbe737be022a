import { describe, expect, test } from 'vitest';
import { MemoryCache } from '../../../origin/cache/memory.ts';
import type { CachedResponse } from '../../../origin/cache/response-cache.ts';

function response(size: number, query = 'q'): CachedResponse {
  return {
    body: new Uint8Array(size).fill(120),
    contentType: 'text/csv',
    etag: '"e"',
    headers: { 'x-page': '1' },
    meta: { query, version: 1, connection: 'c', format: 'csv', page: 1, page_size: 10 },
  };
}

/** A cache on a clock the test moves by hand. */
function clocked(maxBytes: number) {
  let now = 1_000_000;
  const cache = new MemoryCache({ maxBytes, now: () => now });
  return { cache, advance: (ms: number) => (now += ms) };
}

const keys = async (cache: MemoryCache) => (await cache.list()).map((entry) => entry.key).sort();

describe('memory cache: byte bound', () => {
  test('holds entries while their bytes fit and counts every stored byte against the budget', async () => {
    const { cache } = clocked(10_000);
    await cache.set('a', response(1_000), 60);
    await cache.set('b', response(1_000), 60);
    expect(await keys(cache)).toEqual(['a', 'b']);
    expect(cache.usedBytes).toBeGreaterThan(2_000);
    expect(cache.usedBytes).toBeLessThanOrEqual(10_000);
  });

  test('never goes over the budget, however many entries arrive', async () => {
    const { cache } = clocked(5_000);
    for (let i = 0; i < 50; i++) {
      await cache.set(`k${i}`, response(700 + i), 60);
      expect(cache.usedBytes).toBeLessThanOrEqual(5_000);
    }
    expect((await cache.list()).length).toBeGreaterThan(2);
  });

  test('an entry larger than the whole budget is not stored and evicts nothing', async () => {
    const { cache } = clocked(5_000);
    await cache.set('small', response(100), 60);
    await cache.set('huge', response(6_000), 60);
    expect(await cache.get('huge')).toBeNull();
    expect(await keys(cache)).toEqual(['small']);
  });

  test('replacing an entry releases its old bytes', async () => {
    const { cache } = clocked(5_000);
    await cache.set('a', response(3_000), 60);
    const before = cache.usedBytes;
    await cache.set('a', response(1_000), 60);
    expect(cache.usedBytes).toBe(before - 2_000);
    expect((await cache.get('a'))!.body.byteLength).toBe(1_000);
  });
});

describe('memory cache: eviction order', () => {
  test('evicts the least recently used first; a read counts as a use', async () => {
    const { cache } = clocked(3 * (1_000 + 400));
    await cache.set('a', response(1_000), 60);
    await cache.set('b', response(1_000), 60);
    await cache.set('c', response(1_000), 60);
    expect(await cache.get('a')).not.toBeNull(); // a is now the most recent; b the least
    await cache.set('d', response(1_000), 60);
    expect(await keys(cache)).toEqual(['a', 'c', 'd']);
    await cache.set('e', response(1_000), 60);
    expect(await keys(cache)).toEqual(['a', 'd', 'e']);
  });

  test('evicts as many old entries as a big one needs', async () => {
    const { cache } = clocked(4 * (1_000 + 400));
    for (const key of ['a', 'b', 'c', 'd']) await cache.set(key, response(1_000), 60);
    await cache.set('big', response(3_000), 60);
    expect(await keys(cache)).toEqual(['big', 'd']);
  });

  test('expired entries make room before any live one is evicted', async () => {
    const { cache, advance } = clocked(3 * (1_000 + 400));
    await cache.set('old', response(1_000), 60);
    await cache.set('short', response(1_000), 5);
    await cache.set('live', response(1_000), 60);
    advance(6_000);
    await cache.set('new', response(1_000), 60);
    expect(await keys(cache)).toEqual(['live', 'new', 'old']);
  });
});

describe('memory cache: TTL', () => {
  test('an entry is served until its TTL ends and never at or after it', async () => {
    const { cache, advance } = clocked(10_000);
    await cache.set('a', response(10), 2);
    const entry = await cache.get('a');
    expect(entry!.ttlSeconds).toBe(2);
    expect(entry!.expiresAt - entry!.createdAt).toBe(2_000);
    advance(1_999);
    expect(await cache.get('a')).not.toBeNull();
    advance(1);
    expect(await cache.get('a')).toBeNull();
    expect(cache.usedBytes).toBe(0);
  });

  test('expired entries are neither listed, nor counted by clear, nor reported as deleted', async () => {
    const { cache, advance } = clocked(10_000);
    await cache.set('short', response(10), 1);
    await cache.set('long', response(10), 10);
    advance(1_500);
    expect(await keys(cache)).toEqual(['long']);
    await cache.set('short2', response(10), 1);
    advance(1_500);
    expect(await cache.delete('short2')).toBe(false);
    expect(await cache.clear()).toBe(1);
    expect(await cache.list()).toEqual([]);
  });

  test('a TTL of 0 stores nothing', async () => {
    const { cache } = clocked(10_000);
    await cache.set('a', response(10), 0);
    expect(await cache.get('a')).toBeNull();
  });

  test('list gives metadata and the body size, never the body', async () => {
    const { cache } = clocked(10_000);
    await cache.set('a', response(42, 'films'), 30);
    const [info] = await cache.list();
    expect(info).toEqual({
      key: 'a',
      contentType: 'text/csv',
      sizeBytes: 42,
      createdAt: 1_000_000,
      ttlSeconds: 30,
      expiresAt: 1_030_000,
      meta: { query: 'films', version: 1, connection: 'c', format: 'csv', page: 1, page_size: 10 },
    });
    expect(info).not.toHaveProperty('body');
  });
});
