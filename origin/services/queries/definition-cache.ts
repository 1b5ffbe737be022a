import { and, eq } from 'drizzle-orm';
import { type NotifiedCache, announceChange, announceChanges, cachePerStore } from '../../store/notified-cache.ts';
import type { Store, StoreDb } from '../../store/open.ts';
import { type QueryRow, type QueryVersionRow, queries, queryVersions } from '../../store/schema/index.ts';

/**
 * Saved-query definitions as `/q/<name>` runs them (the query row and the
 * version rows asked for), kept in process memory so a run does not read the
 * store on every request (ADR 0010). Every query verb sends `NOTIFY
 * sluice_queries` with the query's name inside its transaction
 * (`announceQueryChange`), and drops the name here after the transaction ends
 * (`afterQueryChange`); freshness as `NotifiedCache` describes. Unknown
 * queries and versions are never cached, so they are re-read on every use.
 */

export const QUERIES_CHANNEL = 'sluice_queries';
/** Past this many names the oldest read goes first: a bound on memory, not a policy. */
const MAX_ENTRIES = 10_000;

interface Entry {
  query: QueryRow;
  versions: Map<number, QueryVersionRow>;
}

/** The cache of a store (one per store, made on first use; on a shared store it starts listening). */
const definitionCache = cachePerStore<Entry>(QUERIES_CHANNEL, MAX_ENTRIES);

/** Keeps a version of `query`, only while `query` is the very row the cache holds for its name. */
function putVersion(cache: NotifiedCache<Entry>, query: QueryRow, version: QueryVersionRow, mark: number): void {
  if (!cache.current(mark)) return;
  const entry = cache.get(query.name);
  if (entry && entry.query === query) entry.versions.set(version.version, version);
}

/** A query and its published version (null when none is published), as `/q/<name>` reads them. */
export interface QueryDefinition {
  query: QueryRow;
  published: QueryVersionRow | null;
}

/** Query `name` with its published version, or null: from the cache when it holds it, else read (and kept). */
export async function cachedDefinition(store: Pick<Store, 'db'>, name: string): Promise<QueryDefinition | null> {
  const cache = definitionCache(store);
  const entry = cache.get(name);
  if (entry) {
    const wanted = entry.query.publishedVersion;
    const published = wanted === null ? null : entry.versions.get(wanted);
    if (published !== undefined) return { query: entry.query, published };
  }
  const mark = cache.mark();
  const [found] = await store.db
    .select({ query: queries, published: queryVersions })
    .from(queries)
    .leftJoin(queryVersions, and(eq(queryVersions.queryId, queries.id), eq(queryVersions.version, queries.publishedVersion)))
    .where(eq(queries.name, name));
  if (!found) return null;
  cache.put(name, { query: found.query, versions: new Map() }, mark);
  if (found.published) putVersion(cache, found.query, found.published, mark);
  return found;
}

/** Version `version` of a query row `cachedDefinition` gave, or null: from the cache when it holds it, else read (and kept). */
export async function cachedVersion(store: Pick<Store, 'db'>, query: QueryRow, version: number): Promise<QueryVersionRow | null> {
  const cache = definitionCache(store);
  const entry = cache.get(query.name);
  const held = entry?.query === query ? entry.versions.get(version) : undefined;
  if (held) return held;
  const mark = cache.mark();
  const [row] = await store.db
    .select()
    .from(queryVersions)
    .where(and(eq(queryVersions.queryId, query.id), eq(queryVersions.version, version)));
  if (!row) return null;
  putVersion(cache, query, row, mark);
  return row;
}

/** Grows with every query change this origin hears of (its own, and other origins' on a shared store). */
export function queryChanges(store: Pick<Store, 'db'>): number {
  return definitionCache(store).mark();
}

/** Drops every definition this origin holds: after one transaction changed many queries (a configuration apply). */
export function forgetQueryDefinitions(store: Pick<Store, 'db'>): void {
  definitionCache(store).reset();
}

/** Inside a change's transaction: tells every origin on the store to drop query `name` (delivered on commit). */
export function announceQueryChange(tx: Pick<StoreDb, 'execute'>, name: string): Promise<void> {
  return announceChange(tx, QUERIES_CHANNEL, name);
}

/** `announceQueryChange` for many names in one statement. */
export function announceQueryChanges(tx: Pick<StoreDb, 'execute'>, names: string[]): Promise<void> {
  return announceChanges(tx, QUERIES_CHANNEL, names);
}

/**
 * Awaits a query change's transaction, then drops the names it touched from
 * this origin's cache, so this origin's very next run reads the change.
 * After the commit, not inside: a run reading the store before the commit is
 * not kept (generation check). Dropped on failure too (dropping is always safe).
 */
export async function afterQueryChange<T>(store: Pick<Store, 'db'>, names: string | ((result: T) => string[]), change: Promise<T>): Promise<T> {
  const cache = definitionCache(store);
  let done: { result: T } | null = null;
  try {
    done = { result: await change };
    return done.result;
  } finally {
    if (typeof names === 'string') cache.invalidate(names);
    else if (done === null) cache.reset();
    else for (const name of names(done.result)) cache.invalidate(name);
  }
}
