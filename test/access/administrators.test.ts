import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Origin, startOrigin } from '../harness/origin.ts';
import { ADMIN_KEY, adminWithToken, apiKey, asAdmin, auditOf, bearer, expectStatus, expectUnauthorized, scopedKey } from './fixtures.ts';
import { expectError } from '../harness/expect-error.ts';
import { unique } from '../harness/unique.ts';

/** Administrators and their tokens: fields, ETags, owners only, last owner, shared names, own tokens, audit. */

let open: Origin;
let keyed: Origin;

beforeAll(async () => {
  [open, keyed] = await Promise.all([startOrigin({ env: { SLUICE_EXAMPLES: '0' } }), startOrigin({ env: { SLUICE_API_KEY: ADMIN_KEY } })]);
});

afterAll(async () => {
  await Promise.all([open?.stop(), keyed?.stop()]);
});

const ZONED = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}[+-]\d\d:\d\d$/;

describe('without a server key', () => {
  it('gives the first administrator of an open server a token, and always keeps an active owner', async () => {
    expectError(await open.call('POST', '/api/v1/administrators', { name: 'dev-first', role: 'developer' }), 409, 'last_owner');

    const created = await open.call('POST', '/api/v1/administrators', { name: 'alice', role: 'owner', email: 'alice@example.com' });
    expectStatus(created, 201);
    expect(created.headers.get('cache-control')).toBe('no-store');
    expect(created.body).toMatchObject({ name: 'alice', role: 'owner', email: 'alice@example.com', active: true, created_by: '-', tokens: 1 });
    const alice = bearer(created.body.token.secret);
    expect(created.body.token.secret).toMatch(/^slc_adm_/);

    // Authentication is on now.
    expectUnauthorized(await open.call('GET', '/api/v1/me'));
    expectStatus(await open.call('GET', '/api/v1/me', undefined, alice), 200);

    expectError(await open.call('PATCH', '/api/v1/administrators/alice', { role: 'admin' }, alice), 409, 'last_owner');
    expectError(await open.call('PATCH', '/api/v1/administrators/alice', { active: false }, alice), 409, 'last_owner');
    expectError(await open.call('DELETE', '/api/v1/administrators/alice', undefined, alice), 409, 'last_owner');

    // A second owner makes room; then that one is the last.
    const created2 = await open.call('POST', '/api/v1/administrators', { name: 'bob', role: 'owner' }, alice);
    expectStatus(created2, 201);
    expect(created2.body.token).toBeUndefined();
    expect(created2.headers.get('cache-control')).toBeNull();
    expectStatus(await open.call('PATCH', '/api/v1/administrators/alice', { role: 'auditor' }, alice), 200);
    expectError(await open.call('DELETE', '/api/v1/administrators/bob', undefined, alice), 403, 'forbidden');
    const bobToken = (await open.call('POST', '/api/v1/administrators/bob/tokens', {}, alice)).body;
    expect(bobToken.code).toBe('forbidden');
  });
});

describe('with a server key', () => {
  it('creates, reads, lists, changes and deletes administrators with ETags and audit entries', async () => {
    const name = unique('carol');
    const created = await asAdmin(keyed, 'POST', '/api/v1/administrators', { name, role: null, email: null });
    expectStatus(created, 201);
    expect(created.body).toEqual({
      name,
      role: null,
      email: null,
      active: true,
      created_at: expect.stringMatching(ZONED),
      created_by: 'admin',
      last_seen_at: null,
      tokens: 0,
    });
    const etag = created.headers.get('etag');
    expect(etag).toMatch(/^"a\d+\.1"$/);
    expectError(await asAdmin(keyed, 'POST', '/api/v1/administrators', { name, role: 'owner' }), 409, 'admin_exists');

    const read = await asAdmin(keyed, 'GET', `/api/v1/administrators/${name}`);
    expect(read.headers.get('etag')).toBe(etag);
    expect((await asAdmin(keyed, 'GET', '/api/v1/administrators')).body.administrators.map((a: any) => a.name)).toContain(name);

    const changed = await asAdmin(keyed, 'PATCH', `/api/v1/administrators/${name}`, { role: 'developer', email: 'carol@example.com' }, { 'if-match': etag! });
    expectStatus(changed, 200);
    expect(changed.body).toMatchObject({ role: 'developer', email: 'carol@example.com' });
    expectError(await asAdmin(keyed, 'PATCH', `/api/v1/administrators/${name}`, { active: false }, { 'if-match': etag! }), 412, 'precondition_failed');
    expectError(await asAdmin(keyed, 'DELETE', `/api/v1/administrators/${name}`, undefined, { 'if-match': etag! }), 412, 'precondition_failed');

    const [update] = await auditOf(keyed, 'update_administrator', name);
    expect(update.changes).toEqual({ role: { from: null, to: 'developer' }, email: { from: null, to: 'carol@example.com' } });
    expect((await auditOf(keyed, 'create_administrator', name))[0].actor).toBe('admin');

    expectStatus(await asAdmin(keyed, 'DELETE', `/api/v1/administrators/${name}`), 200);
    expectError(await asAdmin(keyed, 'GET', `/api/v1/administrators/${name}`), 404, 'admin_not_found');
    expect(await auditOf(keyed, 'delete_administrator', name)).toHaveLength(1);
  });

  it('validates bodies: role required (null allowed), known roles, names, no unknown fields', async () => {
    expectError(await asAdmin(keyed, 'POST', '/api/v1/administrators', { name: unique('x') }), 400, 'invalid_request');
    expectError(await asAdmin(keyed, 'POST', '/api/v1/administrators', { name: unique('x'), role: 'superuser' }), 400, 'invalid_request');
    expectError(await asAdmin(keyed, 'POST', '/api/v1/administrators', { name: 'bad/name', role: null }), 400, 'invalid_name');
    expectError(await asAdmin(keyed, 'POST', '/api/v1/administrators', { name: unique('x'), role: null, password: 'x' }), 400, 'unknown_field');
    expectError(await asAdmin(keyed, 'POST', '/api/v1/administrators', { name: unique('x'), role: null, email: 'not-an-email' }), 400, 'invalid_request');
  });

  it('lets the last owner go while the server key is set', async () => {
    const name = unique('solo');
    await adminWithToken(keyed, name, 'owner');
    const owners = (await asAdmin(keyed, 'GET', '/api/v1/administrators')).body.administrators.filter((a: any) => a.role === 'owner' && a.active);
    for (const owner of owners) expectStatus(await asAdmin(keyed, 'PATCH', `/api/v1/administrators/${owner.name}`, { role: 'admin' }), 200);
  });

  it('keeps administrator and API key names apart, both ways', async () => {
    const keyName = unique('shared');
    await scopedKey(keyed, keyName);
    expectError(await asAdmin(keyed, 'POST', '/api/v1/administrators', { name: keyName, role: null }), 409, 'name_taken');
    const adminName = unique('shared');
    expectStatus(await asAdmin(keyed, 'POST', '/api/v1/administrators', { name: adminName, role: null }), 201);
    expectError(await asAdmin(keyed, 'POST', '/api/v1/api-keys', { name: adminName, connections: [] }), 409, 'name_taken');
  });
});

describe('tokens', () => {
  it('are issued once with no-store, listed without secrets, and revoked at once', async () => {
    const name = unique('dora');
    await asAdmin(keyed, 'POST', '/api/v1/administrators', { name, role: 'developer' });
    const issued = await asAdmin(keyed, 'POST', `/api/v1/administrators/${name}/tokens`, { label: 'laptop', expires_at: '2099-12-31' });
    expectStatus(issued, 201);
    expect(issued.headers.get('cache-control')).toBe('no-store');
    expect(issued.body).toEqual({
      id: expect.any(String),
      label: 'laptop',
      created_at: expect.stringMatching(ZONED),
      expires_at: expect.stringMatching(/^2099-12-31T23:59:59\.999[+-]\d\d:\d\d$/),
      expired: false,
      last_used_at: null,
      secret: expect.stringMatching(/^slc_adm_[0-9A-Za-z]{32}$/),
    });
    // No body at all is fine too: no label, no expiry.
    const plain = await keyed.fetch(`/api/v1/administrators/${name}/tokens`, { method: 'POST', headers: apiKey(ADMIN_KEY) });
    expect(plain.status).toBe(201);

    const listed = await asAdmin(keyed, 'GET', `/api/v1/administrators/${name}/tokens`);
    expect(listed.body.tokens.map((t: any) => t.id)).toContain(issued.body.id);
    expect(JSON.stringify(listed.body)).not.toContain('slc_adm_');
    expect((await asAdmin(keyed, 'GET', `/api/v1/administrators/${name}`)).body.tokens).toBe(2);

    const [audit] = await auditOf(keyed, 'issue_token', name);
    expect(JSON.stringify(audit)).not.toContain(issued.body.secret);

    expectStatus(await keyed.call('GET', '/api/v1/me', undefined, bearer(issued.body.secret)), 200);
    expectStatus(await asAdmin(keyed, 'DELETE', `/api/v1/administrators/${name}/tokens/${issued.body.id}`), 200);
    expectUnauthorized(await keyed.call('GET', '/api/v1/me', undefined, bearer(issued.body.secret)));
    expectError(await asAdmin(keyed, 'DELETE', `/api/v1/administrators/${name}/tokens/${issued.body.id}`), 404, 'token_not_found');
    expect(await auditOf(keyed, 'revoke_token', name)).toHaveLength(1);

    expectError(await asAdmin(keyed, 'POST', `/api/v1/administrators/${name}/tokens`, { expires_at: '2001-01-01' }), 400, 'invalid_request');
    expectError(await asAdmin(keyed, 'POST', `/api/v1/administrators/${name}/tokens`, { expires_at: 'soon' }), 400, 'invalid_request');
  });

  it('are managed by their administrator, whatever the role; others\' need an owner', async () => {
    const self = unique('self');
    const other = unique('other');
    const selfToken = await adminWithToken(keyed, self, 'auditor');
    await adminWithToken(keyed, other, 'admin');
    const mine = await keyed.call('POST', `/api/v1/administrators/${self}/tokens`, { label: 'second' }, bearer(selfToken));
    expectStatus(mine, 201);
    expectStatus(await keyed.call('GET', `/api/v1/administrators/${self}/tokens`, undefined, bearer(selfToken)), 200);
    expectStatus(await keyed.call('DELETE', `/api/v1/administrators/${self}/tokens/${mine.body.id}`, undefined, bearer(selfToken)), 200);

    expectError(await keyed.call('GET', `/api/v1/administrators/${other}/tokens`, undefined, bearer(selfToken)), 403, 'forbidden');
    expectError(await keyed.call('POST', `/api/v1/administrators/${other}/tokens`, {}, bearer(selfToken)), 403, 'forbidden');
    const owner = await adminWithToken(keyed, unique('owner'), 'owner');
    expectStatus(await keyed.call('POST', `/api/v1/administrators/${other}/tokens`, {}, bearer(owner)), 201);
  });
});
