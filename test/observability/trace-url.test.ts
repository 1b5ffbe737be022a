import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Origin, startOrigin } from '../harness/origin.ts';

/**
 * `GET /api/v1/me` carries SLUICE_TRACE_URL as `trace_url`
 * (docs/reference/administrators.md), the link the console's history puts a
 * run's trace id in: null without the variable, the template as written
 * with it, to every administrator down to an auditor.
 */

const ADMIN_KEY = 'trace-url-admin-key-0123456789abcdef';
const TRACE_URL = 'http://localhost:16686/trace/{trace_id}';
const admin = { 'x-api-key': ADMIN_KEY };

let plain: Origin;
let linked: Origin;

beforeAll(async () => {
  [plain, linked] = await Promise.all([
    startOrigin({ env: { SLUICE_API_KEY: ADMIN_KEY } }),
    startOrigin({ env: { SLUICE_API_KEY: ADMIN_KEY, SLUICE_TRACE_URL: TRACE_URL } }),
  ]);
}, 120_000);

afterAll(async () => {
  await Promise.all([plain?.stop(), linked?.stop()]);
});

describe('trace_url in GET /api/v1/me', () => {
  it('is null without SLUICE_TRACE_URL', async () => {
    const me = await plain.call('GET', '/api/v1/me', undefined, admin);
    expect(me.status).toBe(200);
    expect(me.body.trace_url).toBeNull();
  });

  it('is the template with SLUICE_TRACE_URL, to the server key and to an auditor alike', async () => {
    const me = await linked.call('GET', '/api/v1/me', undefined, admin);
    expect(me.status).toBe(200);
    expect(me.body.trace_url).toBe(TRACE_URL);

    expect((await linked.call('POST', '/api/v1/administrators', { name: 'tracy', role: 'auditor' }, admin)).status).toBe(201);
    const token = await linked.call('POST', '/api/v1/administrators/tracy/tokens', {}, admin);
    expect(token.status).toBe(201);
    const auditor = { authorization: `Bearer ${token.body.secret}` };
    const seen = await linked.call('GET', '/api/v1/me', undefined, auditor);
    expect(seen.status).toBe(200);
    expect(seen.body).toMatchObject({ role: 'auditor', trace_url: TRACE_URL });
  });
});
