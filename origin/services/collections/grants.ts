import { and, eq, sql } from 'drizzle-orm';
import { invalidateAccess } from '../../access/directory.ts';
import type { StoreDb } from '../../store/open.ts';
import { apiKeys, roles } from '../../store/schema/index.ts';

/** The API keys and roles whose `collections` grants name one collection, each list sorted. */
export interface GrantHolders {
  keys: string[];
  roles: string[];
}

/**
 * What the collection verbs need to know about `collections` grants, in one
 * place: the store functions below read and rewrite the grants of API keys
 * and roles. The verbs take this as a parameter (defaulting to
 * `storeGrants`) so tests can give them grants of their own.
 */
export interface CollectionGrants {
  /** Keys and roles whose grants name `name` (of `workspace` only, when given). */
  naming(tx: StoreDb, name: string, workspace?: string): Promise<GrantHolders>;
  /** Every collection name some grant names, with its holders (of `workspace` only, when given). */
  all(tx: StoreDb, workspace?: string): Promise<Map<string, GrantHolders>>;
  /** Rename, first step: every grant (of `workspace` only, when given) naming `from` names `to` as well (nobody loses access meanwhile). */
  widen(tx: StoreDb, from: string, to: string, workspace?: string): Promise<void>;
  /** Rename, last step (after the queries are re-filed): `name` is dropped from every grant (of `workspace` only, when given). */
  drop(tx: StoreDb, name: string, workspace?: string): Promise<void>;
}

export const noHolders = (): GrantHolders => ({ keys: [], roles: [] });

export const hasHolders = (holders: GrantHolders): boolean => holders.keys.length > 0 || holders.roles.length > 0;

/** Every key and role of `inner` also appears in `outer`. */
export const holdersCovered = (inner: GrantHolders, outer: GrantHolders): boolean =>
  inner.keys.every((key) => outer.keys.includes(key)) && inner.roles.every((role) => outer.roles.includes(role));

type Holder = 'keys' | 'roles';
const tables = { keys: apiKeys, roles } as const;

/** Who holds a `collections` grant naming `name`. Lists sort by code point (the default sort), like `byName`. */
export async function grantsNaming(tx: StoreDb, name: string, workspace?: string): Promise<GrantHolders> {
  const holders = noHolders();
  for (const kind of ['keys', 'roles'] as const) {
    const table = tables[kind];
    const rows = await tx
      .select({ name: table.name })
      .from(table)
      .where(and(sql`${table.grants} -> 'collections' @> jsonb_build_array(${name}::text)`, workspace === undefined ? undefined : eq(table.workspace, workspace)));
    holders[kind] = rows.map((row) => row.name).sort();
  }
  return holders;
}

/** Every holder's `collections` grants, read once. */
async function grantLists(tx: StoreDb, kind: Holder, forUpdate = false, workspace?: string) {
  const table = tables[kind];
  const query = tx
    .select({ id: table.id, name: table.name, grants: table.grants, revision: table.revision })
    .from(table)
    .where(workspace === undefined ? undefined : eq(table.workspace, workspace));
  const rows = forUpdate ? await query.for('update') : await query;
  return rows.map((row) => ({ ...row, collections: row.grants.collections ?? [] }));
}

export async function allGrants(tx: StoreDb, workspace?: string): Promise<Map<string, GrantHolders>> {
  const byCollection = new Map<string, GrantHolders>();
  for (const kind of ['keys', 'roles'] as const) {
    for (const row of await grantLists(tx, kind, false, workspace)) {
      for (const collection of row.collections) {
        const holders = byCollection.get(collection) ?? noHolders();
        holders[kind].push(row.name);
        byCollection.set(collection, holders);
      }
    }
  }
  for (const holders of byCollection.values()) {
    holders.keys.sort();
    holders.roles.sort();
  }
  return byCollection;
}

/**
 * Rewrites the `collections` grant of every key and role `change` alters
 * (each one's revision, so its ETag, moves on), and tells the access
 * directory when any did.
 */
async function rewriteGrants(tx: StoreDb, change: (collections: string[]) => string[] | null, workspace?: string): Promise<void> {
  let changed = false;
  for (const kind of ['keys', 'roles'] as const) {
    const table = tables[kind];
    for (const row of await grantLists(tx, kind, true, workspace)) {
      const next = change(row.collections);
      if (!next) continue;
      await tx
        .update(table)
        .set({ grants: { ...row.grants, collections: next }, revision: row.revision + 1, updatedAt: new Date() })
        .where(eq(table.id, row.id));
      changed = true;
    }
  }
  if (changed) await invalidateAccess(tx);
}

export async function widenGrants(tx: StoreDb, from: string, to: string, workspace?: string): Promise<void> {
  await rewriteGrants(tx, (collections) => (collections.includes(from) && !collections.includes(to) ? [...collections, to].sort() : null), workspace);
}

export async function dropFromGrants(tx: StoreDb, name: string, workspace?: string): Promise<void> {
  await rewriteGrants(tx, (collections) => (collections.includes(name) ? collections.filter((c) => c !== name) : null), workspace);
}

/** The `collections` grants of API keys and roles, held in the store (`grants -> 'collections'`). */
export const storeGrants: CollectionGrants = {
  naming: grantsNaming,
  all: allGrants,
  widen: widenGrants,
  drop: dropFromGrants,
};
