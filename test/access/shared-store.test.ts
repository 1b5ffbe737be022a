import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Origin, startOrigin } from '../harness/origin.ts';
import { type FreshDatabase, freshDatabase } from '../harness/postgres-store.ts';
import { ADMIN_KEY, type Reply, adminWithToken, apiKey, asAdmin, bearer, expectStatus, expectUnauthorized, scopedKey } from './fixtures.ts';
import { unique } from '../harness/unique.ts';

/**
 * Two origins sharing one PostgreSQL store: every change to keys, tokens and
 * administrators is in force on the very next request to the origin that
 * made it, and on the other origin once the notification reaches it: the
 * changing origin answers only after its own notification came back, so
 * that is normally the very next request too, but a starved machine may
 * deliver it a little later, hence `soon` there. While an origin's listener
 * is down it reads the store per request, and is exact again.
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

/** The other origin's answer, once its notification arrived (at most 10 s, generous for a loaded machine; a missed one would take a minute). */
async function soon(ask: () => Promise<Reply>, status: number): Promise<Reply> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const res = await ask();
    if (res.status === status || Date.now() > deadline) return res;
    await new Promise((r) => setTimeout(r, 20));
  }
}
const me = (origin: Origin, token: string) => origin.call('GET', '/api/v1/me', undefined, bearer(token));

describe('two origins on one store', () => {
  it('see a new key, a revocation and a reactivation: at once where made, as soon as notified elsewhere', async () => {
    for (let round = 0; round < 5; round++) {
      const name = unique('shared-key');
      const [maker, other] = round % 2 ? [a, b] : [b, a];
      const secret = await scopedKey(maker, name);
      expectStatus(await catalog(maker, secret), 200);
      expectStatus(await soon(() => catalog(other, secret), 200), 200);

      expectStatus(await asAdmin(a, 'PATCH', `/api/v1/api-keys/${name}`, { active: false }), 200);
      expectUnauthorized(await catalog(a, secret));
      expectUnauthorized(await soon(() => catalog(b, secret), 401));

      expectStatus(await asAdmin(b, 'PATCH', `/api/v1/api-keys/${name}`, { active: true }), 200);
      expectStatus(await catalog(b, secret), 200);
      expectStatus(await soon(() => catalog(a, secret), 200), 200);

      expectStatus(await asAdmin(a, 'PATCH', `/api/v1/api-keys/${name}`, { allowed_ips: ['192.0.2.0/24'] }), 200);
      expectUnauthorized(await catalog(a, secret));
      expectUnauthorized(await soon(() => catalog(b, secret), 401));

      expectStatus(await asAdmin(b, 'DELETE', `/api/v1/api-keys/${name}`), 200);
      expectUnauthorized(await catalog(b, secret));
      expectUnauthorized(await soon(() => catalog(a, secret), 401));
    }
  });

  it('end a rotated-out secret', async () => {
    const name = unique('rotating');
    const old = await scopedKey(a, name);
    expectStatus(await soon(() => catalog(b, old), 200), 200);
    const rotated = await asAdmin(a, 'POST', `/api/v1/api-keys/${name}/rotate`, { grace_minutes: 0 });
    expectStatus(rotated, 200);
    expectUnauthorized(await catalog(a, old));
    expectUnauthorized(await soon(() => catalog(b, old), 401));
    expectStatus(await catalog(b, rotated.body.secret), 200);
  });

  it('stop a revoked token and a deactivated administrator', async () => {
    const name = unique('remote');
    const token = await adminWithToken(a, name, 'developer');
    expectStatus(await soon(() => me(b, token), 200), 200);
    const second = await b.call('POST', `/api/v1/administrators/${name}/tokens`, {}, bearer(token));
    expectStatus(second, 201);
    expectStatus(await soon(() => me(a, second.body.secret), 200), 200);
    expectStatus(await b.call('DELETE', `/api/v1/administrators/${name}/tokens/${second.body.id}`, undefined, bearer(token)), 200);
    expectUnauthorized(await me(b, second.body.secret));
    expectUnauthorized(await soon(() => me(a, second.body.secret), 401));

    expectStatus(await asAdmin(b, 'PATCH', `/api/v1/administrators/${name}`, { role: 'auditor' }), 200);
    expect((await me(b, token)).body.role).toBe('auditor');
    expectStatus(await asAdmin(a, 'PATCH', `/api/v1/administrators/${name}`, { active: false }), 200);
    expectUnauthorized(await me(a, token));
    expectUnauthorized(await soon(() => me(b, token), 401));
  });

  it('read the store per request while the listener is down, and never serve a revoked key', async () => {
    const name = unique('listener');
    const secret = await scopedKey(a, name);
    expectStatus(await catalog(a, secret), 200);
    expectStatus(await soon(() => catalog(b, secret), 200), 200);
    // Cut every access listener: both origins lose notifications until they reconnect.
    const admin = postgres({ host: '127.0.0.1', port: 5432, user: 'postgres', database: database.name, max: 1, onnotice: () => {} });
    try {
      const cut = await admin`select pg_terminate_backend(pid) from pg_stat_activity
        where datname = ${database.name} and pid <> pg_backend_pid() and query ilike '%listen%sluice_access%'`;
      expect(cut.length).toBe(2);
    } finally {
      await admin.end({ timeout: 5 });
    }
    // Let both origins see their listener close (they reconnect after a second).
    await new Promise((r) => setTimeout(r, 300));
    expectStatus(await asAdmin(a, 'PATCH', `/api/v1/api-keys/${name}`, { active: false }), 200);
    expectUnauthorized(await catalog(b, secret));
    expectUnauthorized(await catalog(a, secret));
    expectStatus(await asAdmin(b, 'PATCH', `/api/v1/api-keys/${name}`, { active: true }), 200);
    expectStatus(await catalog(a, secret), 200);
    expectStatus(await catalog(b, secret), 200);
  });
});
