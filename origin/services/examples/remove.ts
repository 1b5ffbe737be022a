import { eq } from 'drizzle-orm';
import type { KeyGrants } from '../../../shared/access/grants.ts';
import type { Caller } from '../../access/caller.ts';
import { recordAudit } from '../../audit/record.ts';
import { DEFAULT_WORKSPACE } from '../../access/administration.ts';
import { setAuditVia } from '../../audit/via.ts';
import type { AppDeps } from '../../deps.ts';
import { storeInTransaction } from '../../store/open.ts';
import { apiKeys } from '../../store/schema/index.ts';
import { connectionCache } from '../connections/cache.ts';
import { deleteConnection } from '../connections/delete.ts';
import { byName } from '../collections/lookup.ts';
import { deleteKey } from '../keys/delete.ts';
import { forgetQueryDefinitions } from '../queries/definition-cache.ts';
import { deleteQuery } from '../queries/delete.ts';
import { deleteRole } from '../roles/delete.ts';
import { takeExamplesLock } from './ensure.ts';
import { inTurn } from './turns.ts';
import { type ExamplesStatus, examplesStateOf, examplesStatus, setExamplesState } from './status.ts';

/** The answer to DELETE /api/v1/examples. */
export interface ExamplesRemoval {
  /** What was removed, by kind (`connection` the dataset's connection's name, or null). */
  removed: Omit<ExamplesStatus, 'loaded' | 'partial'>;
  /** Keys of the operator's own whose grants still name an example connection, query or collection, by name. */
  keys_still_granted: string[];
}

const REASON = 'examples removed (DELETE /api/v1/examples)';

/**
 * Removes every object marked `example`, through their own delete verbs
 * (keys, roles, queries, then the connection, which joins the deleted
 * connections' list), each audited `via: examples`, and ends with one
 * `unload_examples` entry; the state becomes `unloaded`, so a restart does
 * not bring the dataset's connection back. Keys of the operator's own are
 * never touched: those whose grants name an example object are reported in
 * `keys_still_granted` (their grants then name nothing that exists). A
 * second call removes nothing and writes nothing.
 */
export function removeExamples(deps: AppDeps, actor: Caller): Promise<ExamplesRemoval> {
  return inTurn(() => remove(deps, actor));
}

async function remove(deps: AppDeps, actor: Caller): Promise<ExamplesRemoval> {
  const db = deps.store.db;
  const present = await examplesStatus(db);
  const stillGranted = await keysNaming(deps, present);
  const removed = { connection: present.connection, queries: present.queries, roles: present.roles, keys: present.keys, collections: present.collections };
  const nothing = present.connection === null && present.queries.length + present.roles.length + present.keys.length === 0;
  if (nothing && (await examplesStateOf(db)) === 'unloaded') return { removed, keys_still_granted: stillGranted };

  try {
    for (const key of present.keys) await step(deps, (d) => deleteKey(d, actor, key));
    for (const role of present.roles) await step(deps, (d) => deleteRole(d, actor, role));
    for (const query of present.queries) await step(deps, (d) => deleteQuery(d, actor, query));
    const connection = present.connection;
    if (connection !== null) {
      await deleteConnection(deps, actor, connection, { reason: REASON });
    }
  } finally {
    connectionCache(deps.store).reset();
    forgetQueryDefinitions(deps.store);
  }

  await db.transaction(async (tx) => {
    await takeExamplesLock(tx);
    await setExamplesState(tx, 'unloaded');
    await recordAudit(tx, { actor: actor.name, action: 'unload_examples', target: 'examples', workspace: DEFAULT_WORKSPACE, changes: { ...removed, keys_still_granted: stillGranted } });
  });
  return { removed, keys_still_granted: stillGranted };
}

async function step(deps: AppDeps, work: (txDeps: AppDeps) => Promise<unknown>): Promise<void> {
  await deps.store.db.transaction(async (tx) => {
    await setAuditVia(tx, 'examples');
    await work({ ...deps, store: storeInTransaction(deps.store, tx) });
  });
}

/** Keys not marked `example` whose grants name the example connection, one of the example queries or collections. */
async function keysNaming(deps: AppDeps, present: ExamplesStatus): Promise<string[]> {
  const keys = await deps.store.db.select({ name: apiKeys.name, grants: apiKeys.grants }).from(apiKeys).where(eq(apiKeys.example, false));
  const names = (grants: KeyGrants) => ({
    connections: grants.connections ?? [],
    queries: (grants.queries ?? []).map((entry) => (typeof entry === 'string' ? entry : entry.name)),
    collections: grants.collections ?? [],
  });
  return keys
    .filter(({ grants }) => {
      const g = names(grants);
      return (
        (present.connection !== null && g.connections.includes(present.connection)) ||
        g.queries.some((q) => present.queries.includes(q)) ||
        g.collections.some((c) => present.collections.includes(c))
      );
    })
    .map((key) => key.name)
    .sort(byName);
}
