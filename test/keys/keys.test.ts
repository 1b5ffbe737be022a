import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Origin } from '../harness/origin.ts';
import { KEYS, ZONED, admin, auditOf, createKey, keyAt, startKeysOrigin } from './fixtures.ts';
import { expectError } from '../harness/expect-error.ts';
import { unique } from '../harness/unique.ts';

/** Scoped API keys over HTTP: fields and their validation, output fields, ETags, PATCH semantics, delete, audit. */

let origin: Origin;
beforeAll(async () => {
  origin = await startKeysOrigin({ SLUICE_ALLOW_WRITES: 'true', SLUICE_QUERY_TIMEOUT: '20', SLUICE_RATE_LIMIT: '600/minute' });
  // Grants name saved connections and queries (of the key's workspace, default).
  const other = await admin(origin, 'POST', '/api/v1/connections', { name: 'other', db: 'duckdb' });
  expect(other.status, JSON.stringify(other.body)).toBe(201);
  for (const name of ['q one', 'q two', 'q three', 'x']) {
    const res = await admin(origin, 'POST', '/api/v1/queries', { name, sql: 'select 1 as one', connection_name: 'examples' });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
  }
});
afterAll(async () => {
  await origin?.stop();
});

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

describe('create', () => {
  it('answers 201 with every field, the secret once, no-store, an ETag and a Location', async () => {
    const name = unique('Reporting key.v2_x');
    const res = await createKey(origin, { name });
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('etag')).toMatch(/^"k\d+\.1"$/);
    expect(res.headers.get('location')).toBe(keyAt(name));
    expect(res.body.secret).toMatch(/^slc_[0-9A-Za-z]{32}$/);
    expect(res.body).toMatchObject({
      name,
      workspace: 'default',
      connections: [],
      queries: [],
      collections: [],
      allow_writes: false,
      allowed_write_ops: null,
      allowed_tables: null,
      max_rows: null,
      quota: null,
      max_concurrent: null,
      query_timeout: null,
      rate_limit: null,
      allowed_ips: null,
      expires_at: null,
      active: true,
      expired: false,
      created_by: 'admin',
      created_from_role: null,
      last_used_at: null,
      previous_expires_at: null,
      previous_last_used_at: null,
      effective_limits: {
        allow_writes: false,
        allowed_write_ops: null,
        allowed_tables: null,
        max_rows: null,
        query_timeout: 20,
        rate_limit: null,
        server_rate_limit: '600/minute',
        quota: null,
        max_concurrent: null,
      },
      usage_this_period: { period: 'day', calls: 0, rows: 0, remaining: null },
      usage: { queries: 0, errors: 0, rows: 0 },
    });
    expect(res.body.usage_this_period.current).toMatch(/^\d{4}-\d\d-\d\d$/);
    expect(res.body.created_at).toMatch(ZONED);
    expect(Object.keys(res.body).filter((k) => /hash/i.test(k))).toEqual([]);
  });

  it('stores every grant in its canonical form and narrows effective limits by the server', async () => {
    const name = unique('full');
    const res = await createKey(origin, {
      name,
      connections: ['examples', 'other', 'examples'],
      queries: ['q one', { name: 'q two', allow_writes: true }, { name: 'q three', allow_writes: false }],
      allow_writes: true,
      allowed_write_ops: ['INSERT', 'Update'],
      allowed_tables: ['Public.Orders', 'sales.*', 'items'],
      max_rows: 500,
      quota: '1000/Day',
      max_concurrent: 3,
      query_timeout: 45,
      rate_limit: '10 / minutes',
      allowed_ips: ['10.1.2.3/8', '2001:DB8::1', '::ffff:192.0.2.1'],
      expires_at: '2999-12-31',
      active: false,
    });
    expect(res.body).toMatchObject({
      connections: ['examples', 'other'],
      queries: ['q one', 'q three', { name: 'q two', allow_writes: true }],
      allow_writes: true,
      allowed_write_ops: ['insert', 'update'],
      allowed_tables: ['public.orders', 'sales.*', 'items'],
      max_rows: 500,
      quota: '1000/day',
      max_concurrent: 3,
      query_timeout: 45,
      rate_limit: '10/minute',
      allowed_ips: ['10.0.0.0/8', '2001:db8::1', '192.0.2.1'],
      expires_at: '2999-12-31',
      active: false,
      expired: false,
      effective_limits: { allow_writes: true, max_rows: 500, query_timeout: 20, rate_limit: '10/minute', quota: '1000/day', max_concurrent: 3 },
      usage_this_period: { period: 'day', calls: 0, rows: 0, remaining: 1000 },
    });
    const all = await createKey(origin, { name: unique('all'), connections: '*', queries: '*', query_timeout: 5, quota: '7/month' });
    expect(all.body).toMatchObject({ connections: ['*'], queries: ['*'], effective_limits: { query_timeout: 5 } });
    expect(all.body.usage_this_period).toMatchObject({ period: 'month', remaining: 7 });
    expect(all.body.usage_this_period.current).toMatch(/^\d{4}-\d\d$/);
  });

  it('keeps the date of an expires_at timestamp in the server zone, and computes expired', async () => {
    // The test origin runs in Europe/Paris: 23:30 UTC on Jan 1 is Jan 2 there.
    const late = await createKey(origin, { name: unique('ts'), expires_at: '2999-01-01T23:30:00Z' });
    expect(late.body.expires_at).toBe('2999-01-02');
    const local = await createKey(origin, { name: unique('ts'), expires_at: '2999-03-04T10:00:00' });
    expect(local.body.expires_at).toBe('2999-03-04');
    const past = await createKey(origin, { name: unique('past'), expires_at: '2000-01-01' });
    expect(past.body).toMatchObject({ expires_at: '2000-01-01', expired: true });
  });

  it('stores only the SHA-256 of the secret, which no listing or read shows', async () => {
    const name = unique('hidden');
    const { body } = await createKey(origin, { name });
    const hash = sha256(body.secret);
    for (const path of [KEYS, keyAt(name)]) {
      const text = await (await origin.fetch(path, { headers: { 'x-api-key': 'test-admin-key-0123456789' } })).text();
      expect(text).not.toContain(body.secret);
      expect(text).not.toContain(hash);
      expect(text).not.toContain('secret');
    }
  });

  it('refuses names outside the rule with invalid_name', async () => {
    for (const name of ['', 'a/b', 'x'.repeat(101), ' lead', 'trail ', '..', 'semi;colon', 'admin']) {
      expectError(await admin(origin, 'POST', KEYS, { name }), 400, 'invalid_name');
    }
    expect((await admin(origin, 'POST', KEYS, { name: 'x'.repeat(100) })).status).toBe(201);
  });

  it('answers 409 key_exists for a taken name', async () => {
    const name = unique('dup');
    await createKey(origin, { name });
    expectError(await admin(origin, 'POST', KEYS, { name, connections: '*' }), 409, 'key_exists');
  });

  it('refuses unknown fields and each malformed grant', async () => {
    expectError(await admin(origin, 'POST', KEYS, { name: unique('u'), connection: ['x'] }), 400, 'unknown_field');
    expectError(await admin(origin, 'POST', KEYS, { name: unique('u'), secret: 'slc_mine' }), 400, 'unknown_field');
    const entry = await admin(origin, 'POST', KEYS, { name: unique('u'), queries: [{ name: 'q', allow: true }] });
    expectError(entry, 400, 'unknown_field');
    expect(entry.body.fields).toEqual(['queries.0.allow']);
    const bad: Array<[Record<string, unknown>, string]> = [
      [{ connections: 'examples' }, 'connections'],
      [{ queries: [{ name: '*', allow_writes: true }] }, 'queries'],
      [{ collections: '*' }, 'collections'],
      [{ allow_writes: 'yes' }, 'allow_writes'],
      [{ allowed_write_ops: ['insert into'] }, 'allowed_write_ops.0'],
      [{ allowed_tables: ['a.b.c'] }, 'allowed_tables'],
      [{ max_rows: 0 }, 'max_rows'],
      [{ max_rows: 2.5 }, 'max_rows'],
      [{ quota: '10/hour' }, 'quota'],
      [{ max_concurrent: 0 }, 'max_concurrent'],
      [{ query_timeout: 0 }, 'query_timeout'],
      [{ query_timeout: '30' }, 'query_timeout'],
      [{ rate_limit: '10/week' }, 'rate_limit'],
      [{ rate_limit: '10' }, 'rate_limit'],
      [{ allowed_ips: ['10.0.0.0/33'] }, 'allowed_ips'],
      [{ allowed_ips: '10.0.0.1' }, 'allowed_ips'],
      [{ expires_at: '2025-02-30' }, 'expires_at'],
      [{ expires_at: 'tomorrow' }, 'expires_at'],
      [{ active: null }, 'active'],
    ];
    for (const [fields, field] of bad) {
      const res = await admin(origin, 'POST', KEYS, { name: unique('bad'), ...fields });
      expectError(res, 400, 'invalid_request');
      expect(Object.keys(res.body.errors), JSON.stringify(fields)).toContain(field);
    }
  });

  it('answers 404 key_not_found for an unknown key', async () => {
    for (const method of ['GET', 'PATCH', 'DELETE']) {
      expectError(await admin(origin, method, keyAt('no such key'), method === 'PATCH' ? { active: false } : undefined), 404, 'key_not_found');
    }
  });
});

describe('read and list', () => {
  it('reads one key with the ETag of its create, and lists keys by name', async () => {
    const name = unique('read');
    const created = await createKey(origin, { name, connections: ['examples'] });
    const read = await admin(origin, 'GET', keyAt(name));
    expect(read.status).toBe(200);
    expect(read.headers.get('etag')).toBe(created.headers.get('etag'));
    const { secret: _secret, ...withoutSecret } = created.body;
    expect(read.body).toEqual(withoutSecret);

    const list = await admin(origin, 'GET', KEYS);
    expect(list.status).toBe(200);
    const names = list.body.api_keys.map((k: { name: string }) => k.name);
    expect(names).toContain(name);
    expect(names).toEqual([...names].sort((a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)));
    expect(list.body.api_keys.find((k: { name: string }) => k.name === name)).toEqual(withoutSecret);
  });
});

describe('update', () => {
  it('changes the given fields, keeps the others, resets with null, and moves the ETag', async () => {
    const name = unique('patch');
    const created = await createKey(origin, { name, connections: ['examples'], max_rows: 10, rate_limit: '5/second', expires_at: '2999-01-01' });
    const res = await admin(origin, 'PATCH', keyAt(name), { max_rows: null, rate_limit: '6/hour', expires_at: null, queries: ['x'] });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ connections: ['examples'], queries: ['x'], max_rows: null, rate_limit: '6/hour', expires_at: null });
    expect(res.headers.get('etag')).toMatch(/^"k\d+\.2"$/);
    expect(res.headers.get('etag')).not.toBe(created.headers.get('etag'));
    expect(res.body.secret).toBeUndefined();

    const reset = await admin(origin, 'PATCH', keyAt(name), { connections: null, allow_writes: null, allowed_ips: null });
    expect(reset.body).toMatchObject({ connections: [], allow_writes: false, allowed_ips: null });
  });

  it('writes nothing for a PATCH that changes nothing', async () => {
    const name = unique('same');
    const created = await createKey(origin, { name, connections: ['examples'] });
    const res = await admin(origin, 'PATCH', keyAt(name), { connections: ['examples'], name });
    expect(res.status).toBe(200);
    expect(res.headers.get('etag')).toBe(created.headers.get('etag'));
    expect(await auditOf(origin, 'update_key', name)).toEqual([]);
  });

  it('checks If-Match: 412 precondition_failed when stale, the change when current', async () => {
    const name = unique('etag');
    const created = await createKey(origin, { name });
    const etag = created.headers.get('etag')!;
    const first = await admin(origin, 'PATCH', keyAt(name), { max_rows: 5 }, { 'if-match': etag });
    expect(first.status).toBe(200);
    expectError(await admin(origin, 'PATCH', keyAt(name), { max_rows: 6 }, { 'if-match': etag }), 412, 'precondition_failed');
    expectError(await admin(origin, 'DELETE', keyAt(name), undefined, { 'if-match': etag }), 412, 'precondition_failed');
    expect((await admin(origin, 'GET', keyAt(name))).body.max_rows).toBe(5);
    const second = await admin(origin, 'PATCH', keyAt(name), { max_rows: 6 }, { 'if-match': first.headers.get('etag')! });
    expect(second.status).toBe(200);
    expect((await admin(origin, 'PATCH', keyAt(name), { max_rows: 7 }, { 'if-match': '*' })).status).toBe(200);
  });

  it('refuses a rename, unknown fields, role and malformed values', async () => {
    const name = unique('strict');
    await createKey(origin, { name });
    expectError(await admin(origin, 'PATCH', keyAt(name), { name: `${name}-2` }), 400, 'invalid_request');
    expectError(await admin(origin, 'PATCH', keyAt(name), { role: 'x' }), 400, 'unknown_field');
    expectError(await admin(origin, 'PATCH', keyAt(name), { created_at: 'x' }), 400, 'unknown_field');
    expectError(await admin(origin, 'PATCH', keyAt(name), { quota: '5/week' }), 400, 'invalid_request');
  });

  it('records update_key with only the changed fields, never a secret', async () => {
    const name = unique('diff');
    await createKey(origin, { name, max_rows: 10 });
    await admin(origin, 'PATCH', keyAt(name), { max_rows: 20, active: false });
    const [entry] = await auditOf(origin, 'update_key', name);
    expect(entry.actor).toBe('admin');
    expect(entry.changes).toEqual({ max_rows: { from: 10, to: 20 }, active: { from: true, to: false } });
  });
});

describe('delete', () => {
  it('removes the key and answers what was removed; the name is free again', async () => {
    const name = unique('gone');
    const created = await createKey(origin, { name, connections: ['examples'] });
    const res = await admin(origin, 'DELETE', keyAt(name), undefined, { 'if-match': created.headers.get('etag')! });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ name, connections: ['examples'], active: true });
    expect(JSON.stringify(res.body)).not.toContain(created.body.secret);
    expectError(await admin(origin, 'GET', keyAt(name)), 404, 'key_not_found');
    const again = await createKey(origin, { name });
    expect(again.headers.get('etag')).not.toBe(created.headers.get('etag'));
  });
});

describe('audit', () => {
  it('records create_key and delete_key as full snapshots without the secret or its hash', async () => {
    const name = unique('audited');
    const created = await createKey(origin, { name, connections: ['examples'], rate_limit: '1/second' });
    await admin(origin, 'DELETE', keyAt(name));
    const [create] = await auditOf(origin, 'create_key', name);
    const [remove] = await auditOf(origin, 'delete_key', name);
    for (const entry of [create, remove]) {
      expect(entry.changes).toMatchObject({ name, workspace: 'default', connections: ['examples'], rate_limit: '1/second', active: true });
      const text = JSON.stringify(entry);
      expect(text).not.toContain(created.body.secret);
      expect(text).not.toContain(sha256(created.body.secret));
      expect(JSON.stringify(entry.changes)).not.toMatch(/secret|hash/);
    }
  });
});

describe('scoped keys and the Management API', () => {
  it('never lets a scoped key manage keys', async () => {
    const { body } = await createKey(origin, { name: unique('scoped'), connections: '*' });
    expectError(await origin.call('GET', KEYS, undefined, { 'x-api-key': body.secret }), 403, 'forbidden');
    expectError(await origin.call('POST', KEYS, { name: unique('x') }, { 'x-api-key': body.secret }), 403, 'forbidden');
  });
});
