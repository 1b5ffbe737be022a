import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, type Stack, createKey, createQuery, originRequests, q, startStack } from './fixture.ts';

/** Limits at the edge: counted in Durable Objects, exact, answered as the origin answers them. */
let stack: Stack;
let query: string;

beforeAll(async () => {
  stack = await startStack({ env: { SLUICE_RATE_LIMIT: '5/minute' } });
  query = await createQuery(stack, { sql: 'SELECT 1 AS one', cache_ttl: 300 });
});
afterAll(() => stack?.stop());

/** Each test its own client address, so the server-wide limit of one never touches another. */
let addresses = 0;
const client = () => ({ 'CF-Connecting-IP': `198.51.100.${++addresses}` });

describe('a key limit of 10 per minute', () => {
  it('lets exactly 10 of 50 parallel requests through, and refuses 40 with the origin’s 429', async () => {
    const key = await createKey(stack, { queries: [query], rate_limit: '10/minute' });
    // Spread over addresses so only the key's own limit is in play.
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) => q(stack, query, key.secret, '', { 'CF-Connecting-IP': `203.0.113.${i + 1}` })),
    );
    const ok = answers.filter((a) => a.status === 200);
    const refused = answers.filter((a) => a.status === 429);
    expect(ok).toHaveLength(10);
    expect(refused).toHaveLength(40);
    expect(ok.map((a) => Number(a.headers.get('x-ratelimit-key-remaining'))).sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    for (const a of refused) {
      expect(a.body).toEqual({ error: 'Rate limit exceeded for this API key', retry_after: expect.any(Number) });
      expect(a.body.retry_after).toBeGreaterThanOrEqual(1);
      expect(a.headers.get('retry-after')).toBe(String(a.body.retry_after));
      expect(a.headers.get('x-ratelimit-key-limit')).toBe('10');
      expect(a.headers.get('x-ratelimit-key-remaining')).toBe('0');
    }
  });

  it('counts at the edge only: requests the edge forwards are not counted again by the origin', async () => {
    const key = await createKey(stack, { connections: ['examples'], rate_limit: '3/minute' });
    const headers = { 'X-API-Key': key.secret, ...client() };
    const statuses: number[] = [];
    const reached = await originRequests(stack, async () => {
      for (let i = 0; i < 4; i++) statuses.push((await stack.call('POST', '/execute_sql', { sql: 'SELECT 1 AS one', connection_name: 'examples' }, headers)).status);
    });
    expect(statuses).toEqual([200, 200, 200, 429]);
    expect(reached).toBe(3);
  });
});

describe('the server-wide limit per client address (SLUICE_RATE_LIMIT=5/minute)', () => {
  it('refuses the sixth request of an address with the origin’s body and headers; another address is not affected', async () => {
    const key = await createKey(stack, { queries: [query] });
    const from = client();
    const answers = [];
    for (let i = 0; i < 6; i++) answers.push(await q(stack, query, key.secret, '', from));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200, 429]);
    expect(answers.map((a) => a.headers.get('x-ratelimit-remaining'))).toEqual(['4', '3', '2', '1', '0', '0']);
    expect(answers.every((a) => a.headers.get('x-ratelimit-limit') === '5')).toBe(true);
    const refused = answers[5]!;
    expect(refused.body).toEqual({ error: 'Rate limit exceeded', retry_after: expect.any(Number) });
    expect(refused.headers.get('retry-after')).toBe(String(refused.body.retry_after));
    expect((await q(stack, query, key.secret, '', client())).status).toBe(200);
  });

  it('counts wrong keys too, and answers management paths in their shape', async () => {
    const from = client();
    for (let i = 0; i < 5; i++) expect((await stack.call('GET', '/api/v1/queries', undefined, { 'X-API-Key': 'wrong', ...from })).status).toBe(401);
    const refused = await stack.call('GET', '/api/v1/queries', undefined, { ...ADMIN, ...from });
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ error: 'Rate limit exceeded', code: 'rate_limited', request_id: refused.headers.get('x-request-id'), retry_after: expect.any(Number) });
  });

  it('never limits /health', async () => {
    const from = client();
    for (let i = 0; i < 8; i++) expect((await stack.call('GET', '/health', undefined, from)).status).toBe(200);
  });
});
