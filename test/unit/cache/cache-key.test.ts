import { describe, expect, test } from 'vitest';
import { type CacheKeyParts, CACHE_KEY_PATTERN, cacheKey, canonicalJson } from '../../../shared/cache-key.ts';
import { bodyEtag, noneMatch } from '../../../shared/etag.ts';

const base: CacheKeyParts = {
  query: 'films by year',
  version: 3,
  connection: 'examples',
  params: { year: 1999, title: 'Harbour', tags: ['a', 'b'], opts: { x: 1, y: null } },
  format: 'json',
  page: 1,
  pageSize: 10,
};

describe('cacheKey', () => {
  test('is 64 hex characters and stable', async () => {
    const key = await cacheKey(base);
    expect(key).toMatch(CACHE_KEY_PATTERN);
    expect(await cacheKey({ ...base })).toBe(key);
  });

  test('the same values in a different order give the same key, at every depth', async () => {
    const reordered: CacheKeyParts = {
      pageSize: 10,
      page: 1,
      format: 'json',
      params: { opts: { y: null, x: 1 }, tags: ['a', 'b'], title: 'Harbour', year: 1999 },
      connection: 'examples',
      version: 3,
      query: 'films by year',
    };
    expect(await cacheKey(reordered)).toBe(await cacheKey(base));
  });

  test.each<[string, Partial<CacheKeyParts>]>([
    ['query name', { query: 'films by Year' }],
    ['query name (whitespace)', { query: 'films by year ' }],
    ['version', { version: 4 }],
    ['connection', { connection: 'examples2' }],
    ['a parameter value', { params: { ...base.params, year: 2000 } }],
    ['a parameter type', { params: { ...base.params, year: '1999' } }],
    ['a parameter added', { params: { ...base.params, extra: null } }],
    ['array order', { params: { ...base.params, tags: ['b', 'a'] } }],
    ['format', { format: 'csv' }],
    ['page', { page: 2 }],
    ['page size', { pageSize: 20 }],
  ])('changes with the %s', async (_, change) => {
    expect(await cacheKey({ ...base, ...change })).not.toBe(await cacheKey(base));
  });

  test('parts cannot run into each other', async () => {
    expect(await cacheKey({ ...base, query: 'a', connection: 'bc' })).not.toBe(await cacheKey({ ...base, query: 'ab', connection: 'c' }));
  });

  test('a bigint past 2^53 keys by its exact digits', async () => {
    const big = (n: bigint) => cacheKey({ ...base, params: { id: n } });
    expect(await big(9007199254740993n)).not.toBe(await big(9007199254740992n));
    expect(await big(9007199254740993n)).toBe(await big(9007199254740993n));
    expect(await big(9007199254740993n)).not.toBe(await cacheKey({ ...base, params: { id: '9007199254740993' } }));
  });
});

describe('canonicalJson', () => {
  test('sorts keys, writes bigint as digits, drops undefined members', () => {
    expect(canonicalJson({ b: 1, a: [{ d: 12345678901234567890n, c: undefined }], e: 'x' })).toBe('{"a":[{"d":12345678901234567890}],"b":1,"e":"x"}');
    expect(canonicalJson(null)).toBe('null');
    expect(canonicalJson(new Date('2024-01-02T03:04:05Z'))).toBe('"2024-01-02T03:04:05.000Z"');
  });
});

describe('ETag', () => {
  test('strong, quoted SHA-256 hex of the body', async () => {
    expect(await bodyEtag(new TextEncoder().encode('abc'))).toBe('"ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"');
  });

  test('If-None-Match: a listed tag, a weak form of it, or * matches', () => {
    const etag = '"abc"';
    expect(noneMatch('"abc"', etag)).toBe(true);
    expect(noneMatch('W/"abc"', etag)).toBe(true);
    expect(noneMatch('"x", "abc"', etag)).toBe(true);
    expect(noneMatch('*', etag)).toBe(true);
    expect(noneMatch('"abd"', etag)).toBe(false);
    expect(noneMatch('abc', etag)).toBe(false);
    expect(noneMatch(undefined, etag)).toBe(false);
  });
});
