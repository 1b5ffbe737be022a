import { randomBytes } from 'node:crypto';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { asc, eq, inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emptyGrants } from '../../shared/access/grants.ts';
import type { AppDeps } from '../../origin/deps.ts';
import type { Caller } from '../../origin/access/caller.ts';
import { type CollectionGrants, storeGrants } from '../../origin/services/collections/grants.ts';
import { listCollections, mergeListing } from '../../origin/services/collections/list.ts';
import { collectionPostman } from '../../origin/services/collections/postman.ts';
import { renameCollection } from '../../origin/services/collections/rename.ts';
import { createQuery } from '../../origin/services/queries/create.ts';
import { type Store, openStore } from '../../origin/store/open.ts';
import { apiKeys, auditLog, queries, roles } from '../../origin/store/schema/index.ts';
import { templateDir } from '../harness/origin.ts';

/**
 * Collections and the `collections` grants of keys and roles, on a real
 * store: the listing merge, a collection named only by grants, and a rename
 * widening, re-filing and dropping in one transaction, including what a
 * failed one leaves (nothing) and completing the states a rename can find
 * (grants on both names, queries on either side).
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

  /**
   * Keys (`key:<name>`) and roles (`role:<name>`) holding `collections`
   * grants, written to the store as they are: a grant may name a collection
   * no query is in (its queries moved or deleted since), which the key and
   * role verbs would refuse to create.
   */
  async function holding(grants: Record<string, string[]>): Promise<void> {
    for (const [holder, collections] of Object.entries(grants)) {
      const [kind, name] = holder.split(':') as ['key' | 'role', string];
      const values = { name, grants: { ...emptyGrants(), collections }, createdBy: actor.name };
      if (kind === 'key') await store.db.insert(apiKeys).values({ ...values, secretHash: randomBytes(32).toString('hex') });
      else await store.db.insert(roles).values(values);
    }
  }

  /** Each holder's collections as the store has them now. */
  async function held(holders: string[]): Promise<Record<string, string[]>> {
    const names = (kind: string) => holders.filter((h) => h.startsWith(`${kind}:`)).map((h) => h.slice(kind.length + 1));
    const rows = [
      ...(await store.db.select({ name: apiKeys.name, grants: apiKeys.grants }).from(apiKeys).where(inArray(apiKeys.name, ['', ...names('key')]))).map((r) => ({ ...r, kind: 'key' })),
      ...(await store.db.select({ name: roles.name, grants: roles.grants }).from(roles).where(inArray(roles.name, ['', ...names('role')]))).map((r) => ({ ...r, kind: 'role' })),
    ];
    return Object.fromEntries(rows.map((r) => [`${r.kind}:${r.name}`, [...r.grants.collections].sort()]));
  }

  it('lists grant holders and a collection only grants name; exports it as an empty file', async () => {
    await create('g listed', 'g-listed');
    await holding({ 'key:reporter': ['g-listed', 'g-only'], 'role:viewer': ['g-only'] });
    const listing = await listCollections(deps);
    expect(listing.collections.find((c) => c.name === 'g-listed')).toEqual({ name: 'g-listed', queries: ['g listed'], keys: ['reporter'], roles: [] });
    expect(listing.collections.find((c) => c.name === 'g-only')).toEqual({ name: 'g-only', queries: [], keys: ['reporter'], roles: ['viewer'] });
    const file = await collectionPostman(deps, 'g-only', 'http://example.test');
    expect(file.item).toEqual([]);
    await expect(collectionPostman(deps, 'g-nobody', 'http://example.test')).rejects.toMatchObject({ code: 'collection_not_found' });
  });

  it('widens grants to both names, re-files, drops the old name, and names the holders changed', async () => {
    await create('g plain', 'g-old');
    const grants = { 'key:k1': ['g-old'], 'role:r1': ['elsewhere', 'g-old'], 'key:other': ['elsewhere'] };
    await holding(grants);
    const result = await renameCollection(deps, actor, 'g-old', { name: 'g-new' });
    expect(result).toEqual({
      name: { from: 'g-old', to: 'g-new' },
      merge: false,
      resumed: false,
      queries: ['g plain'],
      keys: ['k1'],
      roles: ['r1'],
      keys_gaining_access: [],
    });
    expect(await held(Object.keys(grants))).toEqual({ 'key:k1': ['g-new'], 'role:r1': ['elsewhere', 'g-new'], 'key:other': ['elsewhere'] });
    expect(await collectionOf('g plain')).toBe('g-new');
    expect((await renames()).at(-1)?.changes).toEqual(result);
  });

  it('renames a collection only grants name', async () => {
    await holding({ 'role:r': ['g-granted'] });
    const result = await renameCollection(deps, actor, 'g-granted', { name: 'g-granted2' });
    expect(result).toMatchObject({ queries: [], roles: ['r'], merge: false });
    expect(await held(['role:r'])).toEqual({ 'role:r': ['g-granted2'] });
  });

  it('needs merge when the target exists only through a grant of someone else', async () => {
    await create('g src', 'g-src');
    await holding({ 'key:a': ['g-src'], 'key:b': ['g-dst'] });
    await expect(renameCollection(deps, actor, 'g-src', { name: 'g-dst' })).rejects.toMatchObject({ code: 'collection_exists' });
    expect(await held(['key:a', 'key:b'])).toEqual({ 'key:a': ['g-src'], 'key:b': ['g-dst'] });
    const result = await renameCollection(deps, actor, 'g-src', { name: 'g-dst', merge: true });
    // b held the target: it now reaches the query it could not before.
    expect(result).toMatchObject({ merge: true, queries: ['g src'], keys: ['a'], keys_gaining_access: ['b'] });
    expect(await held(['key:a', 'key:b'])).toEqual({ 'key:a': ['g-dst'], 'key:b': ['g-dst'] });
  });

  it('finishes a rename whose queries were re-filed but whose old name grants still hold', async () => {
    await create('g done', 'g-half');
    // The state a rename g-was -> g-half stopped before dropping would leave: no query in g-was, grants on both.
    await holding({ 'key:k': ['g-half', 'g-was'], 'role:rr': ['g-half', 'g-was'] });
    const result = await renameCollection(deps, actor, 'g-was', { name: 'g-half' });
    expect(result).toEqual({
      name: { from: 'g-was', to: 'g-half' },
      merge: false,
      resumed: true,
      queries: [],
      keys: ['k'],
      roles: ['rr'],
      keys_gaining_access: [],
    });
    expect(await held(['key:k', 'role:rr'])).toEqual({ 'key:k': ['g-half'], 'role:rr': ['g-half'] });
    // Finished: nothing is left to rename.
    await expect(renameCollection(deps, actor, 'g-was', { name: 'g-half' })).rejects.toMatchObject({ code: 'collection_not_found' });
  });

  it('leaves nothing half-done when its transaction fails, and completes grants widened ahead of their queries', async () => {
    await create('g moving 1', 'g-from');
    await create('g moving 2', 'g-from');
    await holding({ 'key:kk': ['g-from'] });
    const before = (await renames()).length;
    // The last step fails after the grants were widened and the queries re-filed, inside the transaction.
    const failing: CollectionGrants = {
      ...storeGrants,
      async drop(tx, name, workspace) {
        await storeGrants.drop(tx, name, workspace);
        throw new Error('grants store unavailable');
      },
    };
    await expect(renameCollection(deps, actor, 'g-from', { name: 'g-to' }, { grants: failing })).rejects.toThrow('grants store unavailable');
    // All of it rolled back: queries unmoved, grants as they were, no audit entry.
    expect(await collectionOf('g moving 1')).toBe('g-from');
    expect(await held(['key:kk'])).toEqual({ 'key:kk': ['g-from'] });
    expect((await renames()).length).toBe(before);

    // Grants on both names with the queries still in the old one (the first step of a rename, done by hand):
    // renaming again changes nobody's reach, so it needs no merge.
    await store.db.update(apiKeys).set({ grants: { ...emptyGrants(), collections: ['g-from', 'g-to'] } }).where(eq(apiKeys.name, 'kk'));
    const result = await renameCollection(deps, actor, 'g-from', { name: 'g-to' });
    expect(result).toMatchObject({ merge: false, resumed: true, queries: ['g moving 1', 'g moving 2'], keys: ['kk'], keys_gaining_access: [] });
    expect(await collectionOf('g moving 2')).toBe('g-to');
    expect(await held(['key:kk'])).toEqual({ 'key:kk': ['g-to'] });
    expect((await renames()).length).toBe(before + 1);
  });
});
