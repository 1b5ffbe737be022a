import type { QueryRow, QueryVersionRow } from '../../store/schema/index.ts';
import { formatDate } from '../../time.ts';
import { describeDefinitions, parseDefinitions } from '../../../shared/parameters/index.ts';
import { type VersionStatus, versionStatus } from './status.ts';

/** A document query's fields, as saved (only versions of `query_type: mongo` have them). */
export interface MongoFields {
  mongo_collection?: string;
  mongo_filter?: Record<string, unknown> | null;
  mongo_projection?: Record<string, unknown> | null;
  mongo_sort?: Record<string, unknown> | null;
}

/** The `mongo_*` fields of a document query's version; none for a SQL one. */
export function mongoFields(row: Pick<QueryVersionRow, 'queryType' | 'mongo'>): MongoFields {
  if (row.queryType !== 'mongo' || !row.mongo) return {};
  return { mongo_collection: row.mongo.collection, mongo_filter: row.mongo.filter, mongo_projection: row.mongo.projection, mongo_sort: row.mongo.sort };
}

/** One version as the Management API shows it; `parameters` in the v1 alias type names. */
export interface VersionView extends MongoFields {
  version: number;
  status: VersionStatus;
  query_type: string;
  sql: string | null;
  parameters: Record<string, unknown>;
  description: string | null;
  connection_name: string | null;
  tags: string[];
  author: string | null;
  cache_ttl: number | null;
  created_at: string;
  run_count: number;
}

/**
 * `GET /api/v1/queries/{name}`: the query, its definition fields mirroring
 * the published version (else the newest), and every version newest first.
 */
export interface QueryView extends MongoFields {
  name: string;
  collection: string | null;
  published_version: number | null;
  created_at: string;
  updated_at: string;
  last_used_at: string | null;
  example: boolean;
  description: string | null;
  sql: string | null;
  parameters: Record<string, unknown>;
  connection_name: string | null;
  tags: string[];
  author: string | null;
  cache_ttl: number | null;
  versions: VersionView[];
}

/** A listing entry: no SQL, no parameters, the number of versions. */
export interface QuerySummary {
  name: string;
  collection: string | null;
  published_version: number | null;
  created_at: string;
  last_used_at: string | null;
  cache_ttl: number | null;
  example: boolean;
  description: string | null;
  tags: string[];
  connection_name: string | null;
  versions: number;
  /** `published` while a version is published, else `unpublished`. */
  status: 'published' | 'unpublished';
}

/** A query read back with the ETag a later `If-Match` must present. */
export interface QueryRead {
  query: QueryView;
  etag: string;
}

/** Stored runs: per version counts and the newest run of any version. */
export interface RunStats {
  counts: Map<number, number>;
  lastUsed: Date | null;
}

/** Quoted, derived from id and revision: a recreated query of the same name never matches an old one. */
export function queryEtag(row: Pick<QueryRow, 'id' | 'revision'>): string {
  return `"q${row.id}.${row.revision}"`;
}

/** Saved parameters in the v1 alias type names; a stored definition the checker no longer reads is shown as saved. */
export function describeParameters(saved: Record<string, unknown>): Record<string, unknown> {
  const parsed = parseDefinitions(saved);
  return 'rules' in parsed ? describeDefinitions(parsed.rules) : saved;
}

export function versionView(row: QueryVersionRow, publishedVersion: number | null, runCount: number): VersionView {
  return {
    version: row.version,
    status: versionStatus(row.version, publishedVersion),
    query_type: row.queryType,
    sql: row.sql,
    ...mongoFields(row),
    parameters: describeParameters(row.parameters),
    description: row.description,
    connection_name: row.connectionName,
    tags: row.tags,
    author: row.author,
    cache_ttl: row.cacheTtl,
    created_at: formatDate(row.createdAt),
    run_count: runCount,
  };
}

/** The version the query's own fields mirror: the published one, else the newest. */
export function servingVersion<T extends Pick<QueryVersionRow, 'version'>>(publishedVersion: number | null, versions: T[]): T | undefined {
  const published = versions.find((v) => v.version === publishedVersion);
  return published ?? versions.reduce<T | undefined>((newest, v) => (newest === undefined || v.version > newest.version ? v : newest), undefined);
}

export function queryView(row: QueryRow, versions: QueryVersionRow[], stats: RunStats): QueryView {
  const newestFirst = [...versions].sort((a, b) => b.version - a.version);
  const views = newestFirst.map((v) => versionView(v, row.publishedVersion, stats.counts.get(v.version) ?? 0));
  const mirror = views.find((v) => v.version === row.publishedVersion) ?? views[0];
  return {
    name: row.name,
    collection: row.collection,
    published_version: row.publishedVersion,
    created_at: formatDate(row.createdAt),
    updated_at: formatDate(row.updatedAt),
    last_used_at: stats.lastUsed ? formatDate(stats.lastUsed) : null,
    example: row.example,
    description: mirror?.description ?? null,
    sql: mirror?.sql ?? null,
    ...(mirror ? pickMongo(mirror) : {}),
    parameters: mirror?.parameters ?? {},
    connection_name: mirror?.connection_name ?? null,
    tags: mirror?.tags ?? [],
    author: mirror?.author ?? null,
    cache_ttl: mirror?.cache_ttl ?? null,
    versions: views,
  };
}

function pickMongo(view: MongoFields): MongoFields {
  const { mongo_collection, mongo_filter, mongo_projection, mongo_sort } = view;
  return mongo_collection === undefined ? {} : { mongo_collection, mongo_filter, mongo_projection, mongo_sort };
}

export function queryRead(row: QueryRow, versions: QueryVersionRow[], stats: RunStats): QueryRead {
  return { query: queryView(row, versions, stats), etag: queryEtag(row) };
}

/** What an audit entry keeps of a version: the full definition, parameters as saved. */
export function versionSnapshot(name: string, row: QueryVersionRow): Record<string, unknown> {
  return {
    name,
    version: row.version,
    query_type: row.queryType,
    sql: row.sql,
    ...mongoFields(row),
    parameters: row.parameters,
    description: row.description,
    connection_name: row.connectionName,
    tags: row.tags,
    author: row.author,
    cache_ttl: row.cacheTtl,
    created_at: row.createdAt.toISOString(),
  };
}
