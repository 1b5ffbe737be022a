import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Origin } from '../harness/origin.ts';
import { type Reply, addVersion, at, createQuery, definition, readStatuses, statuses, versionAt } from './queries-fixtures.ts';
import { expectError } from '../harness/expect-error.ts';
import { unique } from '../harness/unique.ts';
import { sharedOrigin } from '../harness/shared-origin.ts';

/** The spec's query-version state table, row by row, version numbering, and ETag / If-Match on every change. */

let origin: Origin;
beforeAll(async () => {
  origin = await sharedOrigin();
});
afterAll(async () => {
  await origin?.stop();
});

const publish = (name: string, version: number, headers: Record<string, string> = {}) =>
  origin.call('POST', `${at(name)}/publish`, { version }, headers);
const unpublish = (name: string, headers: Record<string, string> = {}) => origin.call('POST', `${at(name)}/unpublish`, undefined, headers);
const deleteVersion = (name: string, version: number, headers: Record<string, string> = {}) =>
  origin.call('DELETE', versionAt(name, version), undefined, headers);

function ok(res: Reply, status = 200): Reply {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  return res;
}

/** A query with versions 1..n; `published` names the published one (null: none). */
async function queryWith(n: number, published: number | null): Promise<string> {
  const name = unique('states');
  await createQuery(origin, name, { description: 'v1' });
  for (let v = 2; v <= n; v++) await addVersion(origin, name, { description: `v${v}` });
  if (published !== null) ok(await publish(name, published));
  return name;
}

describe('state table', () => {
  it('(none) -> create with publish true -> published', async () => {
    const name = unique('create_pub');
    const res = await createQuery(origin, name, { publish: true });
    expect(statuses(res.body)).toEqual({ published: 1, versions: { 1: 'published' } });
    expect(await readStatuses(origin, name)).toEqual({ published: 1, versions: { 1: 'published' } });
  });

  it('(none) -> create with publish false or absent -> draft', async () => {
    const absent = unique('create_absent');
    expect(statuses((await createQuery(origin, absent)).body)).toEqual({ published: null, versions: { 1: 'draft' } });
    const explicit = unique('create_false');
    expect(statuses((await createQuery(origin, explicit, { publish: false })).body)).toEqual({ published: null, versions: { 1: 'draft' } });
    expect(await readStatuses(origin, explicit)).toEqual({ published: null, versions: { 1: 'draft' } });
  });

  it('any -> add version with publish true -> the new version is published, the prior published becomes previous', async () => {
    const name = await queryWith(2, 1); // 1 published, 2 draft
    const res = await addVersion(origin, name, { publish: true, description: 'v3' });
    expect(statuses(res.body)).toEqual({ published: 3, versions: { 1: 'previous', 2: 'previous', 3: 'published' } });
    expect(res.body.description).toBe('v3');
    // From nothing published too.
    const fresh = await queryWith(1, null);
    expect(statuses((await addVersion(origin, fresh, { publish: true })).body)).toEqual({ published: 2, versions: { 1: 'previous', 2: 'published' } });
  });

  it('any -> add version with publish false -> draft, the published version keeps serving', async () => {
    const name = await queryWith(1, 1);
    const res = await addVersion(origin, name, { publish: false, description: 'v2' });
    expect(statuses(res.body)).toEqual({ published: 1, versions: { 1: 'published', 2: 'draft' } });
    expect(res.body.description).toBe('v1');
    expect(res.headers.get('location')).toBe(versionAt(name, 2));
    const absent = await addVersion(origin, name);
    expect(statuses(absent.body)).toEqual({ published: 1, versions: { 1: 'published', 2: 'draft', 3: 'draft' } });
  });

  it('draft -> publish {version: n} -> published', async () => {
    const name = await queryWith(2, 1);
    const res = ok(await publish(name, 2));
    expect(statuses(res.body)).toEqual({ published: 2, versions: { 1: 'previous', 2: 'published' } });
    expect(res.body.description).toBe('v2');
    // With nothing published, any version is a draft and can be published.
    const none = await queryWith(3, null);
    expect(statuses(ok(await publish(none, 2)).body)).toEqual({ published: 2, versions: { 1: 'previous', 2: 'published', 3: 'draft' } });
  });

  it('previous -> publish {version: n} -> published (a rollback)', async () => {
    const name = await queryWith(3, 3);
    const res = ok(await publish(name, 1));
    expect(statuses(res.body)).toEqual({ published: 1, versions: { 1: 'published', 2: 'draft', 3: 'draft' } });
    expect(res.body.description).toBe('v1');
    expect(await readStatuses(origin, name)).toEqual(statuses(res.body));
  });

  it('publishing the published version changes nothing', async () => {
    const name = await queryWith(2, 1);
    const before = await origin.call('GET', at(name));
    const res = ok(await publish(name, 1));
    expect(res.headers.get('etag')).toBe(before.headers.get('etag'));
    expect(res.body).toEqual(before.body);
  });

  it('published -> unpublish -> nothing published, every version kept', async () => {
    const name = await queryWith(3, 2);
    const res = ok(await unpublish(name));
    expect(statuses(res.body)).toEqual({ published: null, versions: { 1: 'draft', 2: 'draft', 3: 'draft' } });
    // The query's fields then mirror the newest version.
    expect(res.body.description).toBe('v3');
    // Unpublishing again changes nothing.
    const again = ok(await unpublish(name));
    expect(again.headers.get('etag')).toBe(res.headers.get('etag'));
    // An empty JSON body is accepted as "no body".
    ok(await origin.call('POST', `${at(name)}/unpublish`, {}));
  });

  it('published -> delete that version, an older one exists -> the newest older version is published, never a draft', async () => {
    // 1 previous, 2 published, 3 draft: delete 2 -> 1 published, 3 still a draft.
    const name = await queryWith(3, 2);
    const res = ok(await deleteVersion(name, 2));
    expect(res.body).toMatchObject({ name, version: 2, query_removed: false });
    expect(statuses(res.body.query)).toEqual({ published: 1, versions: { 1: 'published', 3: 'draft' } });
    expect(await readStatuses(origin, name)).toEqual({ published: 1, versions: { 1: 'published', 3: 'draft' } });

    // Several older: the newest of them, not the oldest.
    const many = await queryWith(4, 3);
    expect(statuses(ok(await deleteVersion(many, 3)).body.query)).toEqual({ published: 2, versions: { 1: 'previous', 2: 'published', 4: 'draft' } });
  });

  it('published -> delete that version, no older one -> unpublished', async () => {
    const name = await queryWith(2, 1);
    const res = ok(await deleteVersion(name, 1));
    expect(statuses(res.body.query)).toEqual({ published: null, versions: { 2: 'draft' } });
    expect(await readStatuses(origin, name)).toEqual({ published: null, versions: { 2: 'draft' } });
  });

  it('deleting a version that is not published leaves the published one', async () => {
    const name = await queryWith(3, 2);
    expect(statuses(ok(await deleteVersion(name, 3)).body.query)).toEqual({ published: 2, versions: { 1: 'previous', 2: 'published' } });
    expect(statuses(ok(await deleteVersion(name, 1)).body.query)).toEqual({ published: 2, versions: { 2: 'published' } });
  });

  it('any version -> delete the last version -> the query is removed', async () => {
    const name = await queryWith(2, 2);
    ok(await deleteVersion(name, 1));
    const res = ok(await deleteVersion(name, 2));
    expect(res.body).toEqual({ name, version: 2, query_removed: true, query: null });
    expect(res.headers.get('etag')).toBeNull();
    expectError(await origin.call('GET', at(name)), 404, 'query_not_found');
    // A draft-only query too.
    const draft = await queryWith(1, null);
    expect(ok(await deleteVersion(draft, 1)).body.query_removed).toBe(true);
    expectError(await origin.call('GET', at(draft)), 404, 'query_not_found');
  });

  it('a cache_ttl change or a move is not a new version and leaves the states alone', async () => {
    const name = await queryWith(2, 1);
    ok(await origin.call('PATCH', versionAt(name, 1), { cache_ttl: 10 }));
    ok(await origin.call('PATCH', at(name), { collection: 'moved' }));
    expect(await readStatuses(origin, name)).toEqual({ published: 1, versions: { 1: 'published', 2: 'draft' } });
  });
});

describe('a new version keeps what it leaves out', () => {
  it('carries connection_name, description, tags and cache_ttl over from the newest version; null clears', async () => {
    const name = unique('carry');
    await createQuery(origin, name, { description: 'films by id', tags: ['films'], cache_ttl: 60, publish: true });
    // A new user changing only the SQL: /q must keep answering on the same connection.
    const sqlOnly = ok(await origin.call('POST', `${at(name)}/versions`, { sql: 'select title from films where id = :id', parameters: { id: 'int' }, publish: true }), 201);
    const newest = sqlOnly.body.versions[0];
    expect(newest).toMatchObject({ version: 2, connection_name: 'examples', description: 'films by id', tags: ['films'], cache_ttl: 60 });
    const served = await origin.call('GET', `/q/${name}?id=1`);
    expect(served.status, JSON.stringify(served.body)).toBe(200);
    expect(Object.keys(served.body[0])).toEqual(['title']);

    const cleared = ok(await origin.call('POST', `${at(name)}/versions`, { sql: 'select 1 as one', connection_name: null, description: null, tags: null, cache_ttl: null }), 201);
    expect(cleared.body.versions[0]).toMatchObject({ version: 3, connection_name: null, description: null, tags: [], cache_ttl: null });
  });
});

describe('version numbers', () => {
  it('are never reused: delete v3, then add -> v4', async () => {
    const name = await queryWith(3, 1);
    ok(await deleteVersion(name, 3));
    const res = await addVersion(origin, name);
    expect(res.body.versions.map((v: any) => v.version)).toEqual([4, 2, 1]);
    ok(await deleteVersion(name, 4));
    ok(await deleteVersion(name, 2));
    expect((await addVersion(origin, name, { publish: true })).body.versions.map((v: any) => v.version)).toEqual([5, 1]);
    // A deleted number is gone for good.
    expectError(await publish(name, 3), 404, 'version_not_found');
    expectError(await origin.call('GET', versionAt(name, 4)), 404, 'version_not_found');
  });
});

describe('ETag and If-Match', () => {
  type Change = { label: string; run: (name: string, headers: Record<string, string>) => Promise<Reply>; status: number; gone?: boolean };
  const changes: Change[] = [
    { label: 'PATCH collection', run: (n, h) => origin.call('PATCH', at(n), { collection: 'moved' }, h), status: 200 },
    { label: 'add version', run: (n, h) => origin.call('POST', `${at(n)}/versions`, definition(), h), status: 201 },
    { label: 'publish', run: (n, h) => publish(n, 2, h), status: 200 },
    { label: 'unpublish', run: (n, h) => unpublish(n, h), status: 200 },
    { label: 'PATCH version cache_ttl', run: (n, h) => origin.call('PATCH', versionAt(n, 1), { cache_ttl: 99 }, h), status: 200 },
    { label: 'delete version', run: (n, h) => deleteVersion(n, 2, h), status: 200 },
    { label: 'delete query', run: (n, h) => origin.call('DELETE', at(n), undefined, h), status: 200, gone: true },
  ];

  for (const change of changes) {
    it(`${change.label}: a stale If-Match gives 412 and changes nothing; the current one passes and moves the ETag`, async () => {
      const name = await queryWith(2, 1);
      const stale = (await origin.call('GET', at(name))).headers.get('etag')!;
      // Someone else changes the query meanwhile.
      const other = ok(await origin.call('PATCH', versionAt(name, 1), { cache_ttl: 7 }));
      const current = other.headers.get('etag')!;
      expect(current).not.toBe(stale);
      const before = await origin.call('GET', at(name));
      expect(before.headers.get('etag')).toBe(current);

      const refused = await change.run(name, { 'if-match': stale });
      expectError(refused, 412, 'precondition_failed');
      expect(refused.body.etag).toBe(current);
      const after = await origin.call('GET', at(name));
      expect(after.headers.get('etag')).toBe(current);
      expect(after.body).toEqual(before.body);

      const done = await change.run(name, { 'if-match': current });
      expect(done.status, JSON.stringify(done.body)).toBe(change.status);
      const read = await origin.call('GET', at(name));
      if (change.gone) {
        expect(read.status).toBe(404);
        return;
      }
      const next = done.headers.get('etag');
      expect(next).toMatch(/^"q\d+\.\d+"$/);
      expect(next).not.toBe(current);
      expect(read.headers.get('etag')).toBe(next);
    });
  }

  it('accepts *, a weak form and a list holding the current ETag', async () => {
    const name = await queryWith(1, null);
    const etag = (await origin.call('GET', at(name))).headers.get('etag')!;
    const weak = ok(await origin.call('PATCH', at(name), { collection: 'a' }, { 'if-match': `W/${etag}` }));
    const listed = ok(await origin.call('PATCH', at(name), { collection: 'b' }, { 'if-match': `"q0.0", ${weak.headers.get('etag')}` }));
    ok(await origin.call('PATCH', at(name), { collection: 'c' }, { 'if-match': '*' }));
    expect(listed.body.collection).toBe('b');
  });

  it('bumps the revision once per change and never matches another query', async () => {
    const a = unique('rev_a');
    const created = await createQuery(origin, a);
    const id = /^"q(\d+)\.1"$/.exec(created.headers.get('etag')!)![1];
    const versioned = await addVersion(origin, a);
    expect(versioned.headers.get('etag')).toBe(`"q${id}.2"`);
    expect(ok(await publish(a, 2)).headers.get('etag')).toBe(`"q${id}.3"`);
    const b = await createQuery(origin, unique('rev_b'));
    expect(b.headers.get('etag')).not.toBe(created.headers.get('etag'));
    // Deleted and recreated under the same name: the old ETag never matches.
    ok(await origin.call('DELETE', at(a)));
    const again = await createQuery(origin, a);
    expect(again.headers.get('etag')).not.toBe(created.headers.get('etag'));
    expectError(await origin.call('PATCH', at(a), { collection: 'x' }, { 'if-match': created.headers.get('etag')! }), 412, 'precondition_failed');
  });
});
