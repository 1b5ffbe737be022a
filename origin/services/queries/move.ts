import { desc, eq, sql } from 'drizzle-orm';
import { completeGrants } from '../../../shared/access/grants-input.ts';
import { canReach } from '../../access/reachability.ts';
import { recordAudit } from '../../audit/record.ts';
import type { AppDeps } from '../../deps.ts';
import type { Caller } from '../../access/caller.ts';
import type { StoreDb } from '../../store/open.ts';
import { apiKeys, connections, queries, queryVersions } from '../../store/schema/index.ts';
import { assertCollectionName } from './fields.ts';
import { assertIfMatch, findQuery, readQuery } from './lookup.ts';
import { reviseQuery } from './revise.ts';
import type { QueryRead } from './view.ts';
import { afterQueryChange } from './definition-cache.ts';

/** Keys whose reach over a query changes when it moves between collections. */
export interface KeysAffected {
  keys_gaining_access: string[];
  keys_losing_access: string[];
}

/**
 * Which keys gain or lose the query when it moves `from` one collection `to`
 * another, as reachability decides it (origin/access/reachability.ts): a
 * key reaching it in `to` and not in `from` gains it; the reverse loses it.
 * A key reaching it by name or through its connection (the published
 * version's default, else the newest version's) is in neither list.
 */
export async function keysAffectedByMove(tx: StoreDb, query: string, from: string | null, to: string | null): Promise<KeysAffected> {
  const affected: KeysAffected = { keys_gaining_access: [], keys_losing_access: [] };
  if (from === to) return affected;
  const [row] = await tx
    .select({ workspace: queries.workspace, connectionName: queryVersions.connectionName, connectionWorkspace: connections.workspace })
    .from(queries)
    .leftJoin(queryVersions, eq(queryVersions.queryId, queries.id))
    .leftJoin(connections, eq(connections.name, queryVersions.connectionName))
    .where(eq(queries.name, query))
    .orderBy(sql`${queryVersions.version} = ${queries.publishedVersion} desc nulls last`, desc(queryVersions.version))
    .limit(1);
  if (!row) return affected;
  const target = { name: query, workspace: row.workspace, connectionName: row.connectionName, connectionWorkspace: row.connectionWorkspace };
  // Only keys of the query's workspace can reach it.
  const keys = await tx
    .select({ id: apiKeys.id, name: apiKeys.name, workspace: apiKeys.workspace, grants: apiKeys.grants })
    .from(apiKeys)
    .where(eq(apiKeys.workspace, row.workspace));
  for (const key of keys) {
    const caller = { admin: false, via: 'key' as const, key: { ...key, grants: completeGrants(key.grants) } };
    const before = canReach(caller, { ...target, collection: from });
    const after = canReach(caller, { ...target, collection: to });
    if (after && !before) affected.keys_gaining_access.push(key.name);
    if (before && !after) affected.keys_losing_access.push(key.name);
  }
  // Code-point order, whatever the store's collation.
  affected.keys_gaining_access.sort();
  affected.keys_losing_access.sort();
  return affected;
}

/**
 * Moves a query to a collection, or out of any with null: the `move_query`
 * change, `{collection: {from, to}, keys_gaining_access, keys_losing_access}`.
 * Not a new version. A move to where it already is writes nothing.
 */
export async function moveQuery(
  deps: AppDeps,
  actor: Caller,
  name: string,
  collection: string | null,
  { workspace, ifMatch }: { workspace?: string; ifMatch?: string } = {},
): Promise<QueryRead> {
  assertCollectionName(collection);
  return afterQueryChange(deps.store, name, deps.store.db.transaction(async (tx) => {
    const current = await findQuery(tx, name, { workspace, forUpdate: true });
    assertIfMatch(ifMatch, current);
    if (current.collection === collection) return readQuery(tx, current);
    const keys = await keysAffectedByMove(tx, name, current.collection, collection);
    const row = await reviseQuery(tx, current, { collection });
    await recordAudit(tx, {
      actor: actor.name,
      action: 'move_query',
      target: name,
      workspace: current.workspace,
      changes: { collection: { from: current.collection, to: collection }, ...keys },
    });
    return readQuery(tx, row);
  }));
}
