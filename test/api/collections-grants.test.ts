import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { asc, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppDeps, Caller } from '../../origin/http/context.ts';
import { listCollections, mergeListing } from '../../origin/services/collections/list.ts';
import { collectionPostman } from '../../origin/services/collections/postman.ts';
import { renameCollection } from '../../origin/services/collections/rename.ts';
import { createQuery } from '../../origin/services/queries/create.ts';
import { type Store, openStore } from '../../origin/store/open.ts';
import { auditLog, queries } from '../../origin/store/schema/index.ts';
import { templateDir } from '../harness/origin.ts';
import { FakeGrants } from './collections-fixtures.ts';

/**
 * Collections as grants will shape them. Access control does not exist yet,
 * so the verbs are given grants of their own (`FakeGrants`): the listing
 * merge, a collection named only by grants, and a rename widening, re-filing
 * and dropping, including completing an interrupted one.
 */

const actor: Caller = { name: 'tester', admin: true, via: 'break-glass' };
const EMPTY = { keys: [], roles: [] };

describe('mergeListing', () => {
  const filed = [
    { name: 'zeta', collection: 'sales' },
    { name: 'alpha', collection: 'sales' },
    { name: 'loose b', collection: null },
    { name: 'beta', collection: 'ops' },
    { name: 'loose a', collection: null },
  ];

  it('lists collections by name with their queries by name, and the uncollected', () => {
    expect(mergeListing(filed, new Map())).toEqual({
      collections: [
        { name: 'ops', queries: ['beta'], ...EMPTY },
        { name: 'sales', queries: ['alpha', 'zeta'], ...EMPTY },
      ],
      uncollected: ['loose a', 'loose b'],
    });
  });

  it('adds grant holders, and lists a collection only a grant names with no queries', () => {
    const grants = new Map([
      ['sales', { keys: ['k2', 'k1'], roles: ['analyst'] }],
      ['archive', { keys: [], roles: ['auditor'] }],
      ['nobody', { keys: [], roles: [] }],
    ]);
    expect(mergeListing(filed, grants).collections).toEqual([
      { name: 'archive', queries: [], keys: [], roles: ['auditor'] },
      { name: 'ops', queries: ['beta'], keys: [], roles: [] },
      { name: 'sales', queries: ['alpha', 'zeta'], keys: ['k1', 'k2'], roles: ['analyst'] },
    ]);
  });

  it('answers an empty store', () => {
    expect(mergeListing([], new Map())).toEqual({ collections: [], uncollected: [] });
  });
});

describe('verbs on a store, with grants', () => {
  let root: string;
  let store: Store;
  let deps: AppDeps;

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'sluice-collections-grants-'));
    await cp(templateDir(), join(root, 'data'), { recursive: true });
    store = await openStore({ dataDir: join(root, 'data') });
    // The verbs use the store alone.
    deps = { store } as unknown as AppDeps;
  });

  afterAll(async () => {
    await store?.close();
    await rm(root, { recursive: true, force: true });
  });

  const create = (name: string, collection: string | null) =>
    createQuery(deps, actor, { name, collection, sql: 'select 1 as one', connection_name: 'examples', publish: true });
  const collectionOf = async (name: string) =>
    (await store.db.select({ collection: queries.collection }).from(queries).where(eq(queries.name, name)))[0]?.collection;
  const renames = () => store.db.select().from(auditLog).where(eq(auditLog.action, 'rename_collection')).orderBy(asc(auditLog.seq));

  it('lists grant holders and a collection only grants name; exports it as an empty file', async () => {
    await create('g listed', 'g-listed');
    const grants = new FakeGrants({ 'key:reporter': ['g-listed', 'g-only'], 'role:viewer': ['g-only'] });
    const listing = await listCollections(deps, grants);
    expect(listing.collections.find((c) => c.name === 'g-listed')).toEqual({ name: 'g-listed', queries: ['g listed'], keys: ['reporter'], roles: [] });
    expect(listing.collections.find((c) => c.name === 'g-only')).toEqual({ name: 'g-only', queries: [], keys: ['reporter'], roles: ['viewer'] });
    const file = await collectionPostman(deps, 'g-only', 'http://example.test', grants);
    expect(file.item).toEqual([]);
    await expect(collectionPostman(deps, 'g-only', 'http://example.test')).rejects.toMatchObject({ code: 'collection_not_found' });
  });

  it('widens grants to both names, re-files, drops the old name, and names the holders changed', async () => {
    await create('g plain', 'g-old');
    const grants = new FakeGrants({ 'key:k1': ['g-old'], 'role:r1': ['g-old', 'elsewhere'], 'key:other': ['elsewhere'] });
    const result = await renameCollection(deps, actor, 'g-old', { name: 'g-new' }, grants);
    expect(result).toEqual({
      name: { from: 'g-old', to: 'g-new' },
      merge: false,
      resumed: false,
      queries: ['g plain'],
      keys: ['k1'],
      roles: ['r1'],
      keys_gaining_access: [],
    });
    expect(grants.snapshot()).toEqual({ 'key:k1': ['g-new'], 'role:r1': ['elsewhere', 'g-new'], 'key:other': ['elsewhere'] });
    expect(await collectionOf('g plain')).toBe('g-new');
    expect((await renames()).at(-1)?.changes).toEqual(result);
  });

  it('renames a collection only grants name', async () => {
    const grants = new FakeGrants({ 'role:r': ['g-granted'] });
    const result = await renameCollection(deps, actor, 'g-granted', { name: 'g-granted2' }, grants);
    expect(result).toMatchObject({ queries: [], roles: ['r'], merge: false });
    expect(grants.snapshot()).toEqual({ 'role:r': ['g-granted2'] });
  });

  it('needs merge when the target exists only through a grant of someone else', async () => {
    await create('g src', 'g-src');
    const grants = new FakeGrants({ 'key:a': ['g-src'], 'key:b': ['g-dst'] });
    await expect(renameCollection(deps, actor, 'g-src', { name: 'g-dst' }, grants)).rejects.toMatchObject({ code: 'collection_exists' });
    expect(grants.snapshot()).toEqual({ 'key:a': ['g-src'], 'key:b': ['g-dst'] });
    const result = await renameCollection(deps, actor, 'g-src', { name: 'g-dst', merge: true }, grants);
    expect(result).toMatchObject({ merge: true, queries: ['g src'], keys: ['a'] });
    expect(grants.snapshot()).toEqual({ 'key:a': ['g-dst'], 'key:b': ['g-dst'] });
  });

  it('finishes a rename whose queries were re-filed but whose old name grants still hold', async () => {
    await create('g done', 'g-half');
    // The state a rename g-was -> g-half leaves when stopped before dropping: no query in g-was, grants on both.
    const grants = new FakeGrants({ 'key:k': ['g-was', 'g-half'], 'role:r': ['g-was', 'g-half'] });
    const result = await renameCollection(deps, actor, 'g-was', { name: 'g-half' }, grants);
    expect(result).toEqual({
      name: { from: 'g-was', to: 'g-half' },
      merge: false,
      resumed: true,
      queries: [],
      keys: ['k'],
      roles: ['r'],
      keys_gaining_access: [],
    });
    expect(grants.snapshot()).toEqual({ 'key:k': ['g-half'], 'role:r': ['g-half'] });
    // Finished: nothing is left to rename.
    await expect(renameCollection(deps, actor, 'g-was', { name: 'g-half' }, grants)).rejects.toMatchObject({ code: 'collection_not_found' });
  });

  it('completes a rename interrupted after widening, without merge', async () => {
    await create('g moving 1', 'g-from');
    await create('g moving 2', 'g-from');
    const grants = new FakeGrants({ 'key:k': ['g-from'] });
    const before = (await renames()).length;
    grants.failDrop = true;
    await expect(renameCollection(deps, actor, 'g-from', { name: 'g-to' }, grants)).rejects.toThrow('grants store unavailable');
    // The store rolled back (queries unmoved, no audit entry); the grants outside it stayed widened.
    expect(await collectionOf('g moving 1')).toBe('g-from');
    expect((await renames()).length).toBe(before);
    expect(grants.snapshot()).toEqual({ 'key:k': ['g-from', 'g-to'] });

    grants.failDrop = false;
    const result = await renameCollection(deps, actor, 'g-from', { name: 'g-to' }, grants);
    expect(result).toMatchObject({ merge: false, resumed: true, queries: ['g moving 1', 'g moving 2'], keys: ['k'] });
    expect(await collectionOf('g moving 2')).toBe('g-to');
    expect(grants.snapshot()).toEqual({ 'key:k': ['g-to'] });
    expect((await renames()).length).toBe(before + 1);
  });
});
