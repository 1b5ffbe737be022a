import { and, asc, eq } from 'drizzle-orm';
import type { Dialect } from '../../drivers/types.ts';
import type { AppDeps } from '../../deps.ts';
import { inspect } from '../../sql/index.ts';
import { connections, queries, queryVersions } from '../../store/schema/index.ts';
import { describeDefinitions, parseDefinitions } from '../../../shared/parameters/index.ts';
import { type ShownVersion, withListedValues } from '../parameter-values/shown.ts';
import { type CollectionGrants, hasHolders, storeGrants } from './grants.ts';
import { collectionNotFound } from './lookup.ts';
import { type PostmanCollection, type PostmanQuery, postmanCollection } from './postman-file.ts';

/** As `/q/<name>` reads markers: in the default connection's dialect, postgres when there is none. */
const DEFAULT_DIALECT: Dialect = 'postgres';

/**
 * `GET /api/v1/collections/{name}/postman`: the collection's published
 * queries as a Postman v2.1 file calling `baseUrl` (the server as the request
 * reached it). Unpublished queries are left out and named in the file's
 * description. 404 `collection_not_found` when no query is in it and no grant
 * names it (a collection named only by grants gives a file with no requests).
 * `workspace` (a workspace-scoped call) keeps only that workspace's queries
 * and grants.
 */
export async function collectionPostman(
  deps: AppDeps,
  name: string,
  baseUrl: string,
  { workspace, grants = storeGrants }: { workspace?: string; grants?: CollectionGrants } = {},
): Promise<PostmanCollection> {
  const read = await deps.store.db.transaction(async (tx) => {
    const rows = await tx
      .select({ name: queries.name, version: queryVersions })
      .from(queries)
      .leftJoin(queryVersions, and(eq(queryVersions.queryId, queries.id), eq(queryVersions.version, queries.publishedVersion)))
      .where(and(eq(queries.collection, name), workspace === undefined ? undefined : eq(queries.workspace, workspace)))
      .orderBy(asc(queries.name));
    if (rows.length === 0 && !hasHolders(await grants.naming(tx, name, workspace))) throw collectionNotFound(name);
    const dialects = new Map((await tx.select({ name: connections.name, db: connections.db }).from(connections)).map((c) => [c.name, c.db as Dialect]));
    const published: Array<PostmanQuery & { mongoCollection: string | null }> = [];
    const unpublished: string[] = [];
    for (const { name: query, version } of rows) {
      if (!version) {
        unpublished.push(query);
        continue;
      }
      const dialect = (version.connectionName && dialects.get(version.connectionName)) || DEFAULT_DIALECT;
      published.push({
        name: query,
        version: version.version,
        description: version.description,
        connectionName: version.connectionName,
        parameters: version.parameters,
        undeclared: inspect(version.sql ?? '', dialect).markers.filter((marker) => !Object.hasOwn(version.parameters, marker)),
        mongoCollection: version.mongo?.collection ?? null,
      });
    }
    return { published, unpublished };
  });
  // Listed values are read outside the store's transaction: a database round trip each, at most.
  const published = await Promise.all(read.published.map(async ({ mongoCollection, ...query }) => ({ ...query, parameters: await shownDefinitions(deps, { ...query, query: query.name, mongoCollection }) })));
  return postmanCollection(name, baseUrl, published, read.unpublished);
}

/** The saved definitions with each listing parameter's values as its enum (as the other documents show them). */
async function shownDefinitions(deps: AppDeps, at: ShownVersion & { parameters: Record<string, unknown> }): Promise<Record<string, unknown>> {
  const parsed = parseDefinitions(at.parameters);
  return 'rules' in parsed ? describeDefinitions(await withListedValues(deps, at, parsed.rules)) : at.parameters;
}
