import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GrantsEnv, admin, as, makeKey, saveQuery, startGrantsOrigin } from './fixture.ts';
import { unique } from '../harness/unique.ts';

/**
 * A key's limits at run time: `max_rows` (pages refuse a larger page_size,
 * streams stop there), `query_timeout` (lowers the server's; a request's
 * `timeout` lowers it further), `max_concurrent` (429 while that many
 * responses are running, streams until they end), `quota` (429 with
 * Retry-After past N calls a day or month) and `/api/v1/usage/quotas`.
 */

let env: GrantsEnv;
const tag = unique('l');
const FILMS = `gf_${tag}`;
const ONE = `go_${tag}`;
const MANY = `gm_${tag}`;

beforeAll(async () => {
  env = await startGrantsOrigin();
  await saveQuery(env.origin, FILMS, { sql: 'select id, title from films order by id', connection_name: env.pg });
  await saveQuery(env.origin, ONE, { sql: 'select 1 as one', connection_name: env.pg });
  await saveQuery(env.origin, MANY, { sql: 'select generate_series(1, 20000000) as g', connection_name: env.pg });
});

afterAll(async () => {
  await env?.stop();
});

describe('max_rows', () => {
  it('caps pages: the default page is at most max_rows, a larger page_size is 400', async () => {
    const { secret } = await makeKey(env.origin, { connections: [env.pg], max_rows: 2 });
    const key = as(env.origin, secret);
    const first = await key.get(`/q/${FILMS}`);
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body).toEqual([{ id: 1, title: 'Alpha' }, { id: 2, title: 'Beta' }]);
    expect(first.headers.get('x-page-size')).toBe('2');
    expect(first.headers.get('x-has-more')).toBe('true');
    const second = await key.get(`/q/${FILMS}?page=2&page_size=2`);
    expect(second.body).toEqual([{ id: 3, title: 'Gamma' }]);
    expect(second.headers.get('x-has-more')).toBe('false');
    const tooBig = await key.get(`/q/${FILMS}?page_size=3`);
    expect(tooBig.status).toBe(400);
    expect(tooBig.body).toEqual({ error: "page_size must be at most 2 (this API key's max_rows)" });
    const adhoc = await key.sql(env.pg, 'select id from films order by id', '?page_size=3');
    expect(adhoc.status).toBe(400);
  });

  it('stops streams at max_rows, like SLUICE_STREAM_MAX_ROWS', async () => {
    const { secret } = await makeKey(env.origin, { connections: [env.pg], max_rows: 2 });
    const key = as(env.origin, secret);
    const saved = await key.fetch(`/q/${FILMS}?stream=true&format=csv`);
    expect(saved.status).toBe(200);
    expect((await saved.text()).trim().split(/\r?\n/)).toEqual(['id,title', '1,Alpha', '2,Beta']);
    const adhoc = await key.fetch('/execute_sql?stream=true&format=ndjson', { method: 'POST', json: { sql: 'select id from films order by id', connection_name: env.pg } });
    expect((await adhoc.text()).trim().split('\n')).toEqual(['{"id":1}', '{"id":2}']);
  });

  it('leaves other keys at the server limits', async () => {
    const { secret } = await makeKey(env.origin, { connections: [env.pg] });
    const res = await as(env.origin, secret).get(`/q/${FILMS}`);
    expect(res.body).toHaveLength(3);
  });
});

describe('query_timeout', () => {
  it("lowers the server's limit; a request's timeout lowers it further but never raises it", async () => {
    const { secret } = await makeKey(env.origin, { connections: [env.pg], query_timeout: 1 });
    const key = as(env.origin, secret);
    const sleep = 'select pg_sleep(5) as slept';
    for (const [query, seconds] of [['', 1], ['?timeout=0.5', 0.5], ['?timeout=10', 1]] as const) {
      const res = await key.sql(env.pg, sleep, query);
      expect(res.status, `${query}: ${JSON.stringify(res.body)}`).toBe(504);
      expect(res.body.timeout).toBe(seconds);
    }
  });
});

describe('max_concurrent', () => {
  it('answers 429 while the key runs that many requests, a stream counting until its download ends', async () => {
    const { secret } = await makeKey(env.origin, { connections: [env.pg], max_concurrent: 1 });
    const key = as(env.origin, secret);
    const client = new AbortController();
    const stream = await key.fetch(`/q/${MANY}?stream=true&format=csv`, { signal: client.signal });
    expect(stream.status).toBe(200);
    const reader = stream.body!.getReader();
    expect((await reader.read()).done).toBe(false);

    const refused = await key.get(`/q/${ONE}`);
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ error: 'Too many concurrent requests for this API key' });
    expect(refused.headers.get('retry-after')).toBe('1');
    // Another key is not held back by this one.
    const other = await makeKey(env.origin, { connections: [env.pg], max_concurrent: 1 });
    expect((await as(env.origin, other.secret).get(`/q/${ONE}`)).status).toBe(200);

    // The client goes away mid-download (a cancelled body may be drained; an abort closes the connection).
    client.abort();
    await reader.cancel().catch(() => {});
    let status = 0;
    for (let attempt = 0; attempt < 100 && status !== 200; attempt++) {
      status = (await key.get(`/q/${ONE}`)).status;
      if (status !== 200) await new Promise((r) => setTimeout(r, 100));
    }
    expect(status).toBe(200);
    // Pages release their place when answered: one after another always passes.
    for (let i = 0; i < 3; i++) expect((await key.get(`/q/${ONE}`)).status).toBe(200);
  });
});

describe('quota', () => {
  it('lets N calls through, then answers 429 with Retry-After until the period ends; refused requests are not calls', async () => {
    const { name, secret } = await makeKey(env.origin, { connections: [env.pg], quota: '3/day' });
    const key = as(env.origin, secret);
    expect((await key.get(`/q/no_such_${tag}`)).status).toBe(404);
    expect((await key.sql('examples', 'select 1')).status).toBe(403);
    for (let i = 0; i < 3; i++) expect((await key.get(`/q/${ONE}`)).status).toBe(200);
    const over = await key.get(`/q/${ONE}`);
    expect(over.status).toBe(429);
    expect(over.body.error).toBe('Quota exceeded for this API key');
    expect(over.body.retry_after).toBeGreaterThan(0);
    expect(over.body.retry_after).toBeLessThanOrEqual(25 * 3600);
    expect(over.headers.get('retry-after')).toBe(String(over.body.retry_after));
    expect((await key.sql(env.pg, 'select 1')).status).toBe(429);

    const listed = await admin(env.origin, 'GET', '/api/v1/usage/quotas');
    expect(listed.status, JSON.stringify(listed.body)).toBe(200);
    expect(listed.body.day).toMatch(/^\d{4}-\d\d-\d\d$/);
    expect(listed.body.month).toBe(listed.body.day.slice(0, 7));
    expect(listed.body.time_zone).toBe('Europe/Paris');
    const entry = listed.body.callers.find((c: { name: string }) => c.name === name);
    expect(entry).toMatchObject({ key: true, day: { calls: 3, rows: 3 }, month: { calls: 3, rows: 3 }, quota: '3/day', remaining: 0 });
    expect(entry.resets_at).toMatch(/^\d{4}-\d\d-\d\dT00:00:00\.000\+0[12]:00$/);

    const read = await admin(env.origin, 'GET', `/api/v1/api-keys/${name}`);
    expect(read.body.usage_this_period).toMatchObject({ period: 'day', calls: 3, rows: 3, remaining: 0 });
  });
});

describe('GET /api/v1/usage/quotas', () => {
  it('lists every key, used or not, and other callers once they have called', async () => {
    const idle = await makeKey(env.origin, { queries: [ONE] });
    expect((await admin(env.origin, 'GET', `/q/${ONE}`)).status).toBe(200);
    const listed = (await admin(env.origin, 'GET', '/api/v1/usage/quotas')).body;
    expect(listed.callers.find((c: { name: string }) => c.name === idle.name)).toEqual({
      name: idle.name,
      key: true,
      day: { calls: 0, rows: 0, db_seconds: 0 },
      month: { calls: 0, rows: 0, db_seconds: 0 },
      quota: null,
      remaining: null,
      resets_at: null,
      budget: null,
      budget_remaining: { rows: null, db_seconds: null },
    });
    const server = listed.callers.find((c: { name: string }) => c.name === 'admin');
    expect(server).toMatchObject({ key: false, quota: null });
    expect(server.day.calls).toBeGreaterThanOrEqual(1);
    const names = listed.callers.map((c: { name: string }) => c.name);
    expect(names).toEqual([...names].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
  });

  it('is for administrators holding usage.read only', async () => {
    const { secret } = await makeKey(env.origin, { connections: ['*'] });
    const res = await as(env.origin, secret).get('/api/v1/usage/quotas');
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('forbidden');
  });
});
