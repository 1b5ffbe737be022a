import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReplicaPush } from '../../shared/edge/replica.ts';
import { REPLICA_PATH, SIGNATURE_HEADER, sign } from '../../shared/edge/protocol.ts';
import { ADMIN, type Stack, createKey, createQuery, originRequests, q, startStack } from './fixture.ts';
import { eventually } from '../harness/eventually.ts';

/** Replica sync: signed, numbered pushes; a lease that lapses when the origin cannot reach the edge. */
let stack: Stack;
let query: string;

beforeAll(async () => {
  // A short lease, so a lapse is seen in seconds (heartbeats every second).
  stack = await startStack({ env: { SLUICE_EDGE_LEASE: '3' } });
  query = await createQuery(stack, { sql: 'SELECT 5 AS five', cache_ttl: 300 });
});
afterAll(() => stack?.stop());

async function push(message: Partial<ReplicaPush>, secret = stack.secret) {
  const body = JSON.stringify({ ts: Date.now(), leaseMs: 60_000, ...message });
  const res = await stack.fetch(REPLICA_PATH, {
    method: 'POST',
    headers: { 'content-type': 'application/json', [SIGNATURE_HEADER]: await sign(secret, 'replica', body) },
    body,
  });
  return { status: res.status, body: (await res.json()) as { seq?: number; error?: string } };
}

describe('pushes to the edge', () => {
  it('are refused unless signed with the edge secret and fresh', async () => {
    expect((await push({ seq: Number.MAX_SAFE_INTEGER, changes: {} }, 'a-secret-that-is-not-the-edge-secret-0000')).status).toBe(401);
    expect((await push({ seq: Number.MAX_SAFE_INTEGER, changes: {}, ts: Date.now() - 10 * 60_000 })).status).toBe(401);
    const res = await stack.fetch(REPLICA_PATH, { method: 'POST', body: '{}' });
    expect(res.status).toBe(401);
  });

  it('are applied once and in order: a replayed or out-of-order push is refused with the number held', async () => {
    const held = await push({ seq: 1, full: undefined, changes: {} });
    expect(held.status).toBe(409);
    expect(held.body.seq).toBeGreaterThan(1);
    // A change numbered above but based on another state is refused too.
    const elsewhere = await push({ seq: held.body.seq! + 10, base: held.body.seq! - 1, changes: {} });
    expect(elsewhere.status).toBe(409);
    // The origin's next heartbeat still applies: it starts over from a full snapshot when told the number.
    const key = await createKey(stack, { queries: [query] });
    expect((await q(stack, query, key.secret)).status).toBe(200);
  });
});

describe('when the edge cannot be reached during a management call', () => {
  it('the call succeeds; the edge, its lease lapsed, forwards everything; it answers again once pushes get through', async () => {
    const revoked = await createKey(stack, { queries: [query] });
    const kept = await createKey(stack, { queries: [query] });
    expect((await q(stack, query, kept.secret)).status).toBe(200);
    expect(await originRequests(stack, () => q(stack, query, kept.secret))).toBe(0);

    stack.cutLink(true);
    const patched = await stack.call('PATCH', `/api/v1/api-keys/${revoked.name}`, { active: false }, ADMIN);
    expect(patched.status).toBe(200);
    expect(patched.body.active).toBe(false);

    // Once the lease lapses every request goes to the origin, which answers from its own directory.
    await eventually(async () => (await originRequests(stack, () => q(stack, query, kept.secret))) === 1, { timeoutMs: 20_000 });
    let refused;
    expect(await originRequests(stack, async () => (refused = await q(stack, query, revoked.secret)))).toBe(1);
    expect(refused!.status).toBe(401);
    expect(refused!.body).toEqual({ error: 'Missing or invalid API key' });
    expect((await q(stack, query, kept.secret)).status).toBe(200);

    stack.cutLink(false);
    await eventually(async () => (await originRequests(stack, () => q(stack, query, kept.secret))) === 0, { timeoutMs: 20_000 });
    // Back in sync, with the change made meanwhile: refused at the edge.
    let again;
    expect(await originRequests(stack, async () => (again = await q(stack, query, revoked.secret)))).toBe(0);
    expect(again!.status).toBe(401);
  });
});
