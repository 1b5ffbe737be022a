import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, type Stack, createKey, createQuery, originRequests, q, startStack } from './fixture.ts';

/** Saved-query responses cached at the edge (Workers cache): same keys, ETags and X-Cache as the origin. */
let stack: Stack;

beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack?.stop());

const versionPath = (name: string, n: number) => `/api/v1/queries/${encodeURIComponent(name)}/versions/${n}`;

describe('a query with cache_ttl', () => {
  it('is answered from the edge on a hit, with the same body and ETag, and 304 for a matching If-None-Match', async () => {
    const name = await createQuery(stack, { sql: 'SELECT 7 AS seven', cache_ttl: 300 });
    const key = await createKey(stack, { queries: [name] });
    const miss = await q(stack, name, key.secret);
    expect(miss.status).toBe(200);
    expect(miss.headers.get('x-cache')).toBe('MISS');
    const etag = miss.headers.get('etag');
    expect(etag).toMatch(/^"[0-9a-f]{64}"$/);

    let hit, unchanged;
    const reached = await originRequests(stack, async () => {
      hit = await q(stack, name, key.secret);
      unchanged = await q(stack, name, key.secret, '', { 'If-None-Match': etag! });
    });
    expect(reached).toBe(0);
    expect(hit!.status).toBe(200);
    expect(hit!.headers.get('x-cache')).toBe('HIT');
    expect(hit!.headers.get('etag')).toBe(etag);
    expect(hit!.body).toEqual(miss.body);
    expect(hit!.headers.get('content-type')).toBe(miss.headers.get('content-type'));
    expect(hit!.headers.get('x-page-size')).toBe(miss.headers.get('x-page-size'));
    expect(hit!.headers.get('cache-control')).toMatch(/^private, max-age=\d+$/);
    expect(unchanged!.status).toBe(304);
    expect(unchanged!.body).toBeNull();
    expect(unchanged!.headers.get('etag')).toBe(etag);
  });

  it('keys entries by the resolved parameter values, format and page', async () => {
    const name = await createQuery(stack, { sql: 'SELECT :n * 2 AS twice', parameters: { n: 'int' }, cache_ttl: 300 });
    const key = await createKey(stack, { queries: [name] });
    expect((await q(stack, name, key.secret, '?n=21')).body).toEqual([{ twice: 42 }]);
    let same;
    // `021` resolves to 21: the same entry.
    expect(await originRequests(stack, async () => (same = await q(stack, name, key.secret, '?n=021')))).toBe(0);
    expect(same!.headers.get('x-cache')).toBe('HIT');
    let other, csv;
    expect(
      await originRequests(stack, async () => {
        other = await q(stack, name, key.secret, '?n=4');
        csv = await q(stack, name, key.secret, '?n=21&format=csv');
      }),
    ).toBe(2);
    expect(other!.body).toEqual([{ twice: 8 }]);
    expect(csv!.headers.get('x-cache')).toBe('MISS');
    // A value the rules refuse is the origin's 400, never a cached answer.
    const bad = await q(stack, name, key.secret, '?n=abc');
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toHaveProperty('n');
  });

  it('checks pattern rules on RE2 as the origin does: its own syntax served from the cache, a value that would backtrack for ever answered', async () => {
    const name = await createQuery(stack, {
      sql: 'SELECT :code AS code, :v AS v',
      parameters: { code: { type: 'string', pattern: '(?i)[[:alpha:]]{2}\\x{2D}\\d+' }, v: { type: 'string', pattern: '(a+)+$', default: 'a' } },
      cache_ttl: 300,
    });
    const key = await createKey(stack, { queries: [name] });
    expect((await q(stack, name, key.secret, '?code=Ab-12')).body).toEqual([{ code: 'Ab-12', v: 'a' }]);
    // A JavaScript RegExp cannot read (?i) or [[:alpha:]]: only an edge reading the rules on RE2 answers this itself.
    let hit;
    expect(await originRequests(stack, async () => (hit = await q(stack, name, key.secret, '?code=Ab-12')))).toBe(0);
    expect(hit!.headers.get('x-cache')).toBe('HIT');
    // The edge checks the value, finds it refused and forwards; under backtracking it would never get that far.
    // (4,000 characters: workerd answers 431 to a much longer URL.)
    const refused = await q(stack, name, key.secret, `?code=Ab-12&v=${'a'.repeat(4_000)}b`);
    expect(refused.status).toBe(400);
    expect(refused.body.errors).toEqual({ v: 'must match the pattern ^(a+)+$' });
  });

  it('takes a new published version and a new cache_ttl into account at once', async () => {
    const name = await createQuery(stack, { sql: "SELECT 'v1' AS v", cache_ttl: 300 });
    const key = await createKey(stack, { queries: [name] });
    expect((await q(stack, name, key.secret)).body).toEqual([{ v: 'v1' }]);
    expect((await q(stack, name, key.secret)).headers.get('x-cache')).toBe('HIT');

    const added = await stack.call('POST', `/api/v1/queries/${encodeURIComponent(name)}/versions`, { sql: "SELECT 'v2' AS v", connection_name: 'examples', cache_ttl: 300, publish: true }, ADMIN);
    expect(added.status).toBe(201);
    const next = await q(stack, name, key.secret);
    expect(next.body).toEqual([{ v: 'v2' }]);
    expect(next.headers.get('x-cache')).toBe('MISS');
    expect((await q(stack, name, key.secret)).headers.get('x-cache')).toBe('HIT');

    expect((await stack.call('PATCH', versionPath(name, 2), { cache_ttl: 120 }, ADMIN)).status).toBe(200);
    let retuned;
    expect(await originRequests(stack, async () => (retuned = await q(stack, name, key.secret)))).toBe(1);
    expect(retuned!.body).toEqual([{ v: 'v2' }]);

    expect((await stack.call('POST', `/api/v1/queries/${encodeURIComponent(name)}/publish`, { version: 1 }, ADMIN)).status).toBe(200);
    expect((await q(stack, name, key.secret)).body).toEqual([{ v: 'v1' }]);
  });

  it('drops its entries when the origin’s cache is evicted', async () => {
    const name = await createQuery(stack, { sql: 'SELECT 3 AS three', cache_ttl: 300 });
    const key = await createKey(stack, { queries: [name] });
    await q(stack, name, key.secret);
    expect((await q(stack, name, key.secret)).headers.get('x-cache')).toBe('HIT');
    expect((await stack.call('DELETE', '/api/v1/cache/entries', undefined, ADMIN)).status).toBeLessThan(300);
    let after;
    expect(await originRequests(stack, async () => (after = await q(stack, name, key.secret)))).toBe(1);
    expect(after!.headers.get('x-cache')).toBe('MISS');
  });

  it('is never cached at the edge without cache_ttl', async () => {
    const name = await createQuery(stack, { sql: 'SELECT 1 AS one' });
    const key = await createKey(stack, { queries: [name] });
    const reached = await originRequests(stack, async () => {
      for (let i = 0; i < 3; i++) expect((await q(stack, name, key.secret)).headers.get('x-cache')).toBeNull();
    });
    expect(reached).toBe(3);
  });
});

describe('sharing between keys', () => {
  it("never serves key A's cached answer to key B, which cannot reach the query; a key reaching it through a collection shares it", async () => {
    const name = await createQuery(stack, { sql: "SELECT 'secret rows' AS s", cache_ttl: 300, collection: 'edge-shared' });
    const a = await createKey(stack, { queries: [name] });
    const b = await createKey(stack, { queries: [await createQuery(stack, { sql: 'SELECT 1 AS other' })], connections: [] });
    const c = await createKey(stack, { collections: ['edge-shared'] });
    expect((await q(stack, name, a.secret)).status).toBe(200);
    expect((await q(stack, name, a.secret)).headers.get('x-cache')).toBe('HIT');

    let refused;
    expect(await originRequests(stack, async () => (refused = await q(stack, name, b.secret)))).toBe(1);
    expect(refused!.status).toBe(404);
    expect(JSON.stringify(refused!.body)).not.toContain('secret rows');

    let shared;
    expect(await originRequests(stack, async () => (shared = await q(stack, name, c.secret)))).toBe(0);
    expect(shared!.headers.get('x-cache')).toBe('HIT');
  });
});

describe('with the origin stopped', () => {
  it('still serves a cached answer from the edge, and nothing to a key that cannot reach it', async () => {
    const name = await createQuery(stack, { sql: "SELECT 'kept' AS k", cache_ttl: 300 });
    const a = await createKey(stack, { queries: [name] });
    const b = await createKey(stack, { queries: [await createQuery(stack, { sql: 'SELECT 1 AS other' })] });
    const first = await q(stack, name, a.secret);
    expect(first.headers.get('x-cache')).toBe('MISS');

    await stack.origin.stop();
    const hit = await q(stack, name, a.secret);
    expect(hit.status).toBe(200);
    expect(hit.headers.get('x-cache')).toBe('HIT');
    expect(hit.body).toEqual([{ k: 'kept' }]);
    const other = await q(stack, name, b.secret);
    expect(other.status).toBe(502);
    expect(JSON.stringify(other.body)).not.toContain('kept');
  });
});
