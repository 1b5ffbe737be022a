import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, type Stack, createKey, createQuery, originRequests, q, startStack } from '../edge/fixture.ts';
import { unique } from '../harness/unique.ts';

/**
 * The edge decides reach as the origin does (shared/access/reach.ts): a key
 * of another workspace, even holding `*`, is never served a cached answer of
 * a `default` query; its request goes to the origin, which refuses it.
 */

let stack: Stack;
const WS2 = unique('edge-ws2');

beforeAll(async () => {
  stack = await startStack();
  const res = await stack.call('POST', '/api/v1/workspaces', { name: WS2 }, ADMIN);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
});
afterAll(() => stack?.stop());

/** A key of WS2 (made through its workspace path); its secret. */
async function ws2Key(grants: Record<string, unknown>): Promise<string> {
  const res = await stack.call('POST', `/w/${WS2}/api/v1/api-keys`, { name: unique('edge-ws2-key'), ...grants }, ADMIN);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.secret;
}

describe('a cached answer at the edge', () => {
  it("is never served to another workspace's key holding *", async () => {
    const name = await createQuery(stack, { sql: "SELECT 'default rows' AS d", cache_ttl: 300 });
    const own = await createKey(stack, { queries: [name] });
    expect((await q(stack, name, own.secret)).status).toBe(200);
    expect((await q(stack, name, own.secret)).headers.get('x-cache')).toBe('HIT');

    for (const grants of [{ queries: '*' }, { connections: '*' }]) {
      const secret = await ws2Key(grants);
      let refused;
      expect(await originRequests(stack, async () => (refused = await q(stack, name, secret)))).toBe(1);
      expect(refused!.status).toBe(404);
      expect(JSON.stringify(refused!.body)).not.toContain('default rows');
    }
  });
});
