import type { AppDeps } from '../deps.ts';
import type { StoreDb } from '../store/open.ts';

/**
 * Runs several verbs as one change, all or nothing: `work` gets the deps
 * with the store narrowed to one transaction, so each verb's own
 * transaction becomes a savepoint inside it and its audit entry commits or
 * rolls back with everything else. The verbs still announce their changes
 * (delivered on commit); the in-memory drops they make after their own
 * transaction land on a cache of the narrowed store that nobody reads, so
 * the caller drops what it changed from the real caches once this resolves
 * (for queries: `afterQueryChange`), after the commit, as each verb would.
 */
export function inOneTransaction<T>(deps: AppDeps, work: (scoped: AppDeps, tx: StoreDb) => Promise<T>): Promise<T> {
  return deps.store.db.transaction((tx) => {
    // No `listen`: the narrowed store never starts a listener of its own.
    const store = { db: tx, kind: deps.store.kind, close: async () => {} };
    return work({ ...deps, store }, tx);
  });
}
