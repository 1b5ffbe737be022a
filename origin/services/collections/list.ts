import { asc, eq } from 'drizzle-orm';
import type { AppDeps } from '../../deps.ts';
import { queries } from '../../store/schema/index.ts';
import { type CollectionGrants, type GrantHolders, storeGrants } from './grants.ts';
import { byName } from './lookup.ts';

/** One collection of the listing: the queries filed in it and who is granted it. */
export interface CollectionItem {
  name: string;
  queries: string[];
  keys: string[];
  roles: string[];
}

/** `GET /api/v1/collections`. */
export interface CollectionListing {
  collections: CollectionItem[];
  /** Queries in no collection. */
  uncollected: string[];
}

const sorted = (names: Iterable<string>) => [...new Set(names)].sort(byName);

/**
 * Collections from where queries are filed and from what grants name: a
 * collection named only by a grant is listed with no queries; a grant naming
 * nobody lists nothing. Everything by name.
 */
export function mergeListing(filed: Array<{ name: string; collection: string | null }>, grants: Map<string, GrantHolders>): CollectionListing {
  const byCollection = new Map<string, string[]>();
  const uncollected: string[] = [];
  for (const query of filed) {
    if (query.collection === null) uncollected.push(query.name);
    else byCollection.set(query.collection, [...(byCollection.get(query.collection) ?? []), query.name]);
  }
  for (const [name, holders] of grants) {
    if ((holders.keys.length > 0 || holders.roles.length > 0) && !byCollection.has(name)) byCollection.set(name, []);
  }
  const collections = [...byCollection.keys()].sort(byName).map((name) => ({
    name,
    queries: sorted(byCollection.get(name)!),
    keys: sorted(grants.get(name)?.keys ?? []),
    roles: sorted(grants.get(name)?.roles ?? []),
  }));
  return { collections, uncollected: sorted(uncollected) };
}

/**
 * Every collection and the uncollected queries, read in one transaction.
 * `workspace` (a workspace-scoped call) keeps only that workspace's queries,
 * keys and roles: a collection exists there when they file or name it.
 */
export async function listCollections(deps: AppDeps, { workspace, grants = storeGrants }: { workspace?: string; grants?: CollectionGrants } = {}): Promise<CollectionListing> {
  return deps.store.db.transaction(async (tx) => {
    const filed = await tx
      .select({ name: queries.name, collection: queries.collection })
      .from(queries)
      .where(workspace === undefined ? undefined : eq(queries.workspace, workspace))
      .orderBy(asc(queries.name));
    return mergeListing(filed, await grants.all(tx, workspace));
  });
}
