import { and, asc, desc, eq } from 'drizzle-orm';
import type { AppDeps } from '../../deps.ts';
import { queries, queryVersions } from '../../store/schema/index.ts';
import { BUNDLE_FORMAT, BUNDLE_VERSION, type BundleSnapshot, type BundleSnapshotEntry } from './bundle-file.ts';
import { type CollectionGrants, hasHolders, storeGrants } from './grants.ts';
import { collectionNotFound } from './lookup.ts';

/**
 * `GET /api/v1/collections/{name}/bundle`: the collection's queries, each as
 * its newest version (published or not), by name. `workspace` (a
 * workspace-scoped call) keeps only that workspace's queries. 404
 * `collection_not_found` as for the Postman file; a collection named only by
 * grants gives a bundle with no queries.
 */
export async function snapshotBundle(
  deps: AppDeps,
  name: string,
  { workspace, grants = storeGrants }: { workspace?: string; grants?: CollectionGrants } = {},
): Promise<BundleSnapshot> {
  return deps.store.db.transaction(async (tx) => {
    const filed = workspace === undefined ? eq(queries.collection, name) : and(eq(queries.collection, name), eq(queries.workspace, workspace));
    // Newest first within each query: the first row of a name is its newest version.
    const rows = await tx
      .select({ name: queries.name, version: queryVersions })
      .from(queries)
      .innerJoin(queryVersions, eq(queryVersions.queryId, queries.id))
      .where(filed)
      .orderBy(asc(queries.name), desc(queryVersions.version));
    if (rows.length === 0 && !hasHolders(await grants.naming(tx, name, workspace))) throw collectionNotFound(name);
    const entries: BundleSnapshotEntry[] = [];
    for (const { name: query, version } of rows) {
      if (entries.at(-1)?.name === query) continue;
      entries.push({
        name: query,
        sql: version.sql ?? '',
        description: version.description,
        tags: version.tags,
        parameters: version.parameters,
        connection_name: version.connectionName,
        cache_ttl: version.cacheTtl,
      });
    }
    return { format: BUNDLE_FORMAT, format_version: BUNDLE_VERSION, collection: name, queries: entries };
  });
}
