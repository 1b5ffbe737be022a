import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashSecret } from '../../shared/access/secret.ts';
import { ASSERTION_HEADER, encodeAssertion } from '../../shared/edge/protocol.ts';
import { startOrigin } from '../harness/origin.ts';
import { ADMIN, ADMIN_KEY, type Answer, type Stack, createKey, createQuery, originRequests, q, startStack } from './fixture.ts';

/** Keys at the edge: every change made through the Management API is in force there on the very next request. */
let stack: Stack;
let query: string;

beforeAll(async () => {
  stack = await startStack();
  query = await createQuery(stack, { sql: 'SELECT 42 AS answer', cache_ttl: 300 });
});
afterAll(() => stack?.stop());

const UNAUTHORIZED = { error: 'Missing or invalid API key' };

describe('a key changed through the Management API', () => {
  it('is refused at the edge, without reaching the origin, once deactivated or deleted', async () => {
    const key = await createKey(stack, { queries: [query] });
    expect((await q(stack, query, key.secret)).status).toBe(200);

    expect((await stack.call('PATCH', `/api/v1/api-keys/${key.name}`, { active: false }, ADMIN)).status).toBe(200);
    let res;
    expect(await originRequests(stack, async () => (res = await q(stack, query, key.secret)))).toBe(0);
    expect(res!.status).toBe(401);
    expect(res!.body).toEqual(UNAUTHORIZED);

    expect((await stack.call('PATCH', `/api/v1/api-keys/${key.name}`, { active: true }, ADMIN)).status).toBe(200);
    expect((await q(stack, query, key.secret)).status).toBe(200);
    expect((await stack.call('DELETE', `/api/v1/api-keys/${key.name}`, undefined, ADMIN)).status).toBe(200);
    expect(await originRequests(stack, async () => (res = await q(stack, query, key.secret)))).toBe(0);
    expect(res!.status).toBe(401);
  });

  it('is refused at once when its expiry date has passed', async () => {
    const key = await createKey(stack, { queries: [query] });
    expect((await q(stack, query, key.secret)).status).toBe(200);
    expect((await stack.call('PATCH', `/api/v1/api-keys/${key.name}`, { expires_at: '2020-01-01' }, ADMIN)).status).toBe(200);
    const res = await q(stack, query, key.secret);
    expect(res.status).toBe(401);
    expect(res.body).toEqual(UNAUTHORIZED);
    expect((await stack.call('PATCH', `/api/v1/api-keys/${key.name}`, { expires_at: '2999-12-31' }, ADMIN)).status).toBe(200);
    expect((await q(stack, query, key.secret)).status).toBe(200);
  });

  it('serves both secrets during a rotation grace, and only the new one once the previous is ended', async () => {
    const key = await createKey(stack, { queries: [query] });
    const rotated = await stack.call('POST', `/api/v1/api-keys/${key.name}/rotate`, { grace_minutes: 60 }, ADMIN);
    expect(rotated.status).toBe(200);
    const fresh: string = rotated.body.secret;
    expect((await q(stack, query, fresh)).status).toBe(200);
    expect((await q(stack, query, key.secret)).status).toBe(200);

    expect((await stack.call('DELETE', `/api/v1/api-keys/${key.name}/previous`, undefined, ADMIN)).status).toBe(200);
    const res = await q(stack, query, key.secret);
    expect(res.status).toBe(401);
    expect((await q(stack, query, fresh)).status).toBe(200);
  });

  it('with no grace refuses the old secret on the very next request', async () => {
    const key = await createKey(stack, { queries: [query] });
    expect((await q(stack, query, key.secret)).status).toBe(200);
    const rotated = await stack.call('POST', `/api/v1/api-keys/${key.name}/rotate`, { grace_minutes: 0 }, ADMIN);
    expect(rotated.status).toBe(200);
    expect((await q(stack, query, key.secret)).status).toBe(401);
    expect((await q(stack, query, rotated.body.secret)).status).toBe(200);
  });

  it('is refused at the edge when the secret was never issued, on query and management paths alike', async () => {
    let query401, management401;
    const reached = await originRequests(stack, async () => {
      query401 = await q(stack, query, 'slc_notakey');
      management401 = await stack.call('GET', '/api/v1/queries', undefined, { 'X-API-Key': 'wrong' });
    });
    expect(reached).toBe(0);
    expect(query401!.status).toBe(401);
    expect(query401!.body).toEqual(UNAUTHORIZED);
    expect(management401!.status).toBe(401);
    // The origin's own answer to the same request, for the shape.
    const direct = await stack.direct('GET', '/api/v1/queries', undefined, { 'X-API-Key': 'wrong' });
    expect(Object.keys(management401!.body).sort()).toEqual(Object.keys(direct.body).sort());
    expect(management401!.body.code).toBe(direct.body.code);
    expect(management401!.body.request_id).toBe(management401!.headers.get('x-request-id'));
  });
});

describe('a key whose day budget is spent', () => {
  it('is refused at the edge, without reaching the origin, as the origin refuses it; a dry run in the query string goes on', async () => {
    const tens = await createQuery(stack, { sql: 'SELECT * FROM range(10) t(i)' });
    const key = await createKey(stack, { queries: [tens], budget: { rows_per_day: 15 } });
    const first = await q(stack, tens, key.secret);
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.headers.get('x-budget-rows-remaining')).toBe('15');
    // The run that spends the budget may take a moment to be counted; the next call after it is refused.
    await expect.poll(async () => (await q(stack, tens, key.secret, '?dry_run=true')).headers.get('x-budget-rows-remaining')).toBe('5');
    expect((await q(stack, tens, key.secret)).status).toBe(200);
    // Once the origin found the budget spent, it pushed it to the edge like a revocation.
    let refused: Answer | undefined;
    await expect.poll(async () => (await originRequests(stack, async () => (refused = await q(stack, tens, key.secret)))) === 0 && refused?.status).toBe(429);
    expect(refused!.body).toEqual({
      error: expect.stringMatching(/rows_per_day budget is spent for today \(20 of 15\)/),
      code: 'budget_exhausted',
      budget: 'rows_per_day',
      spent: 20,
      limit: 15,
      retry_after: expect.any(Number),
    });
    expect(refused!.headers.get('retry-after')).toBe(String(refused!.body.retry_after));
    expect(refused!.headers.get('x-budget-rows-remaining')).toBe('0');
    const direct = await stack.direct('GET', `/q/${encodeURIComponent(tens)}`, undefined, { 'X-API-Key': key.secret });
    expect(direct.status).toBe(429);
    expect({ ...direct.body, retry_after: 0 }).toEqual({ ...refused!.body, retry_after: 0 });

    // A dry run spends nothing: it goes on to the origin, asked for in the query string or in a POST body.
    let dry: Answer | undefined;
    expect(await originRequests(stack, async () => (dry = await q(stack, tens, key.secret, '?dry_run=true')))).toBe(1);
    expect(dry!.body.would_refuse).toMatchObject({ code: 'budget_exhausted' });
    const post = (body: unknown) => stack.call('POST', `/q/${encodeURIComponent(tens)}`, body, { 'X-API-Key': key.secret });
    expect(await originRequests(stack, async () => (dry = await post({ dry_run: true })))).toBe(1);
    expect(dry!.status, JSON.stringify(dry!.body)).toBe(200);
    expect(dry!.body.would_refuse).toMatchObject({ code: 'budget_exhausted' });
    expect(await originRequests(stack, async () => (dry = await post({ dry_run: false })))).toBe(0);
    expect(dry!.status).toBe(429);
  });
});

describe('IP allow-lists from CF-Connecting-IP', () => {
  it('answers 401 at the edge to an address outside the list, and serves one inside it', async () => {
    const key = await createKey(stack, { queries: [query], allowed_ips: ['10.0.0.0/8', '2001:db8::/32'] });
    let outside;
    expect(await originRequests(stack, async () => (outside = await q(stack, query, key.secret, '', { 'CF-Connecting-IP': '203.0.113.9' })))).toBe(0);
    expect(outside!.status).toBe(401);
    expect(outside!.body).toEqual(UNAUTHORIZED);
    expect((await q(stack, query, key.secret, '', { 'CF-Connecting-IP': '2001:db8::7' })).status).toBe(200);
    // A miss goes to the origin, which checks the address the edge asserted against the same list.
    const inside = await q(stack, query, key.secret, '?format=csv', { 'CF-Connecting-IP': '10.1.2.3' });
    expect(inside.status).toBe(200);
    expect(inside.headers.get('x-cache')).toBe('MISS');
  });
});

describe('caller assertions sent straight to the origin', () => {
  const target = '/api/v1/queries';

  it('are refused unless signed with the edge secret, fresh, and made for that very request', async () => {
    const adminHash = await hashSecret(ADMIN_KEY);
    const claim = { ts: Date.now(), ip: '127.0.0.1', method: 'GET', target, credential: adminHash, clientLimited: true, keyLimited: true };
    const forged = await encodeAssertion('not-the-edge-secret-but-long-enough-000', claim);
    expect((await stack.direct('GET', target, undefined, { [ASSERTION_HEADER]: forged })).status).toBe(401);
    const tampered = (await encodeAssertion(stack.secret, claim)).replace(/^[^.]+/, Buffer.from(JSON.stringify({ ...claim, ip: '10.0.0.1' })).toString('base64url'));
    expect((await stack.direct('GET', target, undefined, { [ASSERTION_HEADER]: tampered })).status).toBe(401);
    const stale = await encodeAssertion(stack.secret, { ...claim, ts: Date.now() - 10 * 60_000 });
    expect((await stack.direct('GET', target, undefined, { [ASSERTION_HEADER]: stale })).status).toBe(401);
    const elsewhere = await encodeAssertion(stack.secret, { ...claim, target: '/catalog' });
    expect((await stack.direct('GET', target, undefined, { [ASSERTION_HEADER]: elsewhere })).status).toBe(401);
    expect((await stack.direct('GET', target, undefined, { [ASSERTION_HEADER]: 'garbage' })).status).toBe(401);
    // Signed with the secret, fresh and for this request: the origin identifies the credential itself.
    const genuine = await encodeAssertion(stack.secret, claim);
    expect((await stack.direct('GET', target, undefined, { [ASSERTION_HEADER]: genuine })).status).toBe(200);
  });

  it('are ignored by an origin without SLUICE_EDGE_SECRET: they never stand for a caller', async () => {
    const plain = await startOrigin({ edge: false, env: { SLUICE_API_KEY: ADMIN_KEY } });
    try {
      const claim = { ts: Date.now(), ip: '127.0.0.1', method: 'GET', target, credential: await hashSecret(ADMIN_KEY), clientLimited: true, keyLimited: true };
      const header = await encodeAssertion('some-secret-the-client-picked-0123456789', claim);
      expect((await plain.call('GET', target, undefined, { [ASSERTION_HEADER]: header })).status).toBe(401);
    } finally {
      await plain.stop();
    }
  });
});
