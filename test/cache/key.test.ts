import { describe, expect, it } from 'vitest';
import { responseCacheKey, responseEtag } from '../../origin/cache/key.ts';
import { type CacheKeyParts, cacheKey } from '../../shared/cache-key.ts';
import { bodyEtag } from '../../shared/etag.ts';

/** The origin hashes with node:crypto; the values must be the edge's (Web Crypto) to the byte. */
describe('origin cache key and ETag', () => {
  const parts: CacheKeyParts[] = [
    { query: 'films by year', version: 3, connection: 'examples', params: { year: 1999, tags: ['a', 'b'], opts: { y: null, x: 1 } }, format: 'json', page: 1, pageSize: 10 },
    { query: 'é ünïcode ✓', version: 1, connection: 'c', params: { id: 9007199254740993n, at: new Date('2024-01-01T00:00:00Z') }, format: 'csv', page: 2, pageSize: 500 },
    { query: 'empty', version: 12, connection: 'x', params: {}, format: 'parquet', page: 1, pageSize: 1 },
  ];

  it.each(parts)('derives the shared key for $query', async (p) => {
    expect(responseCacheKey(p)).toBe(await cacheKey(p));
  });

  it('derives the shared ETag', async () => {
    for (const body of [new Uint8Array(), new TextEncoder().encode('[{"v":1}]'), new Uint8Array(70_000).map((_, i) => i % 251)]) {
      expect(responseEtag(body)).toBe(await bodyEtag(body));
    }
  });
});
