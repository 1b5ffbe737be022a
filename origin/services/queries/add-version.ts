import { desc, eq } from 'drizzle-orm';
import { recordAudit } from '../../audit/record.ts';
import type { AppDeps } from '../../deps.ts';
import type { Caller } from '../../access/caller.ts';
import type { StoreDb } from '../../store/open.ts';
import { queryVersions } from '../../store/schema/index.ts';
import { assertListedValues } from '../parameter-values/on-save.ts';
import { checkDefinition } from './definition.ts';
import type { SaveSource, VersionFields } from './fields.ts';
import { assertIfMatch, findQuery, readQuery } from './lookup.ts';
import { reviseQuery } from './revise.ts';
import { type QueryRead, versionSnapshot } from './view.ts';
import { afterQueryChange } from './definition-cache.ts';

/**
 * The fields a new version leaves out, taken from the newest version: a user
 * changing only the SQL kept losing the default connection (and `/q` then had
 * none to run on). `null` still clears a field. A version without
 * `query_type` keeps the newest one's, unless it sends `sql` (a SQL query);
 * a document query's find fields left out are kept too, so changing only its
 * filter keeps its collection, projection and sort.
 */
async function carriedOver(db: StoreDb, queryId: number, input: VersionFields): Promise<VersionFields> {
  const [newest] = await db.select().from(queryVersions).where(eq(queryVersions.queryId, queryId)).orderBy(desc(queryVersions.version)).limit(1);
  if (!newest) return input;
  const queryType = input.query_type !== undefined || input.sql !== undefined ? input.query_type : newest.queryType;
  const find = queryType === 'mongo' && newest.mongo ? newest.mongo : null;
  const kept = <T,>(given: T | undefined, stored: T | null | undefined) => (given !== undefined ? given : find ? stored : undefined);
  return {
    ...input,
    query_type: queryType,
    mongo_collection: kept(input.mongo_collection, find?.collection),
    mongo_filter: kept(input.mongo_filter, find?.filter),
    mongo_projection: kept(input.mongo_projection, find?.projection),
    mongo_sort: kept(input.mongo_sort, find?.sort),
    connection_name: input.connection_name !== undefined ? input.connection_name : newest.connectionName,
    description: input.description !== undefined ? input.description : newest.description,
    tags: input.tags !== undefined ? input.tags : newest.tags,
    cache_ttl: input.cache_ttl !== undefined ? input.cache_ttl : newest.cacheTtl,
  };
}

/**
 * Adds a version: a `save_query` change. Of the definition, `sql` and
 * `parameters` are the new version's own; `connection_name`, `description`,
 * `tags` and `cache_ttl` left out are the newest version's. It takes the query's next number
 * (never reused, even after deletes). With `publish` true it is published and
 * the prior published version becomes previous; otherwise it is a draft and
 * the published version keeps serving. A `source` other than the API itself
 * is named in the audit entry (`source: import`).
 */
export async function addVersion(
  deps: AppDeps,
  actor: Caller,
  name: string,
  input: VersionFields,
  { workspace, ifMatch, source }: { workspace?: string; ifMatch?: string; source?: SaveSource } = {},
): Promise<QueryRead & { version: number }> {
  // An unknown query is a 404 before any definition problem.
  const query = await findQuery(deps.store.db, name, { workspace });
  const definition = await checkDefinition(deps.store.db, await carriedOver(deps.store.db, query.id, input), { workspace: query.workspace });
  await assertListedValues(deps, definition, actor);
  const published = input.publish ?? false;
  return afterQueryChange(deps.store, name, deps.store.db.transaction(async (tx) => {
    const current = await findQuery(tx, name, { workspace, forUpdate: true });
    assertIfMatch(ifMatch, current);
    const number = current.nextVersion;
    const [version] = await tx
      .insert(queryVersions)
      .values({ queryId: current.id, version: number, ...definition, author: input.author ?? actor.name, createdAt: new Date() })
      .returning();
    const row = await reviseQuery(tx, current, {
      nextVersion: number + 1,
      ...(published ? { publishedVersion: number } : {}),
    });
    await recordAudit(tx, {
      actor: actor.name,
      action: 'save_query',
      target: name,
      workspace: current.workspace,
      changes: { ...versionSnapshot(name, version), published, ...(source ? { source } : {}) },
    });
    return { ...(await readQuery(tx, row)), version: number };
  }));
}
