import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Origin } from '../harness/origin.ts';
import { KEYS, ROLES, ZONED, admin, auditOf, createKey, keyAt, roleAt, startKeysOrigin } from './fixtures.ts';
import { expectError } from '../harness/expect-error.ts';
import { unique } from '../harness/unique.ts';

/** Roles (key grant templates), keys created from them (a copy made once), and the names keys share with administrators. */

let origin: Origin;
beforeAll(async () => {
  origin = await startKeysOrigin();
  // Grants name saved queries (of the role's workspace, default).
  for (const name of ['top customers', 'log visit']) {
    const res = await admin(origin, 'POST', '/api/v1/queries', { name, sql: 'select 1 as one', connection_name: 'examples' });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
  }
});
afterAll(async () => {
  await origin?.stop();
});

async function createRole(body: Record<string, unknown>) {
  const res = await admin(origin, 'POST', ROLES, body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res;
}

const ANALYST = {
  connections: ['examples'],
  queries: ['top customers', { name: 'log visit', allow_writes: true }],
  allow_writes: true,
  allowed_write_ops: ['insert'],
  max_rows: 100,
  quota: '500/day',
  rate_limit: '20/minute',
  allowed_ips: ['10.0.0.0/8'],
};

describe('roles', () => {
  it('creates a role with the grant fields, keys_created, an ETag and a Location', async () => {
    const name = unique('analyst');
    const res = await createRole({ name, ...ANALYST, rate_limit: '20/Minutes', budget: { rows_per_day: 5000 } });
    expect(res.headers.get('etag')).toMatch(/^"r\d+\.1"$/);
    expect(res.headers.get('location')).toBe(roleAt(name));
    expect(res.body).toEqual({
      name,
      workspace: 'default',
      ...ANALYST,
      queries: ['top customers', { name: 'log visit', allow_writes: true }],
      collections: [],
      allowed_tables: null,
      max_concurrent: null,
      query_timeout: null,
      budget: { max_estimated_rows: null, rows_per_day: 5000, db_seconds_per_day: null },
      keys_created: 0,
      created_at: expect.stringMatching(ZONED),
      created_by: 'admin',
      updated_at: expect.stringMatching(ZONED),
    });
    const read = await admin(origin, 'GET', roleAt(name));
    expect(read.body).toEqual(res.body);
    expect(read.headers.get('etag')).toBe(res.headers.get('etag'));
  });

  it('refuses key-only fields, unknown fields, bad names and bad grants', async () => {
    expectError(await admin(origin, 'POST', ROLES, { name: unique('r'), expires_at: '2999-01-01' }), 400, 'unknown_field');
    expectError(await admin(origin, 'POST', ROLES, { name: unique('r'), active: true }), 400, 'unknown_field');
    expectError(await admin(origin, 'POST', ROLES, { name: unique('r'), role: 'x' }), 400, 'unknown_field');
    expectError(await admin(origin, 'POST', ROLES, { name: 'bad/name' }), 400, 'invalid_name');
    expectError(await admin(origin, 'POST', ROLES, { name: 'y'.repeat(101) }), 400, 'invalid_name');
    expectError(await admin(origin, 'POST', ROLES, { name: unique('r'), rate_limit: '1/fortnight' }), 400, 'invalid_request');
  });

  it('answers 409 role_exists and 404 role_not_found', async () => {
    const name = unique('twice');
    await createRole({ name });
    expectError(await admin(origin, 'POST', ROLES, { name }), 409, 'role_exists');
    for (const method of ['GET', 'PATCH', 'DELETE']) {
      expectError(await admin(origin, method, roleAt('no such role'), method === 'PATCH' ? { max_rows: 1 } : undefined), 404, 'role_not_found');
    }
  });

  it('lists roles by name with keys_created', async () => {
    const a = unique('list-b');
    const b = unique('list-a');
    await createRole({ name: a });
    await createRole({ name: b });
    await createKey(origin, { name: unique('from-a'), role: a });
    await createKey(origin, { name: unique('from-a'), role: a });
    const res = await admin(origin, 'GET', ROLES);
    expect(res.status).toBe(200);
    const names = res.body.roles.map((r: { name: string }) => r.name);
    expect(names).toEqual([...names].sort((x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0)));
    expect(res.body.roles.find((r: { name: string }) => r.name === a).keys_created).toBe(2);
    expect(res.body.roles.find((r: { name: string }) => r.name === b).keys_created).toBe(0);
    expect((await admin(origin, 'GET', roleAt(a))).body.keys_created).toBe(2);
  });

  it('changes a role with PATCH (null resets, If-Match) and audits a diff', async () => {
    const name = unique('patch');
    const created = await createRole({ name, max_rows: 10, connections: '*' });
    const res = await admin(origin, 'PATCH', roleAt(name), { max_rows: null, quota: '9/month' }, { 'if-match': created.headers.get('etag')! });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ max_rows: null, quota: '9/month', connections: ['*'] });
    expect(res.headers.get('etag')).toMatch(/^"r\d+\.2"$/);
    expectError(await admin(origin, 'PATCH', roleAt(name), { max_rows: 1 }, { 'if-match': created.headers.get('etag')! }), 412, 'precondition_failed');
    expectError(await admin(origin, 'PATCH', roleAt(name), { name: 'other' }), 400, 'invalid_request');
    expectError(await admin(origin, 'PATCH', roleAt(name), { active: false }), 400, 'unknown_field');
    const [entry] = await auditOf(origin, 'update_role', name);
    expect(entry.changes).toEqual({ max_rows: { from: 10, to: null }, quota: { from: null, to: '9/month' } });
  });

  it('audits create_role and delete_role with full snapshots', async () => {
    const name = unique('audited');
    await createRole({ name, connections: ['examples'] });
    const removed = await admin(origin, 'DELETE', roleAt(name));
    expect(removed.status).toBe(200);
    expect(removed.body).toMatchObject({ name, connections: ['examples'] });
    expectError(await admin(origin, 'GET', roleAt(name)), 404, 'role_not_found');
    const [create] = await auditOf(origin, 'create_role', name);
    const [remove] = await auditOf(origin, 'delete_role', name);
    expect(create.changes).toMatchObject({ name, workspace: 'default', connections: ['examples'], max_rows: null });
    expect(remove.changes).toEqual(create.changes);
  });
});

describe('keys from a role', () => {
  it('copies the role grants once, with expires_at and active allowed alongside', async () => {
    const role = unique('template');
    await createRole({ name: role, ...ANALYST });
    const name = unique('copied');
    const res = await createKey(origin, { name, role, expires_at: '2999-06-30', active: false });
    expect(res.body).toMatchObject({ ...ANALYST, name, created_from_role: role, expires_at: '2999-06-30', active: false });
    expect(res.body.secret).toMatch(/^slc_/);
    const [entry] = await auditOf(origin, 'create_key', name);
    expect(entry.changes).toMatchObject({ created_from_role: role, max_rows: 100 });
  });

  it('refuses role with any explicit grant field (400), and an unknown role (404 role_not_found)', async () => {
    const role = unique('strict');
    await createRole({ name: role });
    for (const field of [{ connections: [] }, { max_rows: 5 }, { allowed_ips: null }, { allow_writes: false }]) {
      const res = await admin(origin, 'POST', KEYS, { name: unique('k'), role, ...field });
      expectError(res, 400, 'invalid_request');
      expect(Object.keys(res.body.errors)).toEqual(Object.keys(field));
    }
    expectError(await admin(origin, 'POST', KEYS, { name: unique('k'), role: 'no such role' }), 404, 'role_not_found');
  });

  it('never changes a key when its role is edited or deleted', async () => {
    const role = unique('live');
    await createRole({ name: role, connections: ['examples'], max_rows: 50 });
    const name = unique('frozen');
    const created = await createKey(origin, { name, role });
    await admin(origin, 'PATCH', roleAt(role), { connections: '*', max_rows: 1, rate_limit: '1/day' });
    let key = await admin(origin, 'GET', keyAt(name));
    expect(key.body).toMatchObject({ connections: ['examples'], max_rows: 50, rate_limit: null, created_from_role: role });
    expect(key.headers.get('etag')).toBe(created.headers.get('etag'));
    await admin(origin, 'DELETE', roleAt(role));
    key = await admin(origin, 'GET', keyAt(name));
    expect(key.body).toMatchObject({ connections: ['examples'], max_rows: 50, created_from_role: role });
    expect(key.headers.get('etag')).toBe(created.headers.get('etag'));
    // A key changed later keeps where it came from; its grants are its own.
    const patched = await admin(origin, 'PATCH', keyAt(name), { max_rows: 70 });
    expect(patched.body).toMatchObject({ max_rows: 70, created_from_role: role });
  });
});

describe('names shared with administrators', () => {
  it('refuses a key named like an administrator, and an administrator named like a key: 409 name_taken', async () => {
    const adminName = unique('alice');
    const made = await admin(origin, 'POST', '/api/v1/administrators', { name: adminName, role: 'auditor', email: 'a@example.test' });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    expectError(await admin(origin, 'POST', KEYS, { name: adminName }), 409, 'name_taken');

    const keyName = unique('bob');
    await createKey(origin, { name: keyName });
    expectError(await admin(origin, 'POST', '/api/v1/administrators', { name: keyName, role: 'auditor', email: 'b@example.test' }), 409, 'name_taken');
  });
});
