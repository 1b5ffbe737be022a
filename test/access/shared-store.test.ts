import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Origin, startOrigin } from '../harness/origin.ts';
import { type FreshDatabase, freshDatabase } from '../harness/postgres-store.ts';
import { ADMIN_KEY, adminWithToken, apiKey, asAdmin, bearer, expectStatus, expectUnauthorized, scopedKey, unique } from './fixtures.ts';

/**
 * Two origins sharing one PostgreSQL store: every change to keys, tokens and
 * administrators made through one is in force on the very next request to
 * either, without polling; also while an origin's listener is down.
 */

let database: FreshDatabase;
let dir: string;
let a: Origin;
let b: Origin;

beforeAll(async () => {
  database = await freshDatabase();
  dir = await mkdtemp(join(tmpdir(), 'sluice-access-'));
  const env = { SLUICE_DATABASE_URL: database.url, SLUICE_EXAMPLES: '0', SLUICE_API_KEY: ADMIN_KEY };
  // One after the other: both would migrate the same new database.
  a = await startOrigin({ template: false, dataDir: await mkdtemp(join(dir, 'a-')), env });
  b = await startOrigin({ template: false, dataDir: await mkdtemp(join(dir, 'b-')), env });
});

afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
  await database?.drop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const catalog = (origin: Origin, secret: string) => origin.call('GET', '/catalog', undefined, apiKey(secret));
const me = (origin: Origin, token: string) => origin.call('GET', '/api/v1/me', undefined, bearer(token));

describe('two origins on one store', () => {
  it('see a new key, a revocation and a reactivation on the very next request', async () => {
    for (let round = 0; round < 5; round++) {
      const name = unique('shared-key');
      const secret = await scopedKey(round % 2 ? a : b, name);
      expectStatus(await catalog(a, secret), 200);
      expectStatus(await catalog(b, secret), 200);

      expectStatus(await asAdmin(a, 'PATCH', `/api/v1/api-keys/${name}`, { active: false }), 200);
      expectUnauthorized(await catalog(b, secret));
      expectUnauthorized(await catalog(a, secret));

      expectStatus(await asAdmin(b, 'PATCH', `/api/v1/api-keys/${name}`, { active: true }), 200);
      expectStatus(await catalog(a, secret), 200);

      expectStatus(await asAdmin(a, 'PATCH', `/api/v1/api-keys/${name}`, { allowed_ips: ['192.0.2.0/24'] }), 200);
      expectUnauthorized(await catalog(b, secret));

      expectStatus(await asAdmin(b, 'DELETE', `/api/v1/api-keys/${name}`), 200);
      expectUnauthorized(await catalog(a, secret));
    }
  });

  it('end a rotated-out secret on the very next request', async () => {
    const name = unique('rotating');
    const old = await scopedKey(a, name);
    expectStatus(await catalog(b, old), 200);
    const rotated = await asAdmin(a, 'POST', `/api/v1/api-keys/${name}/rotate`, { grace_minutes: 0 });
    expectStatus(rotated, 200);
    expectUnauthorized(await catalog(b, old));
    expectStatus(await catalog(b, rotated.body.secret), 200);
  });

  it('stop a revoked token and a deactivated administrator on the very next request', async () => {
    const name = unique('remote');
    const token = await adminWithToken(a, name, 'developer');
    expectStatus(await me(b, token), 200);
    const second = await b.call('POST', `/api/v1/administrators/${name}/tokens`, {}, bearer(token));
    expectStatus(second, 201);
    expectStatus(await me(a, second.body.secret), 200);
    expectStatus(await b.call('DELETE', `/api/v1/administrators/${name}/tokens/${second.body.id}`, undefined, bearer(token)), 200);
    expectUnauthorized(await me(a, second.body.secret));

    expectStatus(await asAdmin(b, 'PATCH', `/api/v1/administrators/${name}`, { role: 'auditor' }), 200);
    expect((await me(a, token)).body.role).toBe('auditor');
    expectStatus(await asAdmin(a, 'PATCH', `/api/v1/administrators/${name}`, { active: false }), 200);
    expectUnauthorized(await me(b, token));
  });

  it('read the store per request while the listener is down, and never serve a revoked key', async () => {
    const name = unique('listener');
    const secret = await scopedKey(a, name);
    expectStatus(await catalog(a, secret), 200);
    expectStatus(await catalog(b, secret), 200);
    // Cut every access listener: both origins lose notifications until they reconnect.
    const admin = postgres({ host: '127.0.0.1', port: 5432, user: 'postgres', database: database.name, max: 1, onnotice: () => {} });
    try {
      const cut = await admin`select pg_terminate_backend(pid) from pg_stat_activity
        where datname = ${database.name} and pid <> pg_backend_pid() and query ilike '%listen%sluice_access%'`;
      expect(cut.length).toBe(2);
    } finally {
      await admin.end({ timeout: 5 });
    }
    expectStatus(await asAdmin(a, 'PATCH', `/api/v1/api-keys/${name}`, { active: false }), 200);
    expectUnauthorized(await catalog(b, secret));
    expectUnauthorized(await catalog(a, secret));
    expectStatus(await asAdmin(b, 'PATCH', `/api/v1/api-keys/${name}`, { active: true }), 200);
    expectStatus(await catalog(a, secret), 200);
    expectStatus(await catalog(b, secret), 200);
  });
});
