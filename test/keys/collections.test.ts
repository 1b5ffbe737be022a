import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Origin } from '../harness/origin.ts';
import { KEYS, ROLES, admin, auditOf, createKey, keyAt, roleAt, startKeysOrigin } from './fixtures.ts';
import { expectError } from '../harness/expect-error.ts';
import { unique } from '../harness/unique.ts';

/**
 * `collections` grants of real keys and roles: names must exist (400 listing
 * the real ones), the collections listing names their holders, a rename
 * carries the grants over, and a move names the keys gaining and losing the
 * query.
 */

let origin: Origin;
beforeAll(async () => {
  origin = await startKeysOrigin();
});
afterAll(async () => {
  await origin?.stop();
});

async function fileQuery(name: string, collection: string | null) {
  const res = await admin(origin, 'POST', '/api/v1/queries', { name, sql: 'select 1 as one', connection_name: 'examples', collection, publish: true });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
}
const moveQuery = async (name: string, collection: string | null) => {
  const res = await admin(origin, 'PATCH', `/api/v1/queries/${encodeURIComponent(name)}`, { collection });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
};
const collection = async (name: string) => (await admin(origin, 'GET', '/api/v1/collections')).body.collections.find((c: { name: string }) => c.name === name);

describe('collections must exist', () => {
  it('refuses an unknown collection with 400 invalid_request listing the real ones, for keys and roles', async () => {
    const real = unique('real');
    await fileQuery(unique('q'), real);
    for (const path of [KEYS, ROLES]) {
      const res = await admin(origin, 'POST', path, { name: unique('k'), collections: [real, 'ghost-collection'] });
      expectError(res, 400, 'invalid_request');
      expect(res.body.error).toContain('"ghost-collection"');
      expect(res.body.error).toContain(real);
      expect(res.body.collections).toContain(real);
      expect(res.body.collections).not.toContain('ghost-collection');
      expect(res.body.errors).toEqual({ collections: 'unknown: ghost-collection' });
    }
    const ok = await createKey(origin, { name: unique('k'), collections: [real] });
    expect(ok.body.collections).toEqual([real]);
  });

  it('checks only new names on PATCH: the names a key or role holds stay allowed', async () => {
    const held = unique('held');
    const other = unique('other');
    await fileQuery(unique('q'), held);
    await fileQuery(unique('q'), other);
    const name = unique('k');
    await createKey(origin, { name, collections: [held] });
    const role = unique('r');
    expect((await admin(origin, 'POST', ROLES, { name: role, collections: [held] })).status).toBe(201);
    for (const path of [keyAt(name), roleAt(role)]) {
      expectError(await admin(origin, 'PATCH', path, { collections: [held, 'no-such-thing'] }), 400, 'invalid_request');
      const res = await admin(origin, 'PATCH', path, { collections: [held, other] });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.collections).toEqual([held, other].sort());
    }
  });

  it('counts a collection named only by a grant as existing, listed with no queries', async () => {
    const fleeting = unique('fleeting');
    const query = unique('q');
    await fileQuery(query, fleeting);
    const holder = unique('holder');
    await createKey(origin, { name: holder, collections: [fleeting] });
    await moveQuery(query, null);
    expect(await collection(fleeting)).toEqual({ name: fleeting, queries: [], keys: [holder], roles: [] });
    const second = await createKey(origin, { name: unique('k'), collections: [fleeting] });
    expect(second.body.collections).toEqual([fleeting]);
  });
});

describe('the collections listing and rename', () => {
  it('lists the keys and roles granted a collection', async () => {
    const sales = unique('sales');
    await fileQuery(unique('q'), sales);
    const key = unique('key');
    const role = unique('role');
    await createKey(origin, { name: key, collections: [sales] });
    expect((await admin(origin, 'POST', ROLES, { name: role, collections: [sales] })).status).toBe(201);
    expect(await collection(sales)).toMatchObject({ keys: [key], roles: [role] });
  });

  it('carries grants over a rename: keys and roles name the new collection, with new ETags', async () => {
    const from = unique('from');
    const to = unique('to');
    const keep = unique('keep');
    await fileQuery(unique('q'), from);
    await fileQuery(unique('q'), keep);
    const key = unique('key');
    const created = await createKey(origin, { name: key, collections: [from, keep] });
    const role = unique('role');
    expect((await admin(origin, 'POST', ROLES, { name: role, collections: [from] })).status).toBe(201);

    const res = await admin(origin, 'PATCH', `/api/v1/collections/${from}`, { name: to });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ keys: [key], roles: [role] });
    const after = await admin(origin, 'GET', keyAt(key));
    expect(after.body.collections).toEqual([keep, to].sort());
    expect(after.headers.get('etag')).not.toBe(created.headers.get('etag'));
    expect((await admin(origin, 'GET', roleAt(role))).body.collections).toEqual([to]);
    expect(await collection(from)).toBeUndefined();
  });
});

describe('moving a query', () => {
  it('names the keys gaining and losing it by collection grants, not those reaching it otherwise', async () => {
    const src = unique('src');
    const dst = unique('dst');
    const query = unique('moving');
    await fileQuery(query, src);
    await fileQuery(unique('q'), dst);
    const losing = unique('losing');
    const gaining = unique('gaining');
    const both = unique('both');
    const byName = unique('byname');
    const byConnection = unique('byconn');
    await createKey(origin, { name: losing, collections: [src] });
    await createKey(origin, { name: gaining, collections: [dst] });
    await createKey(origin, { name: both, collections: [src, dst] });
    await createKey(origin, { name: byName, collections: [src], queries: [query] });
    await createKey(origin, { name: byConnection, collections: [src], connections: ['examples'] });

    await moveQuery(query, dst);
    const [entry] = await auditOf(origin, 'move_query', query);
    expect(entry.changes).toEqual({ collection: { from: src, to: dst }, keys_gaining_access: [gaining], keys_losing_access: [losing] });

    await moveQuery(query, null);
    const [out] = await auditOf(origin, 'move_query', query);
    expect(out.changes.keys_gaining_access).toEqual([]);
    expect(out.changes.keys_losing_access).toEqual([both, gaining].sort());
  });
});
