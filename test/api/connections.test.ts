import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Origin } from '../harness/origin.ts';
import { MY, PG } from './connections-fixtures.ts';
import { unique } from '../harness/unique.ts';
import { expectError } from '../harness/expect-error.ts';
import { sharedOrigin } from '../harness/shared-origin.ts';

/** Connections CRUD over HTTP: field rules, masking, ETags, PATCH semantics, delete with reason. */

let origin: Origin;
beforeAll(async () => {
  origin = await sharedOrigin();
});
afterAll(async () => {
  await origin?.stop();
});

const API = '/api/v1/connections';
const at = (name: string) => `${API}/${encodeURIComponent(name)}`;
const ZONED = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}[+-]\d\d:\d\d$/;

function pgFields(name: string, extra: Record<string, unknown> = {}) {
  return { name, db: 'postgres', host: PG.host, port: PG.port, user: PG.user, database: PG.database, ...extra };
}

async function create(body: Record<string, unknown>) {
  const res = await origin.call('POST', API, body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res;
}

describe('create', () => {
  it('saves each type and answers 201 with the connection, an ETag and a Location', async () => {
    const pg = unique('pg');
    const res = await create(pgFields(pg, { password: 'Lit3ral-Secret', options: { sslmode: 'disable' } }));
    expect(res.headers.get('etag')).toMatch(/^"c\d+\.1"$/);
    expect(res.headers.get('location')).toBe(at(pg));
    expect(res.body).toMatchObject({
      name: pg,
      db: 'postgres',
      host: PG.host,
      port: PG.port,
      user: PG.user,
      password: '********',
      database: 'test',
      options: { sslmode: 'disable' },
      active: true,
      example: false,
      usage: { queries: 0, errors: 0, rows: 0, avg_duration_ms: null },
    });
    expect(res.body.created_at).toMatch(ZONED);
    expect(res.body.updated_at).toMatch(ZONED);

    const my = await create({ name: unique('my'), db: 'mysql', host: MY.host, port: MY.port, user: 'root' });
    expect(my.body).toMatchObject({ db: 'mysql', password: null, options: {} });

    const maria = await create({ name: unique('maria'), db: 'mariadb', host: MY.host });
    expect(maria.body.db).toBe('mysql');

    const duck = await create({ name: unique('duck'), db: 'duckdb' });
    expect(duck.body).toMatchObject({ db: 'duckdb', database: null, host: null, port: null });
    const duckMem = await create({ name: unique('duck'), db: 'duckdb', database: ':memory:' });
    expect(duckMem.body.database).toBe(':memory:');

    const lite = await create({ name: unique('lite'), db: 'sqlite', database: '/tmp/some.sqlite' });
    expect(lite.body).toMatchObject({ db: 'sqlite', database: '/tmp/some.sqlite' });
  });

  it('accepts names of letters, digits, spaces, dots, underscores and dashes', async () => {
    for (const name of [`My DB.v2_x-${unique('n')}`, `Café ${unique('n')}`, 'a'.repeat(92) + unique('').slice(0, 8)]) {
      const res = await create({ name, db: 'duckdb' });
      expect(res.body.name).toBe(name);
      expect((await origin.call('GET', at(name))).status).toBe(200);
    }
  });

  it('refuses a taken name with 409 connection_exists', async () => {
    const name = unique('dup');
    await create({ name, db: 'duckdb' });
    expectError(await origin.call('POST', API, { name, db: 'sqlite', database: '/tmp/x.sqlite' }), 409, 'connection_exists');
  });

  it('refuses bad names with invalid_name', async () => {
    for (const name of ['', 'a/b', 'semi;colon', 'x'.repeat(101), 'emoji 🙂', ' lead', 'trail ', '..', '.', 'deleted', 'quote"d']) {
      expectError(await origin.call('POST', API, { name, db: 'duckdb' }), 400, 'invalid_name');
    }
  });

  it('refuses unknown fields with unknown_field', async () => {
    const res = await origin.call('POST', API, { name: unique('u'), db: 'duckdb', hots: 'typo' });
    expectError(res, 400, 'unknown_field');
    expect(res.body.error).toContain('hots');
  });

  it('needs a host for postgres and mysql, and a file for sqlite', async () => {
    for (const db of ['postgres', 'mysql', 'mariadb']) {
      const res = await origin.call('POST', API, { name: unique('nohost'), db, port: 5432 });
      expectError(res, 400, 'invalid_request');
      expect(res.body.errors.host).toBeTruthy();
    }
    const lite = await origin.call('POST', API, { name: unique('nofile'), db: 'sqlite' });
    expectError(lite, 400, 'invalid_request');
    expect(lite.body.errors.database).toBeTruthy();
  });

  it('refuses an unsupported type, naming the supported ones', async () => {
    const res = await origin.call('POST', API, { name: unique('ora'), db: 'oracle', host: 'x' });
    expectError(res, 400, 'invalid_request');
    for (const type of ['postgres', 'mysql', 'duckdb', 'sqlite']) expect(res.body.error).toContain(type);
  });

  it('refuses missing name or db, bad ports and bad types of value', async () => {
    expectError(await origin.call('POST', API, { db: 'duckdb' }), 400, 'invalid_request');
    expectError(await origin.call('POST', API, { name: unique('x') }), 400, 'invalid_request');
    expectError(await origin.call('POST', API, pgFields(unique('p'), { port: 70000 })), 400, 'invalid_request');
    expectError(await origin.call('POST', API, pgFields(unique('p'), { port: 0 })), 400, 'invalid_request');
    expectError(await origin.call('POST', API, pgFields(unique('p'), { port: '5432' })), 400, 'invalid_request');
    expectError(await origin.call('POST', API, pgFields(unique('p'), { active: 'yes' })), 400, 'invalid_request');
    expectError(await origin.call('POST', API, pgFields(unique('p'), { options: [1] })), 400, 'invalid_request');
    expectError(await origin.call('POST', API, pgFields(unique('p'), { password: '********' })), 400, 'invalid_request');
    const notJson = await origin.fetch(API, { method: 'POST', body: '{nope', headers: { 'content-type': 'application/json' } });
    expect(notJson.status).toBe(400);
  });
});

describe('list', () => {
  it('lists every connection with usage and never a credential', async () => {
    const name = unique('listed');
    const user = unique('secretuser');
    const password = unique('Sup3rSecretPassword');
    await create(pgFields(name, { user, password, options: { application_name: 'listed' } }));
    const res = await origin.fetch(API);
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).not.toContain(password);
    expect(text).not.toContain(user);
    expect(text).not.toContain('********');
    expect(text).not.toMatch(/"(user|password|options)"/);
    const { connections } = JSON.parse(text);
    const entry = connections.find((c: any) => c.name === name);
    expect(Object.keys(entry).sort()).toEqual(
      ['active', 'created_at', 'database', 'db', 'example', 'host', 'name', 'port', 'privileges_checked', 'updated_at', 'usage', 'warnings'].sort(),
    );
    expect(entry).toMatchObject({ db: 'postgres', host: PG.host, port: PG.port, database: 'test', active: true, example: false });
    expect(entry.usage).toEqual({ queries: 0, errors: 0, rows: 0, avg_duration_ms: null });
    expect(entry.created_at).toMatch(ZONED);
    // Sorted by name; the bundled example connection is listed as one.
    const names = connections.map((c: any) => c.name);
    expect(names).toEqual([...names].sort());
    expect(connections.find((c: any) => c.name === 'examples')).toMatchObject({ db: 'duckdb', example: true });
  });
});

describe('read', () => {
  it('returns options and user, the password masked, with an ETag', async () => {
    const name = unique('read');
    const created = await create(pgFields(name, { password: 'pw-literal', options: { sslmode: 'prefer' } }));
    const res = await origin.call('GET', at(name));
    expect(res.status).toBe(200);
    expect(res.headers.get('etag')).toBe(created.headers.get('etag'));
    expect(res.body).toMatchObject({ name, user: PG.user, password: '********', options: { sslmode: 'prefer' } });
    expect(JSON.stringify(res.body)).not.toContain('pw-literal');
  });

  it('shows a ${VAR} reference as written', async () => {
    const name = unique('ref');
    const created = await create(pgFields(name, { password: '${SLUICE_REF_SOME_DB_PASSWORD}' }));
    expect(created.body.password).toBe('${SLUICE_REF_SOME_DB_PASSWORD}');
    expect((await origin.call('GET', at(name))).body.password).toBe('${SLUICE_REF_SOME_DB_PASSWORD}');
  });

  it('answers 404 connection_not_found for an unknown name', async () => {
    expectError(await origin.call('GET', at(unique('nope'))), 404, 'connection_not_found');
  });
});

describe('update', () => {
  it('checks If-Match against the current ETag and bumps the revision', async () => {
    const name = unique('etag');
    const created = await create(pgFields(name, { password: 'one' }));
    const first = created.headers.get('etag')!;
    const changed = await origin.call('PATCH', at(name), { port: 5433 }, { 'if-match': first });
    expect(changed.status).toBe(200);
    const second = changed.headers.get('etag')!;
    expect(second).not.toBe(first);
    expect(second).toMatch(/\.2"$/);
    expect((await origin.call('GET', at(name))).headers.get('etag')).toBe(second);

    const stale = await origin.call('PATCH', at(name), { port: 5434 }, { 'if-match': first });
    expectError(stale, 412, 'precondition_failed');
    expect((await origin.call('GET', at(name))).body.port).toBe(5433);

    const ok = await origin.call('PATCH', at(name), { port: 5434 }, { 'if-match': second });
    expect(ok.status).toBe(200);
    expect(ok.body.port).toBe(5434);
    expect((await origin.call('PATCH', at(name), { port: 5 }, { 'if-match': '*' })).status).toBe(200);
  });

  it('keeps the password when it is omitted or sent as the mask; null removes it', async () => {
    const name = unique('pw');
    const created = await create(pgFields(name, { password: 'keep-me' }));
    const etag = created.headers.get('etag');

    // The mask alone changes nothing: no new revision.
    const masked = await origin.call('PATCH', at(name), { password: '********' });
    expect(masked.status).toBe(200);
    expect(masked.body.password).toBe('********');
    expect(masked.headers.get('etag')).toBe(etag);

    const omitted = await origin.call('PATCH', at(name), { database: 'postgres' });
    expect(omitted.body).toMatchObject({ database: 'postgres', password: '********' });

    const literal = await origin.call('PATCH', at(name), { password: 'new-literal' });
    expect(literal.body.password).toBe('********');
    expect(literal.headers.get('etag')).not.toBe(omitted.headers.get('etag'));
    expect(JSON.stringify(literal.body)).not.toContain('new-literal');

    const reference = await origin.call('PATCH', at(name), { password: '${SLUICE_REF_PG_PASSWORD}' });
    expect(reference.body.password).toBe('${SLUICE_REF_PG_PASSWORD}');

    const removed = await origin.call('PATCH', at(name), { password: null });
    expect(removed.body.password).toBeNull();
  });

  it('takes any password sent as a change: the right one and a wrong one alike get a new ETag and an audit entry, never the password', async () => {
    const name = unique('oracle');
    const created = await create(pgFields(name, { password: 'the-right-one' }));
    const audited = async () => (await origin.call('GET', `/api/v1/audit?action=update_connection&target=${encodeURIComponent(name)}`)).body.items;
    const etags = [created.headers.get('etag')];
    for (const password of ['the-right-one', 'a-wrong-one', 'a-wrong-one', 'the-right-one']) {
      const res = await origin.call('PATCH', at(name), { password });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(etags, `PATCH with ${password === 'the-right-one' ? 'the right' : 'a wrong'} password`).not.toContain(res.headers.get('etag'));
      etags.push(res.headers.get('etag'));
    }
    const entries = await audited();
    expect(entries).toHaveLength(4);
    for (const entry of entries) expect(entry.changes).toEqual({ password: 'changed' });
    expect(JSON.stringify(entries)).not.toMatch(/the-right-one|a-wrong-one/);
    // The mongodb URI's password is a password sent too.
    const mongo = unique('oracle-m');
    const made = await create({ name: mongo, db: 'mongodb', options: { uri: 'mongodb://reader:the-right-one@127.0.0.1:1/shop' } });
    const again = await origin.call('PATCH', at(mongo), { options: { uri: 'mongodb://reader:the-right-one@127.0.0.1:1/shop' } });
    expect(again.headers.get('etag')).not.toBe(made.headers.get('etag'));
  });

  it('removes optional fields sent as null and keeps omitted ones', async () => {
    const name = unique('nulls');
    await create(pgFields(name, { options: { sslmode: 'disable' } }));
    const res = await origin.call('PATCH', at(name), { port: null, user: null, database: null, options: null });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ host: PG.host, port: null, user: null, database: null, options: {}, active: true });
    const again = await origin.call('GET', at(name));
    expect(again.body).toMatchObject({ host: PG.host, port: null, user: null, database: null, options: {} });
  });

  it('applies the type rules to the result and accepts the mariadb alias', async () => {
    const name = unique('rules');
    await create(pgFields(name));
    const noHost = await origin.call('PATCH', at(name), { host: null });
    expectError(noHost, 400, 'invalid_request');
    expect(noHost.body.errors.host).toBeTruthy();
    const maria = await origin.call('PATCH', at(name), { db: 'mariadb', port: 3306 });
    expect(maria.body).toMatchObject({ db: 'mysql', port: 3306 });
    expectError(await origin.call('PATCH', at(name), { db: 'sqlite', database: null }), 400, 'invalid_request');
    expectError(await origin.call('PATCH', at(name), { db: 'oracle' }), 400, 'invalid_request');
  });

  it('toggles active, refuses renames, unknown fields and unknown connections', async () => {
    const name = unique('misc');
    await create({ name, db: 'duckdb' });
    const off = await origin.call('PATCH', at(name), { active: false });
    expect(off.body.active).toBe(false);
    expect((await origin.call('GET', API)).body.connections.find((c: any) => c.name === name).active).toBe(false);
    expect((await origin.call('PATCH', at(name), { name })).status).toBe(200);
    expectError(await origin.call('PATCH', at(name), { name: unique('other') }), 400, 'invalid_request');
    expectError(await origin.call('PATCH', at(name), { created_at: 'x' }), 400, 'unknown_field');
    expectError(await origin.call('PATCH', at(unique('nope')), { active: true }), 404, 'connection_not_found');
  });
});

describe('delete', () => {
  it('needs a non-empty reason', async () => {
    const name = unique('del');
    await create({ name, db: 'duckdb' });
    expectError(await origin.call('DELETE', at(name)), 400, 'reason_required');
    expectError(await origin.call('DELETE', at(name), {}), 400, 'reason_required');
    expectError(await origin.call('DELETE', at(name), { reason: '' }), 400, 'reason_required');
    expectError(await origin.call('DELETE', at(name), { reason: '   ' }), 400, 'reason_required');
    expectError(await origin.call('DELETE', at(name), { reason: 42 }), 400, 'reason_required');
    expectError(await origin.call('DELETE', at(name), { reason: 'x', force: true }), 400, 'unknown_field');
    expect((await origin.call('GET', at(name))).status).toBe(200);
    expectError(await origin.call('DELETE', at(unique('nope')), { reason: 'gone' }), 404, 'connection_not_found');
  });

  it('checks If-Match', async () => {
    const name = unique('delm');
    const created = await create({ name, db: 'duckdb' });
    await origin.call('PATCH', at(name), { active: false });
    expectError(await origin.call('DELETE', at(name), { reason: 'r' }, { 'if-match': created.headers.get('etag')! }), 412, 'precondition_failed');
    const current = (await origin.call('GET', at(name))).headers.get('etag')!;
    expect((await origin.call('DELETE', at(name), { reason: 'r' }, { 'if-match': current })).status).toBe(200);
  });

  it('moves the connection to the deleted list, newest first, and frees the name', async () => {
    const first = unique('gone1');
    const second = unique('gone2');
    const secret = unique('DeletedSecret');
    const created = await create(pgFields(first, { password: secret }));
    await create({ name: second, db: 'sqlite', database: '/tmp/gone.sqlite' });

    const res = await origin.call('DELETE', at(first), { reason: 'replaced by a replica' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ name: first, db: 'postgres', deleted_by: '-', reason: 'replaced by a replica' });
    expect(res.body.deleted_at).toMatch(ZONED);
    expect((await origin.call('DELETE', at(second), { reason: 'no longer used' })).status).toBe(200);
    expectError(await origin.call('GET', at(first)), 404, 'connection_not_found');

    const listed = await origin.fetch(`${API}/deleted`);
    const text = await listed.text();
    expect(text).not.toContain(secret);
    const entries = JSON.parse(text).connections;
    const i1 = entries.findIndex((e: any) => e.name === first);
    const i2 = entries.findIndex((e: any) => e.name === second);
    expect(i2).toBeGreaterThanOrEqual(0);
    expect(i2).toBeLessThan(i1);
    expect(entries[i2]).toMatchObject({ name: second, db: 'sqlite', deleted_by: '-', reason: 'no longer used' });
    expect(entries[i1]).toMatchObject({ name: first, host: PG.host, reason: 'replaced by a replica' });
    for (const entry of entries) expect(Object.keys(entry)).not.toContain('password');
    const times = entries.map((e: any) => Date.parse(e.deleted_at));
    expect(times).toEqual([...times].sort((a, b) => b - a));

    // The name is free again; the new connection's ETag differs from the old one's.
    const again = await create({ name: first, db: 'duckdb' });
    expect(again.headers.get('etag')).not.toBe(created.headers.get('etag'));
    expect((await origin.call('GET', `${API}/deleted`)).body.connections.filter((e: any) => e.name === first)).toHaveLength(1);
  });
});
