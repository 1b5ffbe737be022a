import { copyFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Origin, startOrigin, testFile } from '../harness/origin.ts';
import { createQuery, getQ, postQ, requestIdOf, waitForRun, wasRecorded } from '../q/fixture.ts';
import { expectFresh, expectHit, expectUncached } from './fixture.ts';

/** `/q/<name>` through the in-memory response cache, on the examples connection (DuckDB). */

let origin: Origin;
/** `SELECT id, title FROM films WHERE id <= :max_id ORDER BY id`, cache_ttl 60. */
let films: string;

beforeAll(async () => {
  origin = await startOrigin();
  films = await createQuery(origin, {
    sql: 'SELECT id, title FROM films WHERE id <= :max_id ORDER BY id',
    parameters: { max_id: { type: 'integer', min: 1 } },
    cache_ttl: 60,
  }, 'cached');
});

afterAll(async () => {
  await origin?.stop();
});

describe('a version with cache_ttl > 0', () => {
  it('answers MISS then HIT with the identical body, content type and ETag, and a shrinking max-age', async () => {
    const miss = await getQ(origin, films, { max_id: 3 });
    expectFresh(miss, 60);
    expect(miss.body.map((row: { id: number }) => row.id)).toEqual([1, 2, 3]);
    const hit = await getQ(origin, films, { max_id: 3 });
    expectHit(hit, miss);
    const maxAge = Number(/max-age=(\d+)/.exec(hit.headers.get('cache-control')!)![1]);
    expect(maxAge).toBeLessThanOrEqual(60);
    // Counted down from the fill: not reset by the hit (the margin is for a loaded machine).
    expect(maxAge).toBeGreaterThanOrEqual(30);
    expect(hit.headers.get('x-page')).toBe('1');
    expect(hit.headers.get('x-page-size')).toBe('10');
    expect(hit.headers.get('x-has-more')).toBe('false');
  });

  it('answers 304 with no body to a matching If-None-Match, on a hit and on the miss that fills', async () => {
    const first = await getQ(origin, films, { max_id: 4 });
    expectFresh(first, 60);
    const etag = first.headers.get('etag')!;
    const notModified = await getQ(origin, films, { max_id: 4 }, { 'if-none-match': etag });
    expect(notModified.status).toBe(304);
    expect(notModified.text).toBe('');
    expect(notModified.headers.get('etag')).toBe(etag);
    expect(notModified.headers.get('x-cache')).toBe('HIT');
    expect(notModified.headers.get('cache-control')).toMatch(/^private, max-age=\d+$/);
    expect((await getQ(origin, films, { max_id: 4 }, { 'if-none-match': '"other"' })).status).toBe(200);
    expect((await getQ(origin, films, { max_id: 4 }, { 'if-none-match': `"other", W/${etag}` })).status).toBe(304);

    // Same rows under another name: a fresh query whose first answer has the known body.
    const twin = await createQuery(origin, { sql: 'SELECT id, title FROM films WHERE id <= :max_id ORDER BY id', parameters: { max_id: 'integer' }, cache_ttl: 60 }, 'twin');
    const filled = await getQ(origin, twin, { max_id: 4 }, { 'if-none-match': etag });
    expect(filled.status).toBe(304);
    expect(filled.text).toBe('');
    expect(filled.headers.get('x-cache')).toBe('MISS');
    expect(filled.headers.get('etag')).toBe(etag);
    expect(filled.headers.get('cache-control')).toBe('private, max-age=60');
    expectHit(await getQ(origin, twin, { max_id: 4 }), first);
  });

  it('GET and POST with the same resolved values share one entry', async () => {
    const viaPost = await postQ(origin, films, { params: { max_id: 5 } });
    expectFresh(viaPost, 60);
    expectHit(await getQ(origin, films, { max_id: '5' }), viaPost);
    expectHit(await postQ(origin, films, { params: { max_id: 5 }, format: 'json' }), viaPost);
    // The published version asked by number is the same version.
    expectHit(await getQ(origin, films, { max_id: 5, version: 1 }), viaPost);
  });

  it('different parameters, formats, pages, page sizes and connections are different entries', async () => {
    const base = await getQ(origin, films, { max_id: 6 });
    expectFresh(base, 60);
    const variants: Array<Record<string, string | number>> = [{ max_id: 7 }, { max_id: 6, format: 'csv' }, { max_id: 6, page: 2, page_size: 3 }, { max_id: 6, page_size: 3 }, { max_id: 6, connection_name: 'examples' }];
    for (const variant of variants) {
      const res = await getQ(origin, films, variant);
      if ('connection_name' in variant) {
        // Naming the saved default connection is the same connection: the same entry.
        expectHit(res, base);
        continue;
      }
      expectFresh(res, 60);
      expect(res.headers.get('etag')).not.toBe(base.headers.get('etag'));
      expectHit(await getQ(origin, films, variant), res);
    }
    const csv = await getQ(origin, films, { max_id: 6, format: 'csv' });
    expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(csv.text.split('\r\n')[0]).toBe('id,title');
    const page2 = await getQ(origin, films, { max_id: 6, page: 2, page_size: 3 });
    expect(page2.headers.get('x-page')).toBe('2');
    expect(page2.headers.get('x-has-more')).toBe('false');
  });

  it('replays binary formats and their download name', async () => {
    const miss = await getQ(origin, films, { max_id: 2, format: 'parquet' });
    expectFresh(miss, 60);
    const hit = await getQ(origin, films, { max_id: 2, format: 'parquet' });
    expectHit(hit, miss);
    expect(hit.headers.get('content-disposition')).toBe(`attachment; filename="${films}.parquet"`);
  });

  it('ignores the cache for stream=true', async () => {
    for (let i = 0; i < 2; i++) {
      const res = await getQ(origin, films, { max_id: 3, stream: 'true', format: 'csv' });
      expect(res.status, res.text).toBe(200);
      expectUncached(res);
    }
  });

  it('records the miss in run history, never a hit', async () => {
    const miss = await getQ(origin, films, { max_id: 8 });
    expectFresh(miss, 60);
    expect((await waitForRun(origin, requestIdOf(miss))).query).toBe(films);
    const hit = await getQ(origin, films, { max_id: 8 });
    expectHit(hit, miss);
    const notModified = await getQ(origin, films, { max_id: 8 }, { 'if-none-match': miss.headers.get('etag')! });
    expect(notModified.status).toBe(304);
    expect(await wasRecorded(origin, requestIdOf(hit))).toBe(false);
    expect(await wasRecorded(origin, requestIdOf(notModified))).toBe(false);
  });

  it('never lets a request its parameters reject reach the cache', async () => {
    await getQ(origin, films, { max_id: 9 });
    const rejected: Array<Record<string, string | number>> = [{ max_id: 0 }, { max_id: 'nine' }, {}];
    for (const bad of rejected) {
      const res = await getQ(origin, films, bad);
      expect(res.status).toBe(400);
      expect(res.body.errors).toHaveProperty('max_id');
      expect(res.headers.get('x-cache')).toBeNull();
    }
  });
});

describe('a cached answer and its connection', () => {
  it('is never served once the connection is inactive or deleted', async () => {
    const connection = `cached_conn_${Date.now()}`;
    // A copy of the dataset: the data dir's own file is the examples connection's alone.
    const database = testFile(`${connection}.duckdb`);
    await copyFile(join(origin.dataDir, 'examples.duckdb'), database);
    const created = await origin.call('POST', '/api/v1/connections', { name: connection, db: 'duckdb', database });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const name = await createQuery(origin, { sql: 'SELECT id FROM films WHERE id = :id', parameters: { id: 'integer' }, cache_ttl: 60, connection_name: connection }, 'conn');
    expectFresh(await getQ(origin, name, { id: 1 }), 60);
    expect((await getQ(origin, name, { id: 1 })).headers.get('x-cache')).toBe('HIT');

    expect((await origin.call('PATCH', `/api/v1/connections/${connection}`, { active: false })).status).toBe(200);
    expect((await getQ(origin, name, { id: 1 })).status).toBe(403);

    expect((await origin.call('DELETE', `/api/v1/connections/${connection}`, { reason: 'test' })).status).toBe(200);
    expect((await getQ(origin, name, { id: 1 })).status).toBe(404);
    await rm(database, { force: true });
  });
});

describe('a version without caching', () => {
  it.each([0, null])('cache_ttl %s: no caching headers, and every request runs', async (ttl) => {
    const name = await createQuery(origin, { sql: 'SELECT 1 AS one', cache_ttl: ttl }, 'uncached');
    const first = await getQ(origin, name);
    const second = await getQ(origin, name);
    for (const res of [first, second]) {
      expect(res.status, res.text).toBe(200);
      expectUncached(res);
    }
    expect((await waitForRun(origin, requestIdOf(second))).query).toBe(name);
  });
});
