import { randomBytes } from 'node:crypto';
import pino from 'pino';
import { afterAll, describe, expect, test } from 'vitest';
import { RedisCache } from '../../origin/cache/redis.ts';
import { RedisBreaker } from '../../origin/redis/breaker.ts';
import type { CachedResponse } from '../../origin/cache/response-cache.ts';
import { REDIS_URL, runPrefix } from './fixture.ts';

/** RedisCache on the real Redis, under a prefix of its own per run so parallel runs never meet. */

const prefix = runPrefix('store');
const logger = pino({ level: 'silent' });
/** Every connection opened, closed after the file (a cache leaves its connection to its owner). */
const connections: RedisBreaker[] = [];
async function open(options: { prefix?: string; maxEntryBytes?: number } = {}): Promise<RedisCache> {
  const redis = await RedisBreaker.open(REDIS_URL, logger);
  connections.push(redis);
  return new RedisCache({ redis, prefix: options.prefix ?? prefix, maxEntryBytes: options.maxEntryBytes ?? 1_000_000 });
}
const a = await open();
const b = await open();

afterAll(async () => {
  await a.clear();
  await Promise.all(connections.map((redis) => redis.close()));
});

const key = () => randomBytes(32).toString('hex');

function response(body: Uint8Array, query = 'films'): CachedResponse {
  return {
    body,
    contentType: 'application/vnd.apache.parquet',
    etag: '"etag"',
    headers: { 'x-page': '2', 'x-page-size': '5', 'x-has-more': 'true' },
    meta: { query, version: 7, connection: 'examples', format: 'parquet', page: 2, page_size: 5 },
  };
}

describe('RedisCache', () => {
  test('stores binary bodies exactly, with their metadata, for another client to read', async () => {
    const k = key();
    const body = new Uint8Array(randomBytes(70_000));
    await a.set(k, response(body), 60);
    const entry = await b.get(k);
    expect(entry).not.toBeNull();
    expect(Buffer.from(entry!.body).equals(Buffer.from(body))).toBe(true);
    expect(entry!.contentType).toBe('application/vnd.apache.parquet');
    expect(entry!.headers).toEqual({ 'x-page': '2', 'x-page-size': '5', 'x-has-more': 'true' });
    expect(entry!.meta).toEqual(response(body).meta);
    expect(entry!.ttlSeconds).toBe(60);
    const left = entry!.expiresAt - Date.now();
    // The TTL, less the time since the write (generous for a loaded machine).
    expect(left).toBeGreaterThan(45_000);
    expect(left).toBeLessThanOrEqual(60_000);
  });

  test('Redis expires entries with their TTL', async () => {
    const k = key();
    await a.set(k, response(new Uint8Array([1, 2, 3])), 1);
    expect(await b.get(k)).not.toBeNull();
    await new Promise((r) => setTimeout(r, 1_200));
    expect(await b.get(k)).toBeNull();
    expect((await b.list()).map((e) => e.key)).not.toContain(k);
  });

  test('lists every client’s entries with sizes, never bodies; evicts one and all', async () => {
    const own = await open({ prefix: `${prefix}list-` });
    try {
      const [k1, k2] = [key(), key()];
      await own.set(k1, response(new Uint8Array(10), 'one'), 30);
      const other = await open({ prefix: `${prefix}list-` });
      await other.set(k2, response(new Uint8Array(20), 'two'), 60);
      const listed = await own.list();
      expect(listed.map((e) => [e.key, e.sizeBytes, e.meta.query]).sort()).toEqual([[k1, 10, 'one'], [k2, 20, 'two']].sort());
      expect(listed.every((e) => !('body' in e))).toBe(true);
      expect(await other.delete(k1)).toBe(true);
      expect(await other.delete(k1)).toBe(false);
      expect(await own.clear()).toBe(1);
      expect(await own.list()).toEqual([]);
      await other.close();
    } finally {
      await own.close();
    }
  });

  test('a prefix sees only its own entries; a glob character in it is taken literally', async () => {
    const star = await open({ prefix: `${prefix}*` });
    const plain = await open({ prefix: `${prefix}x` });
    try {
      await plain.set(key(), response(new Uint8Array(1)), 30);
      expect(await star.list()).toEqual([]);
      expect(await star.clear()).toBe(0);
      expect((await plain.list()).length).toBe(1);
      await plain.clear();
    } finally {
      await Promise.all([star.close(), plain.close()]);
    }
  });

  test('a body larger than the bound is not stored', async () => {
    const small = await open({ maxEntryBytes: 100 });
    try {
      const k = key();
      await small.set(k, response(new Uint8Array(101)), 30);
      expect(await small.get(k)).toBeNull();
    } finally {
      await small.close();
    }
  });
});
