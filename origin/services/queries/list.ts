import { type SQL, and, asc, eq, isNotNull, isNull, or, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import { badRequest } from '../../errors.ts';
import type { AppDeps } from '../../deps.ts';
import { queries, queryVersions, runs } from '../../store/schema/index.ts';
import { formatDate } from '../../time.ts';
import type { QuerySummary } from './view.ts';

export const LIST_STATUSES = ['published', 'unpublished', 'draft'] as const;
export type ListStatus = (typeof LIST_STATUSES)[number];

export interface ListFilters {
  /** Case-insensitive substring of the name, description or a tag. */
  search?: string;
  collection?: string;
  /** The default connection of the published version, else the newest. */
  connection?: string;
  /** `published`: one is; `unpublished`: none is; `draft`: at least one draft. */
  status?: string;
  /** Only the queries of this workspace (a workspace-scoped call). */
  workspace?: string;
}

/** The version a summary mirrors: the published one, else the newest. */
const serving = alias(queryVersions, 'serving');
const servingNumber = sql`coalesce(${queries.publishedVersion}, (select max(v.version) from query_versions v where v.query_id = ${queries.id}))`;
const versionCount = sql<number>`(select count(*) from query_versions v where v.query_id = ${queries.id})`.mapWith(Number);
const draftCount = sql<number>`(select count(*) from query_versions v where v.query_id = ${queries.id}
  and (${queries.publishedVersion} is null or v.version > ${queries.publishedVersion}))`.mapWith(Number);
/** Runs since the query was created (a recreated name does not inherit its namesake's). */
const lastUsed = sql<Date | null>`(select max(r.time) from runs r where r.query = ${queries.name} and r.time >= ${queries.createdAt})`.mapWith(runs.time);

/** Every saved query matching the filters, by name; 400 for an unknown `status`. */
export async function listQueries(deps: AppDeps, filters: ListFilters): Promise<QuerySummary[]> {
  const conditions: SQL[] = [];
  const search = filters.search?.toLowerCase();
  if (search) {
    const contains = (column: SQL | typeof queries.name) => sql`strpos(lower(${column}), ${search}) > 0`;
    conditions.push(
      or(
        contains(queries.name),
        contains(sql`coalesce(${serving.description}, '')`),
        sql`exists (select 1 from jsonb_array_elements_text(${serving.tags}) t where strpos(lower(t), ${search}) > 0)`,
      )!,
    );
  }
  if (filters.collection) conditions.push(eq(queries.collection, filters.collection));
  if (filters.connection) conditions.push(eq(serving.connectionName, filters.connection));
  if (filters.status) conditions.push(statusCondition(filters.status));
  if (filters.workspace !== undefined) conditions.push(eq(queries.workspace, filters.workspace));

  const rows = await deps.store.db
    .select({
      query: queries,
      description: serving.description,
      tags: serving.tags,
      connectionName: serving.connectionName,
      cacheTtl: serving.cacheTtl,
      versions: versionCount,
      lastUsed,
    })
    .from(queries)
    .innerJoin(serving, and(eq(serving.queryId, queries.id), sql`${serving.version} = ${servingNumber}`))
    .where(and(...conditions))
    .orderBy(asc(queries.name));

  return rows.map((r) => ({
    name: r.query.name,
    collection: r.query.collection,
    published_version: r.query.publishedVersion,
    created_at: formatDate(r.query.createdAt),
    last_used_at: r.lastUsed ? formatDate(r.lastUsed) : null,
    cache_ttl: r.cacheTtl,
    example: r.query.example,
    description: r.description,
    tags: r.tags,
    connection_name: r.connectionName,
    versions: r.versions,
    status: r.query.publishedVersion === null ? 'unpublished' : 'published',
  }));
}

function statusCondition(status: string): SQL {
  switch (status as ListStatus) {
    case 'published':
      return isNotNull(queries.publishedVersion);
    case 'unpublished':
      return isNull(queries.publishedVersion);
    case 'draft':
      return sql`${draftCount} > 0`;
    default:
      throw badRequest(`status must be one of ${LIST_STATUSES.join(', ')}`, { errors: { status: `must be one of ${LIST_STATUSES.join(', ')}` } });
  }
}
