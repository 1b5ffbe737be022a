import type { ConnectionSettings } from '../../drivers/types.ts';
import type { Store, StoreDb } from '../../store/open.ts';
import { type NotifiedCache, announceChange, cachePerStore } from '../../store/notified-cache.ts';
import type { ConnectionRow } from '../../store/schema/index.ts';

/**
 * Saved connections as queries use them (row and driver settings), kept in
 * process memory so a query does not read the store on every request (ADR
 * 0006). The connection verbs (create, update, remove) announce the name
 * inside their transaction and drop it here after it commits; freshness as
 * `NotifiedCache` describes.
 */

export const CONNECTIONS_CHANNEL = 'sluice_connections';

export interface CachedConnection {
  row: ConnectionRow;
  settings: ConnectionSettings;
}

export type ConnectionCache = NotifiedCache<CachedConnection>;

/** The cache of a store (one per store, made on first use; on a shared store it starts listening). */
export const connectionCache: (store: Store) => ConnectionCache = cachePerStore<CachedConnection>(CONNECTIONS_CHANNEL);

/** Inside a change's transaction: tells every origin on the store to drop `name` (delivered on commit). */
export function announceConnectionChange(tx: Pick<StoreDb, 'execute'>, name: string): Promise<void> {
  return announceChange(tx, CONNECTIONS_CHANNEL, name);
}
