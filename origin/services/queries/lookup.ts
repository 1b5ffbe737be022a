import { and, asc, count, eq, gte, max } from 'drizzle-orm';
import { SluiceError } from '../../errors.ts';
import type { StoreDb } from '../../store/open.ts';
import { type QueryRow, type QueryVersionRow, queries, queryVersions, runs } from '../../store/schema/index.ts';
import { type QueryRead, type RunStats, queryEtag, queryRead } from './view.ts';
import { assertIfMatch as assertCurrent } from '../if-match.ts';

export const queryNotFound = (name: string) => new SluiceError('query_not_found', `Query "${name}" not found`);

export const versionNotFound = (name: string, version: number | string) =>
  new SluiceError('version_not_found', `Query "${name}" has no version ${version}`);

/**
 * The row of a query, or 404 `query_not_found`. `workspace` (a
 * workspace-scoped call) hides queries of other workspaces. With
 * `forUpdate`, the row stays locked until the transaction ends.
 */
export async function findQuery(db: StoreDb, name: string, { workspace, forUpdate = false }: { workspace?: string; forUpdate?: boolean } = {}): Promise<QueryRow> {
  const where = workspace === undefined ? eq(queries.name, name) : and(eq(queries.name, name), eq(queries.workspace, workspace));
  const query = db.select().from(queries).where(where);
  const [row] = forUpdate ? await query.for('update') : await query;
  if (!row) throw queryNotFound(name);
  return row;
}

/** Every version of a query, oldest first. */
export function versionsOf(db: StoreDb, queryId: number): Promise<QueryVersionRow[]> {
  return db.select().from(queryVersions).where(eq(queryVersions.queryId, queryId)).orderBy(asc(queryVersions.version));
}

/** A version number from a path segment: anything but a whole number 1 or more is a version that never existed. */
export function parseVersion(name: string, text: string): number {
  if (!/^[1-9]\d{0,8}$/.test(text)) throw versionNotFound(name, text);
  return Number(text);
}

/** One version of a query, or 404 `version_not_found`. */
export async function findVersion(db: StoreDb, query: Pick<QueryRow, 'id' | 'name'>, version: number): Promise<QueryVersionRow> {
  const [row] = await db
    .select()
    .from(queryVersions)
    .where(and(eq(queryVersions.queryId, query.id), eq(queryVersions.version, version)));
  if (!row) throw versionNotFound(query.name, version);
  return row;
}

/**
 * Stored runs of a query. History is keyed by name and version and outlives
 * deletes, so only runs since the query (for `last_used_at`) or the version
 * (for `run_count`) was created count: a query recreated under an old name
 * does not inherit its namesake's runs.
 */
export async function runStats(db: StoreDb, query: Pick<QueryRow, 'id' | 'name' | 'createdAt'>): Promise<RunStats> {
  const counted = await db
    .select({ version: queryVersions.version, runs: count(runs.id) })
    .from(queryVersions)
    .innerJoin(runs, and(eq(runs.query, query.name), eq(runs.version, queryVersions.version), gte(runs.time, queryVersions.createdAt)))
    .where(eq(queryVersions.queryId, query.id))
    .groupBy(queryVersions.version);
  const [last] = await db
    .select({ at: max(runs.time) })
    .from(runs)
    .where(and(eq(runs.query, query.name), gte(runs.time, query.createdAt)));
  return { counts: new Map(counted.map((r) => [r.version, Number(r.runs)])), lastUsed: last?.at ?? null };
}

/** The query as reads and changes answer it: every version, run counts, ETag. */
export async function readQuery(db: StoreDb, row: QueryRow): Promise<QueryRead> {
  // One after the other: inside a transaction the statements share one session.
  const versions = await versionsOf(db, row.id);
  return queryRead(row, versions, await runStats(db, row));
}

/** `If-Match` against the query's current ETag (services/if-match.ts). */
export const assertIfMatch = (ifMatch: string | undefined, row: Pick<QueryRow, 'id' | 'revision' | 'name'>): void =>
  assertCurrent(ifMatch, queryEtag(row), `Query "${row.name}"`);
