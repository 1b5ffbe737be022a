import { sql } from 'drizzle-orm';
import type { Store, StoreDb } from './open.ts';

/**
 * Store rows kept in process memory by name, so a request does not read the
 * store every time; the connection cache (ADR 0006) and the query-definition
 * cache (ADR 0010) are two of these.
 *
 * Freshness:
 * - The verbs that change such rows drop the name here after their
 *   transaction commits, and inside it send a NOTIFY on the cache's channel
 *   with the name.
 * - On a store shared by several origins (PostgreSQL), every origin LISTENs
 *   on that channel and drops the name it hears. The cache serves nothing
 *   until the listener is connected, and empties itself whenever the
 *   listener (re)connects, since notifications sent while it was away are lost.
 * - The embedded store (PGlite) belongs to one process: the verbs' own
 *   invalidation is complete.
 * - Entries also expire after a minute, a bound on anything missed.
 * A read that raced an invalidation is not kept (generation check). Unknown
 * names and failures are never cached, so they are re-read on every use.
 */

const MAX_AGE_MS = 60_000;

export class NotifiedCache<V> {
  private readonly entries = new Map<string, { value: V; expires: number }>();
  private generation = 0;

  /**
   * `live` false: serve nothing until `reset(true)` (a shared store whose
   * listener is not up yet). Past `maxEntries` names the oldest read goes first.
   */
  constructor(
    private live: boolean,
    private readonly maxEntries = Infinity,
  ) {}

  /** The value cached for `name`, if live and fresh. */
  get(name: string): V | undefined {
    if (!this.live) return undefined;
    const entry = this.entries.get(name);
    if (entry && entry.expires > performance.now()) return entry.value;
    if (entry) this.entries.delete(name);
    return undefined;
  }

  /** Taken before reading the store; a `put` keeps the read only if nothing was invalidated since. */
  mark(): number {
    return this.generation;
  }

  /** Whether a read begun at `mark` may still be kept. */
  current(mark: number): boolean {
    return this.live && mark === this.generation;
  }

  put(name: string, value: V, mark: number): void {
    if (!this.current(mark)) return;
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(name, { value, expires: performance.now() + MAX_AGE_MS });
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

/**
 * A cache seen from a transaction on its store: serves and keeps nothing
 * (what the transaction reads may never commit), and passes invalidations
 * on to the store's own cache.
 */
class TransactionView<V> extends NotifiedCache<V> {
  constructor(private readonly base: NotifiedCache<V>) {
    super(false);
  }

  override invalidate(name: string): void {
    this.base.invalidate(name);
  }

  override reset(): void {
    this.base.reset();
  }
}

/** What a cache needs of a store: only a PostgreSQL one (`kind`) is shared and can `listen`; `base` marks a transaction on one. */
export type CacheStore = Pick<Store, 'db'> & Partial<Pick<Store, 'kind' | 'listen'>> & { base?: CacheStore };

/**
 * One cache per store for `channel`, made on first use (holding up to
 * `maxEntries` names); on a shared store it starts listening: a name heard
 * is dropped, a (re)connect empties the cache and makes it live, and a
 * listener that fails leaves it serving nothing. A transaction on a store
 * (`base`) gets a view of the store's cache that only invalidates.
 */
export function cachePerStore<V>(channel: string, maxEntries = Infinity): (store: CacheStore) => NotifiedCache<V> {
  const caches = new WeakMap<CacheStore, NotifiedCache<V>>();
  const cacheOf = (store: CacheStore): NotifiedCache<V> => {
    if (store.base) return new TransactionView(cacheOf(store.base));
    const found = caches.get(store);
    if (found) return found;
    const shared = store.kind === 'postgres';
    const cache = new NotifiedCache<V>(!shared, maxEntries);
    caches.set(store, cache);
    if (shared && store.listen) {
      store.listen(channel, (name) => cache.invalidate(name), () => cache.reset(true)).catch(() => cache.reset(false));
    }
    return cache;
  };
  return cacheOf;
}

/** Inside a change's transaction: tells every origin on the store to drop `name` from `channel`'s cache (delivered on commit). */
export async function announceChange(tx: Pick<StoreDb, 'execute'>, channel: string, name: string): Promise<void> {
  await tx.execute(sql`select pg_notify(${channel}, ${name})`);
}

/** `announceChange` for many names in one statement (one JSON parameter, whatever their number). */
export async function announceChanges(tx: Pick<StoreDb, 'execute'>, channel: string, names: string[]): Promise<void> {
  if (names.length === 0) return;
  await tx.execute(sql`select pg_notify(${channel}, name) from jsonb_array_elements_text(${JSON.stringify(names)}::jsonb) as name`);
}
