import { and, eq, sql } from 'drizzle-orm';
import type { Store, StoreDb } from '../../store/open.ts';
import { type QueryRow, type QueryVersionRow, queries, queryVersions } from '../../store/schema/index.ts';

/**
 * Saved-query definitions as `/q/<name>` runs them (the query row and the
 * version rows asked for), kept in process memory so a run does not read the
 * store on every request. The same guarantees as the connection cache
 * (`../connections/cache.ts`, ADR 0006; this one is ADR 0010):
 *
 * - Every query verb sends `NOTIFY sluice_queries` with the query's name
 *   inside its transaction (`announceQueryChange`), and drops the name here
 *   after the transaction ends (`afterQueryChange`).
 * - On a store shared by several origins (PostgreSQL), every origin LISTENs
 *   on that channel and drops the name it hears. The cache serves nothing
 *   until the listener is connected, and empties itself whenever the
 *   listener (re)connects, since notifications sent while it was away are lost.
 * - The embedded store (PGlite) belongs to one process: the verbs' own
 *   invalidation is complete.
 * - Entries also expire after a minute, a bound on anything missed.
 * A read that raced an invalidation is not kept (generation check). Unknown
 * queries and versions are never cached, so they are re-read on every use.
 */

export const QUERIES_CHANNEL = 'sluice_queries';
const MAX_AGE_MS = 60_000;
/** Past this many names the oldest read goes first: a bound on memory, not a policy. */
const MAX_ENTRIES = 10_000;

interface Entry {
  query: QueryRow;
  versions: Map<number, QueryVersionRow>;
  expires: number;
}

export class DefinitionCache {
  private readonly entries = new Map<string, Entry>();
  private generation = 0;

  /** `live` false: serve nothing until `reset(true)` (a shared store whose listener is not up yet). */
  constructor(private live: boolean) {}

  /** The cached entry of `name`, if live and fresh. */
  get(name: string): Entry | undefined {
    if (!this.live) return undefined;
    const entry = this.entries.get(name);
    if (entry && entry.expires > performance.now()) return entry;
    if (entry) this.entries.delete(name);
    return undefined;
  }

  /** Taken before reading the store; a `put` keeps the read only if nothing was invalidated since. */
  mark(): number {
    return this.generation;
  }

  putQuery(query: QueryRow, mark: number): void {
    if (!this.live || mark !== this.generation) return;
    if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(query.name, { query, versions: new Map(), expires: performance.now() + MAX_AGE_MS });
  }

  /** Keeps a version of `query`, only while `query` is the very row this cache holds for its name. */
  putVersion(query: QueryRow, version: QueryVersionRow, mark: number): void {
    if (!this.live || mark !== this.generation) return;
    const entry = this.entries.get(query.name);
    if (entry && entry.query === query) entry.versions.set(version.version, version);
  }

  invalidate(name: string): void {
    this.generation++;
    this.entries.delete(name);
  }

  /** Forgets everything; `live` says whether to serve from memory from now on (unchanged when not given). */
  reset(live = this.live): void {
    this.generation++;
    this.entries.clear();
    this.live = live;
  }
}

const caches = new WeakMap<Pick<Store, 'db'>, DefinitionCache>();

/** The cache of a store (one per store, made on first use; on a shared store it starts listening). */
export function definitionCache(store: Pick<Store, 'db'> & Partial<Pick<Store, 'kind' | 'listen'>>): DefinitionCache {
  let cache = caches.get(store);
  if (!cache) {
    const shared = store.kind === 'postgres';
    cache = new DefinitionCache(!shared);
    caches.set(store, cache);
    if (shared && store.listen) {
      const c = cache;
      store.listen(QUERIES_CHANNEL, (name) => c.invalidate(name), () => c.reset(true)).catch(() => c.reset(false));
    }
  }
  return cache;
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
  cache.putQuery(found.query, mark);
  if (found.published) cache.putVersion(found.query, found.published, mark);
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
  cache.putVersion(query, row, mark);
  return row;
}

/** Inside a change's transaction: tells every origin on the store to drop query `name` (delivered on commit). */
export async function announceQueryChange(tx: Pick<StoreDb, 'execute'>, name: string): Promise<void> {
  await tx.execute(sql`select pg_notify(${QUERIES_CHANNEL}, ${name})`);
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
