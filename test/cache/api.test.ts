import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Origin, startOrigin } from '../harness/origin.ts';
import { type QueryFields, getQ } from '../q/fixture.ts';
import { expectFresh, expectHit } from './fixture.ts';
import { unique } from '../harness/unique.ts';

/** `/api/v1/cache/entries`: list, read, evict one, evict all. This origin's cache is its own (memory). */

let origin: Origin;
let films: string;

beforeAll(async () => {
  origin = await startOrigin({ env: { SLUICE_API_KEY: 'admin-secret' } });
  films = await createQuery({
    sql: 'SELECT id, title FROM films WHERE id <= :max_id ORDER BY id',
    parameters: { max_id: 'integer' },
    cache_ttl: 300,
  }, 'listed');
}, 120_000);

afterAll(async () => {
  await origin?.stop();
});

const ADMIN = { 'x-api-key': 'admin-secret' };
const api = (method: string, path: string, headers: Record<string, string> = ADMIN) => origin.call(method, `/api/v1/cache${path}`, undefined, headers);
/** Creates a published query under a unique name, as the administrator. */
async function createQuery(fields: QueryFields, prefix: string): Promise<string> {
  const name = unique(prefix);
  const res = await origin.call('POST', '/api/v1/queries', { connection_name: 'examples', publish: true, ...fields, name }, ADMIN);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return name;
}
const q = (name: string, query: Record<string, string | number> = {}) => getQ(origin, name, query, ADMIN);

interface Listed {
  key: string;
  content_type: string;
  size_bytes: number;
  ttl_remaining_s: number;
  created_at: string;
  expires_at: string;
  meta: Record<string, unknown>;
}

async function listed(): Promise<Listed[]> {
  const res = await api('GET', '/entries');
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.entries;
}

describe('the cache API', () => {
  it('is for administrators only', async () => {
    expect((await api('GET', '/entries', {})).status).toBe(401);
    expect((await api('DELETE', '/entries', { 'x-api-key': 'wrong' })).status).toBe(401);
  });

  it('lists entries soonest expiry first, with metadata and sizes but never the body', async () => {
    await api('DELETE', '/entries');
    const shortQuery = await createQuery({ sql: 'SELECT 1 AS one', cache_ttl: 30 }, 'soon');
    const long = await q(films, { max_id: 2, format: 'csv', page: 1, page_size: 5 });
    expectFresh(long, 300);
    const short = await q(shortQuery);
    expectFresh(short, 30);

    const entries = await listed();
    expect(entries.map((e) => e.meta.query)).toEqual([shortQuery, films]);
    const [first, second] = entries;
    expect(Object.keys(second).sort()).toEqual(['content_type', 'created_at', 'expires_at', 'key', 'meta', 'size_bytes', 'ttl_remaining_s', 'ttl_s']);
    expect(second.key).toMatch(/^[0-9a-f]{64}$/);
    expect(second.content_type).toMatch(/^text\/csv/);
    expect(second.size_bytes).toBe(Buffer.byteLength(long.text));
    expect(second.ttl_remaining_s).toBeGreaterThan(290);
    expect(second.ttl_remaining_s).toBeLessThanOrEqual(300);
    expect(second.meta).toEqual({ query: films, version: 1, connection: 'examples', format: 'csv', page: 1, page_size: 5 });
    // Every timestamp the server returns is in its own zone (the test origins run in Europe/Paris), as history's are.
    for (const time of [second.created_at, second.expires_at]) expect(time).toMatch(/T\d{2}:\d{2}:\d{2}\.\d{3}\+0[12]:00$/);
    expect(Date.parse(second.expires_at) - Date.parse(second.created_at)).toBe(300_000);
    expect(first.ttl_remaining_s).toBeLessThanOrEqual(30);
    expect(first.meta).toEqual({ query: shortQuery, version: 1, connection: 'examples', format: 'json', page: 1, page_size: 10 });
    expect(JSON.stringify(entries)).not.toContain('The Quiet Harbour');
  });

  it('reads one body back with its real content type and ETag', async () => {
    const parquet = await q(films, { max_id: 3, format: 'parquet' });
    expectFresh(parquet, 300);
    const entry = (await listed()).find((e) => e.meta.format === 'parquet' && e.meta.query === films)!;
    const res = await origin.fetch(`/api/v1/cache/entries/${entry.key}`, { headers: ADMIN });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe(parquet.headers.get('content-type'));
    expect(res.headers.get('etag')).toBe(parquet.headers.get('etag'));
    const bytes = Buffer.from(await res.arrayBuffer());
    expect(bytes.subarray(0, 4).toString()).toBe('PAR1');
    expect(bytes.length).toBe(entry.size_bytes);
  });

  it('evicts one entry: the next request misses', async () => {
    const miss = await q(films, { max_id: 4 });
    expectFresh(miss, 300);
    expectHit(await q(films, { max_id: 4 }), miss);
    const entry = (await listed()).find((e) => e.meta.query === films && e.meta.format === 'json' && e.size_bytes === Buffer.byteLength(miss.text))!;
    const evicted = await api('DELETE', `/entries/${entry.key}`);
    expect(evicted.status).toBe(200);
    expect(evicted.body).toEqual({ evicted: 1 });
    expect((await listed()).map((e) => e.key)).not.toContain(entry.key);
    expectFresh(await q(films, { max_id: 4 }), 300);
  });

  it('evicts every entry and says how many', async () => {
    await api('DELETE', '/entries');
    await q(films, { max_id: 5 });
    await q(films, { max_id: 6 });
    const res = await api('DELETE', '/entries');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ evicted: 2 });
    expect(await listed()).toEqual([]);
    expect((await api('DELETE', '/entries')).body).toEqual({ evicted: 0 });
    expectFresh(await q(films, { max_id: 5 }), 300);
  });

  it('answers 404 cache_entry_not_found for an unknown, evicted or malformed key', async () => {
    const unknown = '0'.repeat(64);
    for (const [method, key] of [['GET', unknown], ['DELETE', unknown], ['GET', 'not-a-key'], ['DELETE', 'not-a-key']]) {
      const res = await api(method, `/entries/${key}`);
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('cache_entry_not_found');
      expect(res.body.request_id).toMatch(/^[0-9a-f]{12}$/);
    }
  });
});
