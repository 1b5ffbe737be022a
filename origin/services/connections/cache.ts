import { sql } from 'drizzle-orm';
import type { ConnectionSettings } from '../../drivers/types.ts';
import type { Store, StoreDb } from '../../store/open.ts';
import type { ConnectionRow } from '../../store/schema/index.ts';

/**
 * Saved connections as queries use them (row and driver settings), kept in
 * process memory so a query does not read the store on every request.
 *
 * Freshness:
 * - The connection verbs (create, update, remove) drop the name here after
 *   their transaction commits, and inside it send `NOTIFY sluice_connections`
 *   with the name.
 * - On a store shared by several origins (PostgreSQL), every origin LISTENs
 *   on that channel and drops the name it hears. The cache serves nothing
 *   until the listener is connected, and empties itself whenever the
 *   listener (re)connects, since notifications sent while it was away are lost.
 * - The embedded store (PGlite) belongs to one process: the verbs' own
 *   invalidation is complete.
 * - Entries also expire after a minute, a bound on anything missed.
 * A read that raced an invalidation is not kept (generation check). Unknown
 * names and failures are never cached.
 */

export const CONNECTIONS_CHANNEL = 'sluice_connections';
const MAX_AGE_MS = 60_000;

export interface CachedConnection {
  row: ConnectionRow;
  settings: ConnectionSettings;
}

export class ConnectionCache {
  private readonly entries = new Map<string, CachedConnection & { expires: number }>();
  private generation = 0;

  /** `live` false: serve nothing until `setLive(true)` (a shared store whose listener is not up yet). */
  constructor(private live: boolean) {}

  get(name: string): CachedConnection | undefined {
    if (!this.live) return undefined;
    const entry = this.entries.get(name);
    if (entry && entry.expires > performance.now()) return entry;
    if (entry) this.entries.delete(name);
    return undefined;
  }

  /** Taken before reading the store; `put` keeps the read only if nothing was invalidated since. */
  mark(): number {
    return this.generation;
  }

  put(name: string, entry: CachedConnection, mark: number): void {
    if (this.live && mark === this.generation) this.entries.set(name, { ...entry, expires: performance.now() + MAX_AGE_MS });
  }

  invalidate(name: string): void {
    this.generation++;
    this.entries.delete(name);
  }

  /** Forgets everything; `live` says whether to serve from memory from now on. */
  reset(live: boolean): void {
    this.generation++;
    this.entries.clear();
    this.live = live;
  }
}

const caches = new WeakMap<Store, ConnectionCache>();

/** The cache of a store (one per store, made on first use; on a shared store it starts listening). */
export function connectionCache(store: Store): ConnectionCache {
  let cache = caches.get(store);
  if (!cache) {
    const shared = store.kind === 'postgres';
    cache = new ConnectionCache(!shared);
    caches.set(store, cache);
    if (shared && store.listen) {
      const c = cache;
      store.listen(CONNECTIONS_CHANNEL, (name) => c.invalidate(name), () => c.reset(true)).catch(() => c.reset(false));
    }
  }
  return cache;
}

/** Inside a change's transaction: tells every origin on the store to drop `name` (delivered on commit). */
export async function announceConnectionChange(tx: Pick<StoreDb, 'execute'>, name: string): Promise<void> {
  await tx.execute(sql`select pg_notify(${CONNECTIONS_CHANNEL}, ${name})`);
}
