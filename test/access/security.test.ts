import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isPublicPath } from '../../shared/access/public-paths.ts';
import { createApp } from '../../origin/app.ts';
import type { AppDeps } from '../../origin/deps.ts';
import { type Origin, startOrigin } from '../harness/origin.ts';
import { ADMIN_KEY, type Reply, apiKey, asAdmin, bearer, expectStatus, expectUnauthorized } from './fixtures.ts';
import { expectError } from '../harness/expect-error.ts';
import { unique } from '../harness/unique.ts';

/**
 * The shared security test: every protected route of the origin (read from
 * the app's own route table, so a new route is covered the day it lands) is
 * called with each way a caller can fail, and must refuse:
 *
 * | case | expected |
 * |---|---|
 * | no key, wrong key, expired key, inactive key, wrong address | 401, one body |
 * | scoped key on /api/v1 (plain and workspace-scoped) | 403 `forbidden` |
 * | wrong workspace (one the administrator may not see, or none) | 404 `workspace_not_found` |
 * | over the server-wide rate limit, even with the server key | 429 with `Retry-After` |
 *
 * No case ever reaches a route's handler, so nothing is changed.
 */

const RATE_LIMIT = 5;

/** Method and path of every route but the public ones, path parameters filled in. */
const ROUTES: Array<{ method: string; path: string }> = (() => {
  const seen = new Set<string>();
  const routes: Array<{ method: string; path: string }> = [];
  for (const route of createApp({} as AppDeps).routes) {
    if (route.method === 'ALL' || isPublicPath(route.path)) continue;
    const path = route.path.replace(/:version(\{[^}]*\})?/g, '1').replace(/:\w+(\{[^}]*\})?/g, 'sec-probe');
    const key = `${route.method} ${path}`;
    if (!seen.has(key)) routes.push({ method: route.method, path });
    seen.add(key);
  }
  return routes;
})();
const MANAGEMENT = ROUTES.filter((r) => r.path.startsWith('/api/v1/'));

let origin: Origin;
let expired: string;
let inactive: string;
let ranged: string;
let valid: string;
let outsider: string;
let hidden: string;

/** Each request from its own address, so only the rate-limit case ever meets the limit. */
let address = 0;
const fresh = () => `10.${(++address >> 16) & 255}.${(address >> 8) & 255}.${address & 255}`;
const OVER_LIMIT = '198.51.100.250';

function call(route: { method: string; path: string }, headers: Record<string, string>, from = fresh()): Promise<Reply> {
  return origin.call(route.method, route.path, route.method === 'GET' ? undefined : {}, { 'x-forwarded-for': from, ...headers });
}

beforeAll(async () => {
  origin = await startOrigin({ env: { SLUICE_API_KEY: ADMIN_KEY, SLUICE_TRUST_PROXY: '1', SLUICE_RATE_LIMIT: `${RATE_LIMIT}/hour` } });
  const setup = (method: string, path: string, body?: unknown) => asAdmin(origin, method, path, body, { 'x-forwarded-for': fresh() });
  const key = async (fields: Record<string, unknown>) => {
    const res = await setup('POST', '/api/v1/api-keys', { name: unique('sec'), connections: ['*'], ...fields });
    expectStatus(res, 201);
    return res.body.secret as string;
  };
  expired = await key({ expires_at: '2001-01-01' });
  inactive = await key({ active: false });
  ranged = await key({ allowed_ips: ['192.0.2.0/24'] });
  valid = await key({});
  hidden = unique('hidden');
  expectStatus(await setup('POST', '/api/v1/workspaces', { name: hidden }), 201);
  const name = unique('outsider');
  expectStatus(await setup('POST', '/api/v1/administrators', { name, role: null }), 201);
  const issued = await setup('POST', `/api/v1/administrators/${name}/tokens`, {});
  expectStatus(issued, 201);
  outsider = issued.body.secret;
});

afterAll(async () => {
  await origin?.stop();
});

describe('every protected route', () => {
  it('is found in the route table', () => {
    expect(ROUTES.length).toBeGreaterThan(40);
    for (const expected of ['POST /execute_sql', 'GET /q/sec-probe', 'GET /catalog', 'GET /api/v1/me', 'GET /api/v1/api-keys', 'DELETE /api/v1/workspaces/sec-probe']) {
      expect(ROUTES.map((r) => `${r.method} ${r.path}`)).toContain(expected);
    }
  });

  const failures: Array<[string, () => Record<string, string>, string?]> = [
    ['no key', () => ({})],
    ['a wrong key', () => apiKey('slc_0000000000000000000000000000000')],
    ['a wrong token', () => bearer('slc_adm_00000000000000000000000000000000')],
    ['an expired key', () => apiKey(expired)],
    ['an inactive key', () => apiKey(inactive)],
    ['a key from outside its allowed_ips', () => apiKey(ranged)],
  ];
  for (const [label, headers] of failures) {
    it(`refuses ${label} with the one 401`, async () => {
      for (const route of ROUTES) {
        const res = await call(route, headers());
        expect(res.status, `${route.method} ${route.path}`).toBe(401);
        expectUnauthorized(res);
      }
    });
  }

  it('refuses a scoped key on /api/v1 and /w/<workspace>/api/v1 with 403', async () => {
    for (const route of MANAGEMENT) {
      for (const path of [route.path, `/w/default${route.path}`]) {
        const res = await call({ method: route.method, path }, apiKey(valid));
        expect(res.status, `${route.method} ${path}`).toBe(403);
        expectError(res, 403, 'forbidden');
      }
    }
  });

  it('answers 404 for a workspace the administrator may not see, or that does not exist', async () => {
    for (const route of MANAGEMENT) {
      for (const workspace of [hidden, 'no-such-workspace']) {
        const path = `/w/${workspace}${route.path}`;
        const res = await call({ method: route.method, path }, bearer(outsider));
        expect(res.status, `${route.method} ${path}`).toBe(404);
        expectError(res, 404, 'workspace_not_found');
      }
    }
  });

  it('refuses a client over the server-wide rate limit, even with the server key', async () => {
    for (let i = 0; i < RATE_LIMIT; i++) expectStatus(await call({ method: 'GET', path: '/api/v1/me' }, apiKey(ADMIN_KEY), OVER_LIMIT), 200);
    for (const route of ROUTES) {
      const res = await call(route, apiKey(ADMIN_KEY), OVER_LIMIT);
      expect(res.status, `${route.method} ${route.path}`).toBe(429);
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(res.body.error).toMatch(/^Rate limit exceeded/);
    }
  });
});
