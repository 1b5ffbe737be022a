import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Origin, startOrigin } from '../harness/origin.ts';
import { ADMIN_KEY, adminWithToken, apiKey, asAdmin, bearer, dateIn, expectStatus, expectUnauthorized, scopedKey, shiftDate } from './fixtures.ts';
import { expectError } from '../harness/expect-error.ts';
import { unique } from '../harness/unique.ts';
import { eventually } from '../harness/eventually.ts';

/**
 * Every kind of caller, and every way authentication fails with the one 401.
 *
 * The zone is chosen so the server's date differs from UTC's right now
 * (UTC+14 from 10:00 UTC, else UTC-11): a key whose `expires_at` is judged by
 * UTC rather than the server's zone fails one of the expiry cases.
 */
const ZONE = new Date().getUTCHours() >= 10 ? 'Pacific/Kiritimati' : 'Pacific/Pago_Pago';
const CORS_ORIGIN = 'https://app.example.com';

let open: Origin;
let plain: Origin;
let guarded: Origin;

beforeAll(async () => {
  [open, plain, guarded] = await Promise.all([
    startOrigin(),
    startOrigin({ env: { SLUICE_API_KEY: ADMIN_KEY } }),
    startOrigin({ env: { SLUICE_API_KEY: ADMIN_KEY, SLUICE_TRUST_PROXY: '1', TZ: ZONE, SLUICE_CORS_ORIGINS: `${CORS_ORIGIN},https://Other.example.com:8443/` } }),
  ]);
});

afterAll(async () => {
  await Promise.all([open?.stop(), plain?.stop(), guarded?.stop()]);
});

const catalog = (origin: Origin, headers: Record<string, string> = {}) => origin.call('GET', '/catalog', undefined, headers);

describe('an open server', () => {
  it('serves everyone as the administrator `-` until the first administrator, never strands itself with a first scoped key', async () => {
    const me = await open.call('GET', '/api/v1/me');
    expectStatus(me, 200);
    expect(me.body).toMatchObject({ name: '-', via: 'open', role: 'owner', server_wide: true, data_access: 'all', workspace: 'default' });
    // A key nobody configured is ignored while the server is open.
    expectStatus(await catalog(open, apiKey('slc_whatever')), 200);

    // A first scoped key would lock every administrator out: refused, saying what to do instead.
    const first = { name: unique('first'), connections: ['*'], allowed_ips: ['127.0.0.1'] };
    const stranded = await open.call('POST', '/api/v1/api-keys', first);
    expectError(stranded, 409, 'administrator_required');
    expect(stranded.body.error).toContain('POST /api/v1/administrators');
    expect(stranded.body.error).toContain('SLUICE_API_KEY');
    expectStatus(await catalog(open), 200);

    const owner = await open.call('POST', '/api/v1/administrators', { name: unique('owner'), role: 'owner' });
    expectStatus(owner, 201);
    const token: string = owner.body.token.secret;
    expectUnauthorized(await catalog(open));
    const created = await open.call('POST', '/api/v1/api-keys', first, bearer(token));
    expectStatus(created, 201);
    const secret: string = created.body.secret;

    expectUnauthorized(await open.call('GET', '/api/v1/me'));
    expectStatus(await open.call('GET', '/api/v1/me', undefined, bearer(token)), 200);
    expectStatus(await catalog(open, apiKey(secret)), 200);
    for (const path of ['/health', '/openapi.json', '/docs']) expectStatus(await open.call('GET', path), 200);
    // Without SLUICE_TRUST_PROXY a forwarded address is not the client's: the socket peer (127.0.0.1) is.
    expectStatus(await catalog(open, { ...apiKey(secret), 'x-forwarded-for': '198.51.100.1' }), 200);

    // Scoped keys are recognised on /api/v1, and refused.
    const refused = await open.call('GET', '/api/v1/me', undefined, apiKey(secret));
    expectError(refused, 403, 'forbidden');
    expect(refused.body.error).toMatch(/scoped keys/i);
  });
});

describe('the server key', () => {
  it('is the break-glass administrator in X-API-Key, and nothing else', async () => {
    const me = await asAdmin(plain, 'GET', '/api/v1/me');
    expectStatus(me, 200);
    expect(me.body).toMatchObject({ name: 'admin', via: 'break-glass', role: 'owner', server_wide: true, data_access: 'all' });
    expectUnauthorized(await plain.call('GET', '/api/v1/me', undefined, apiKey(`${ADMIN_KEY}x`)));
    expectUnauthorized(await plain.call('GET', '/api/v1/me', undefined, apiKey(ADMIN_KEY.slice(0, -1))));
    expectUnauthorized(await plain.call('GET', '/api/v1/me', undefined, bearer(ADMIN_KEY)));
  });

  it('ignores X-Forwarded-For without SLUICE_TRUST_PROXY', async () => {
    const secret = await scopedKey(plain, unique('ranged'), { allowed_ips: ['203.0.113.0/24'] });
    expectUnauthorized(await catalog(plain, { ...apiKey(secret), 'x-forwarded-for': '203.0.113.5' }));
  });
});

describe('scoped keys', () => {
  it('are valid through the end of their expires_at day in the server\'s zone', async () => {
    const today = dateIn(ZONE, Date.now());
    const valid = await scopedKey(guarded, unique('today'), { expires_at: today });
    const later = await scopedKey(guarded, unique('tomorrow'), { expires_at: shiftDate(today, 1) });
    const past = await scopedKey(guarded, unique('yesterday'), { expires_at: shiftDate(today, -1) });
    expectStatus(await catalog(guarded, apiKey(valid)), 200);
    expectStatus(await catalog(guarded, apiKey(later)), 200);
    expectUnauthorized(await catalog(guarded, apiKey(past)));
  });

  it('fail when inactive, and work again when reactivated', async () => {
    const name = unique('inactive');
    const secret = await scopedKey(guarded, name, { active: false });
    expectUnauthorized(await catalog(guarded, apiKey(secret)));
    expectStatus(await asAdmin(guarded, 'PATCH', `/api/v1/api-keys/${name}`, { active: true }), 200);
    expectStatus(await catalog(guarded, apiKey(secret)), 200);
  });

  it('are bound to allowed_ips, read from X-Forwarded-For one hop from the right under SLUICE_TRUST_PROXY=1', async () => {
    const secret = await scopedKey(guarded, unique('ips'), { allowed_ips: ['203.0.113.0/24', '2001:db8::/32'] });
    const from = (xff: string) => catalog(guarded, { ...apiKey(secret), 'x-forwarded-for': xff });
    expectStatus(await from('203.0.113.9'), 200);
    expectStatus(await from('10.9.9.9, 203.0.113.9'), 200);
    expectStatus(await from('2001:db8::17'), 200);
    expectUnauthorized(await from('198.51.100.7'));
    // The rightmost entry is the one the trusted proxy wrote; what the client claimed before it does not count.
    expectUnauthorized(await from('203.0.113.9, 10.0.0.1'));
    // No header behind a trusted proxy: the socket peer, outside the ranges.
    expectUnauthorized(await catalog(guarded, apiKey(secret)));
  });

  it('accept the previous secret of a rotation during its grace only', async () => {
    const name = unique('rotated');
    const old = await scopedKey(guarded, name);
    const rotated = await asAdmin(guarded, 'POST', `/api/v1/api-keys/${name}/rotate`, { grace_minutes: 60 });
    expectStatus(rotated, 200);
    expectStatus(await catalog(guarded, apiKey(old)), 200);
    expectStatus(await catalog(guarded, apiKey(rotated.body.secret)), 200);
    expectStatus(await asAdmin(guarded, 'DELETE', `/api/v1/api-keys/${name}/previous`), 200);
    expectUnauthorized(await catalog(guarded, apiKey(old)));
    expectStatus(await catalog(guarded, apiKey(rotated.body.secret)), 200);
  });

  it('record last use at most once a minute, off the request path', async () => {
    const name = unique('used');
    const secret = await scopedKey(guarded, name);
    expect((await asAdmin(guarded, 'GET', `/api/v1/api-keys/${name}`)).body.last_used_at).toBeNull();
    expectStatus(await catalog(guarded, apiKey(secret)), 200);
    const first = await settled(guarded, `/api/v1/api-keys/${name}`, (body) => body.last_used_at);
    expectStatus(await catalog(guarded, apiKey(secret)), 200);
    // The embedded store runs one statement at a time, in the order they come: a write the second call started would come before this read.
    expect((await asAdmin(guarded, 'GET', `/api/v1/api-keys/${name}`)).body.last_used_at).toBe(first);
  });
});

describe('administrator tokens', () => {
  it('are accepted as Authorization: Bearer and in X-API-Key, and stop with their administrator', async () => {
    const name = unique('tokened');
    const token = await adminWithToken(guarded, name, 'auditor');
    for (const headers of [bearer(token), apiKey(token), { ...bearer(token), ...apiKey('slc_wrong') }, { ...bearer('slc_adm_wrong'), ...apiKey(token) }]) {
      const me = await guarded.call('GET', '/api/v1/me', undefined, headers);
      expectStatus(me, 200);
      expect(me.body).toMatchObject({ name, via: 'token', role: 'auditor', server_wide: true, data_access: 'none' });
    }
    const seen = await settled(guarded, `/api/v1/administrators/${name}`, (body) => body.last_seen_at);
    expect(seen).toMatch(/^\d{4}-/);
    const tokens = await asAdmin(guarded, 'GET', `/api/v1/administrators/${name}/tokens`);
    expect(tokens.body.tokens[0].last_used_at).toMatch(/^\d{4}-/);

    expectStatus(await asAdmin(guarded, 'PATCH', `/api/v1/administrators/${name}`, { active: false }), 200);
    expectUnauthorized(await guarded.call('GET', '/api/v1/me', undefined, bearer(token)));
    expectStatus(await asAdmin(guarded, 'PATCH', `/api/v1/administrators/${name}`, { active: true }), 200);
    expectStatus(await guarded.call('GET', '/api/v1/me', undefined, bearer(token)), 200);
    expectStatus(await asAdmin(guarded, 'DELETE', `/api/v1/administrators/${name}`), 200);
    expectUnauthorized(await guarded.call('GET', '/api/v1/me', undefined, bearer(token)));
  });

  it('expire at their expires_at', async () => {
    const name = unique('brief');
    await adminWithToken(guarded, name, 'developer');
    const expiresAt = new Date(Date.now() + 1500).toISOString();
    const issued = await asAdmin(guarded, 'POST', `/api/v1/administrators/${name}/tokens`, { expires_at: expiresAt });
    expectStatus(issued, 201);
    expect(issued.body.expired).toBe(false);
    expectStatus(await guarded.call('GET', '/api/v1/me', undefined, bearer(issued.body.secret)), 200);
    await new Promise((r) => setTimeout(r, Math.max(0, Date.parse(expiresAt) - Date.now()) + 100));
    expectUnauthorized(await guarded.call('GET', '/api/v1/me', undefined, bearer(issued.body.secret)));
    const listed = await asAdmin(guarded, 'GET', `/api/v1/administrators/${name}/tokens`);
    expect(listed.body.tokens.find((t: any) => t.id === issued.body.id).expired).toBe(true);
  });
});

describe('every failure', () => {
  it('answers the same 401 body, on query routes and on /api/v1', async () => {
    const expired = await scopedKey(guarded, unique('old'), { expires_at: '2001-01-01' });
    const inactive = await scopedKey(guarded, unique('off'), { active: false });
    const elsewhere = await scopedKey(guarded, unique('far'), { allowed_ips: ['192.0.2.1'] });
    const revokedName = unique('revoked');
    const revoked = await adminWithToken(guarded, revokedName, 'owner');
    const tokens = await asAdmin(guarded, 'GET', `/api/v1/administrators/${revokedName}/tokens`);
    expectStatus(await asAdmin(guarded, 'DELETE', `/api/v1/administrators/${revokedName}/tokens/${tokens.body.tokens[0].id}`), 200);

    const failures: Array<Record<string, string>> = [
      {},
      apiKey('slc_notakey'),
      apiKey(''),
      bearer('slc_adm_notatoken'),
      apiKey(expired),
      apiKey(inactive),
      { ...apiKey(elsewhere), 'x-forwarded-for': '192.0.2.2' },
      bearer(revoked),
    ];
    const bodies = new Set<string>();
    for (const headers of failures) {
      for (const path of ['/catalog', '/api/v1/me']) {
        const res = await guarded.call('GET', path, undefined, headers);
        expectUnauthorized(res);
        const { request_id: _id, ...rest } = res.body;
        bodies.add(`${path} ${JSON.stringify(rest)}`);
      }
    }
    expect(bodies.size).toBe(2);
  });
});

describe('CORS', () => {
  it('answers listed origins\' preflights before authentication and marks their responses, errors included', async () => {
    const preflight = await guarded.fetch('/api/v1/connections', {
      method: 'OPTIONS',
      headers: { origin: CORS_ORIGIN, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type,x-api-key' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe(CORS_ORIGIN);
    expect(preflight.headers.get('access-control-allow-methods')).toMatch(/GET, POST, PUT, PATCH, DELETE, OPTIONS/);
    expect(preflight.headers.get('access-control-allow-headers')).toBe('Content-Type, X-API-Key, traceparent, tracestate');
    expect(preflight.headers.get('access-control-allow-credentials')).toBeNull();

    // Listed with a trailing slash, an upper-case host and a port: matched as browsers send Origin.
    const other = await guarded.fetch('/health', { headers: { origin: 'https://other.example.com:8443' } });
    expect(other.headers.get('access-control-allow-origin')).toBe('https://other.example.com:8443');

    const denied = await guarded.fetch('/catalog', { headers: { origin: CORS_ORIGIN } });
    expect(denied.status).toBe(401);
    expect(denied.headers.get('access-control-allow-origin')).toBe(CORS_ORIGIN);
    const exposed = denied.headers.get('access-control-expose-headers') ?? '';
    for (const name of ['X-Page', 'X-Page-Size', 'X-Has-More', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Key-Limit', 'X-RateLimit-Key-Remaining', 'Retry-After']) {
      expect(exposed).toContain(name);
    }

    const stranger = await guarded.fetch('/api/v1/connections', {
      method: 'OPTIONS',
      headers: { origin: 'https://evil.example.net', 'access-control-request-method': 'POST' },
    });
    expect(stranger.status).toBe(204);
    expect(stranger.headers.get('access-control-allow-origin')).toBeNull();
    expect((await guarded.fetch('/health', { headers: { origin: 'https://evil.example.net' } })).headers.get('access-control-allow-origin')).toBeNull();
    // Off where SLUICE_CORS_ORIGINS is unset.
    expect((await plain.fetch('/health', { headers: { origin: CORS_ORIGIN } })).headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('startup', () => {
  it('stops on a malformed SLUICE_TRUST_PROXY or SLUICE_CORS_ORIGINS, naming it', async () => {
    await expect(startOrigin({ env: { SLUICE_TRUST_PROXY: 'two' } })).rejects.toThrow(/SLUICE_TRUST_PROXY/);
    await expect(startOrigin({ env: { SLUICE_CORS_ORIGINS: 'https://app.example.com/path' } })).rejects.toThrow(/SLUICE_CORS_ORIGINS/);
  });
});

/** Polls a server-key GET until `pick` gives a value (writes off the request path land shortly after). */
const settled = (origin: Origin, path: string, pick: (body: any) => unknown): Promise<unknown> =>
  eventually(async () => pick((await asAdmin(origin, 'GET', path)).body) ?? undefined, { what: path, timeoutMs: 5_000 });
