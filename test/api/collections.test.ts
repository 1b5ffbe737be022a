import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { asc, eq, inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../origin/store/open.ts';
import { auditLog, queries, queryVersions } from '../../origin/store/schema/index.ts';
import { type Origin, startOrigin, templateDir } from '../harness/origin.ts';
import { COLLECTIONS, collectionAt } from './collections-fixtures.ts';
import { API, type Reply, at, definition } from './queries-fixtures.ts';
import { expectError } from '../harness/expect-error.ts';
import { unique } from '../harness/unique.ts';

/**
 * `GET /api/v1/collections` and `PATCH /api/v1/collections/{name}` over HTTP:
 * a collection exists while a query is in it, moves show in the listing,
 * renames re-file queries (new ETag, no new version) with one audit entry
 * each. Collections that grants name, and renames that rewrite grants:
 * collections-grants.test.ts.
 */

const KEY = 'collections-admin-key-0123456789';

let root: string;
let dataDir: string;
let origin: Origin | undefined;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'sluice-collections-'));
  dataDir = join(root, 'data');
  await cp(templateDir(), dataDir, { recursive: true });
  origin = await startOrigin({ dataDir, env: { SLUICE_API_KEY: KEY } });
});

afterAll(async () => {
  await origin?.stop();
  await rm(root, { recursive: true, force: true });
});

const call = (method: string, path: string, body?: unknown) => origin!.call(method, path, body, { 'x-api-key': KEY });

async function ok(promise: Promise<Reply>, status = 200): Promise<Reply> {
  const res = await promise;
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  return res;
}

const create = (name: string, collection: string | null, extra: Record<string, unknown> = {}) =>
  ok(call('POST', API, { name, collection, ...definition({ publish: true, ...extra }) }), 201);
const move = (name: string, collection: string | null) => ok(call('PATCH', at(name), { collection }));
const rename = (from: string, body: unknown) => call('PATCH', collectionAt(from), body);
const listing = async () => (await ok(call('GET', COLLECTIONS))).body as { collections: any[]; uncollected: string[] };
const find = async (name: string) => (await listing()).collections.find((c) => c.name === name);

// Names of this run; collections sort as named (`a` < `b` < `c` < `d`).
const tag = unique('c').slice(2);
const A = `a-${tag}`;
const B = `b-${tag}`;
const C = `c-${tag}`;
const D = `d-${tag}`;
const Q1 = `q1 ${tag}`;
const Q2 = `q2 ${tag}`;
const Q3 = `q3 ${tag}`;
const Q4 = `q4 ${tag}`;
const Q5 = `q5 ${tag}`;

describe('listing', () => {
  it('requires the admin key', async () => {
    expect((await origin!.call('GET', COLLECTIONS)).status).toBe(401);
    expect((await origin!.call('PATCH', collectionAt(A), { name: B })).status).toBe(401);
    expect((await origin!.call('GET', `${collectionAt(A)}/postman`)).status).toBe(401);
  });

  it('lists collections by name with their queries, and the uncollected queries', async () => {
    await create(Q2, A);
    await create(Q1, A);
    await create(Q3, B);
    await create(Q4, null);
    const { collections, uncollected } = await listing();
    expect(collections.find((c) => c.name === A)).toEqual({ name: A, queries: [Q1, Q2], keys: [], roles: [] });
    expect(collections.find((c) => c.name === B)).toEqual({ name: B, queries: [Q3], keys: [], roles: [] });
    const names = collections.map((c) => c.name);
    expect(names).toEqual([...names].sort());
    expect(uncollected).toContain(Q4);
    expect(uncollected).toEqual([...uncollected].sort());
    for (const collection of collections) expect(uncollected).not.toEqual(expect.arrayContaining(collection.queries));
  });

  it('shows a move, and a collection exists exactly while a query is in it', async () => {
    await move(Q3, A);
    expect(await find(B)).toBeUndefined();
    expect((await find(A)).queries).toEqual([Q1, Q2, Q3]);
    await move(Q3, null);
    expect((await find(A)).queries).toEqual([Q1, Q2]);
    expect((await listing()).uncollected).toEqual(expect.arrayContaining([Q3, Q4]));
    // Filed by a move into a new name, gone again when its last query leaves (or is deleted).
    await move(Q4, B);
    expect(await find(B)).toEqual({ name: B, queries: [Q4], keys: [], roles: [] });
    await ok(call('DELETE', at(Q4)));
    expect(await find(B)).toBeUndefined();
    expect((await listing()).uncollected).not.toContain(Q4);
  });
});

describe('rename', () => {
  let etagBefore: string;

  it('re-files every query: new ETag, same versions', async () => {
    etagBefore = (await ok(call('GET', at(Q1)))).headers.get('etag')!;
    const res = await ok(rename(A, { name: C }));
    expect(res.body).toEqual({
      name: { from: A, to: C },
      merge: false,
      resumed: false,
      queries: [Q1, Q2],
      keys: [],
      roles: [],
      keys_gaining_access: [],
    });
    expect(await find(A)).toBeUndefined();
    expect(await find(C)).toEqual({ name: C, queries: [Q1, Q2], keys: [], roles: [] });
    const read = await ok(call('GET', at(Q1)));
    expect(read.body.collection).toBe(C);
    expect(read.headers.get('etag')).not.toBe(etagBefore);
    expect(read.body.versions.map((v: any) => [v.version, v.status])).toEqual([[1, 'published']]);
    // The old ETag no longer matches.
    const stale = await origin!.call('PATCH', at(Q1), { collection: C }, { 'x-api-key': KEY, 'if-match': etagBefore });
    expectError(stale, 412, 'precondition_failed');
  });

  it('refuses an existing target without merge, and merges with it', async () => {
    await create(Q5, D);
    expectError(await rename(C, { name: D }), 409, 'collection_exists');
    expectError(await rename(C, { name: D, merge: false }), 409, 'collection_exists');
    expect((await find(C)).queries).toEqual([Q1, Q2]);
    const res = await ok(rename(C, { name: D, merge: true }));
    expect(res.body).toMatchObject({ name: { from: C, to: D }, merge: true, queries: [Q1, Q2] });
    expect(await find(C)).toBeUndefined();
    expect((await find(D)).queries).toEqual([Q1, Q2, Q5]);
  });

  it('answers a re-run of a finished rename with 404: nothing is left under the old name', async () => {
    expectError(await rename(C, { name: D, merge: true }), 404, 'collection_not_found');
    expect((await find(D)).queries).toEqual([Q1, Q2, Q5]);
  });

  it('leaves a rename to the same name alone', async () => {
    const res = await ok(rename(D, { name: D }));
    expect(res.body).toMatchObject({ name: { from: D, to: D }, queries: [], merge: false });
  });

  it('refuses a new name outside the collection rules, and bad bodies', async () => {
    for (const bad of ['Upper', '', '-lead', '.dot', 'has space', 'x'.repeat(64), 'ünï']) {
      const res = await rename(D, { name: bad });
      expectError(res, 400, 'invalid_request');
      expect(typeof res.body.errors.name, bad).toBe('string');
    }
    expect((await ok(rename(D, { name: 'x'.repeat(63) }))).body.queries).toEqual([Q1, Q2, Q5]);
    await ok(rename('x'.repeat(63), { name: D }));
    expectError(await rename(D, { name: C, extra: 1 }), 400, 'unknown_field');
    expectError(await rename(D, { merge: true }), 400, 'invalid_request');
    expectError(await rename(D, { name: C, merge: 'yes' }), 400, 'invalid_request');
    expectError(await rename(D, { name: 7 }), 400, 'invalid_request');
    expectError(await call('PATCH', collectionAt(D)), 400, 'invalid_request');
    expect((await find(D)).queries).toEqual([Q1, Q2, Q5]);
  });

  it('answers 404 for an unknown collection', async () => {
    expectError(await rename(`nothing-${tag}`, { name: `other-${tag}` }), 404, 'collection_not_found');
    expectError(await rename('Not A Name', { name: `other-${tag}` }), 404, 'collection_not_found');
    expectError(await call('GET', `${collectionAt(`nothing-${tag}`)}/postman`), 404, 'collection_not_found');
  });
});

describe('store', () => {
  it('wrote one rename_collection entry per rename that changed something, and no new version', async () => {
    await origin!.stop();
    origin = undefined;
    const store = await openStore({ dataDir });
    try {
      const entries = await store.db.select().from(auditLog).where(eq(auditLog.action, 'rename_collection')).orderBy(asc(auditLog.seq));
      const empty = { keys: [], roles: [], keys_gaining_access: [], resumed: false };
      const long = 'x'.repeat(63);
      expect(entries.map((e) => [e.actor, e.target, e.changes])).toEqual([
        ['admin', A, { name: { from: A, to: C }, merge: false, queries: [Q1, Q2], ...empty }],
        ['admin', C, { name: { from: C, to: D }, merge: true, queries: [Q1, Q2], ...empty }],
        ['admin', D, { name: { from: D, to: long }, merge: false, queries: [Q1, Q2, Q5], ...empty }],
        ['admin', long, { name: { from: long, to: D }, merge: false, queries: [Q1, Q2, Q5], ...empty }],
      ]);
      const rows = await store.db.select().from(queries).where(inArray(queries.name, [Q1, Q5]));
      const byName = Object.fromEntries(rows.map((r) => [r.name, r]));
      // Q1: created, then re-filed by four renames; still one version.
      expect(byName[Q1]).toMatchObject({ collection: D, revision: 5, nextVersion: 2, publishedVersion: 1 });
      expect(byName[Q5]).toMatchObject({ collection: D, revision: 3 });
      expect(await store.db.select().from(queryVersions).where(eq(queryVersions.queryId, byName[Q1].id))).toHaveLength(1);
    } finally {
      await store.close();
    }
  });
});
