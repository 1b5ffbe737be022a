import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import type { QResponse } from '../q/fixture.ts';

/** The Redis the shared-cache tests use; each run keys under a prefix of its own (see `runPrefix`). */
export const REDIS_URL = process.env.SLUICE_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379/0';

/** A Redis key prefix no other test run uses. */
export const runPrefix = (label: string) => `sluice-test-${label}-${randomBytes(4).toString('hex')}:`;

/** A fresh answer: 200, strong ETag, the full TTL as max-age, `X-Cache: MISS`. */
export function expectFresh(res: QResponse, ttl: number): void {
  expect(res.status, res.text).toBe(200);
  expect(res.headers.get('etag')).toMatch(/^"[0-9a-f]{64}"$/);
  expect(res.headers.get('cache-control')).toBe(`private, max-age=${ttl}`);
  expect(res.headers.get('x-cache')).toBe('MISS');
}

/** A hit of `fresh`: the same body, content type and ETag, `X-Cache: HIT`. */
export function expectHit(res: QResponse, fresh: QResponse): void {
  expect(res.status, res.text).toBe(200);
  expect(res.headers.get('x-cache')).toBe('HIT');
  expect(res.text).toBe(fresh.text);
  expect(res.headers.get('etag')).toBe(fresh.headers.get('etag'));
  expect(res.headers.get('content-type')).toBe(fresh.headers.get('content-type'));
  expect(res.headers.get('cache-control')).toMatch(/^private, max-age=\d+$/);
}

/** No caching at all: none of the cache's headers. */
export function expectUncached(res: QResponse): void {
  expect(res.headers.get('x-cache')).toBeNull();
  expect(res.headers.get('etag')).toBeNull();
  expect(res.headers.get('cache-control')).toBeNull();
}
