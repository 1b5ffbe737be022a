import type { KeyGrants } from './grants.ts';

/**
 * Whether a scoped key's grants reach a saved query (spec, Authentication 5):
 * the pure part of origin/access/reachability.ts, shared so the edge decides
 * exactly as the origin before it serves a cached response.
 *
 * A key lives in a workspace and its grants name objects of that workspace
 * only (docs/reference/workspaces.md): it reaches queries of its workspace,
 * run on connections of its workspace; `*` means every one of them.
 */

/** What reach reads of a key: its workspace and its grants. */
export interface KeyScope {
  workspace: string;
  grants: Pick<KeyGrants, 'connections' | 'queries' | 'collections'>;
}

/**
 * A query as grants see it: its name, its collection now, its workspace, and
 * the connection it runs on (null: none) with that connection's workspace
 * (null: no connection, or none saved under that name).
 */
export interface GrantTarget {
  name: string;
  collection: string | null;
  workspace: string;
  connectionName: string | null;
  connectionWorkspace: string | null;
}

/** A `connections` grant of this connection name (`*`: every connection of the key's workspace, which the caller checks). */
export const connectionGranted = (grants: Pick<KeyGrants, 'connections'>, connection: string | null): boolean =>
  grants.connections.includes('*') || (connection !== null && grants.connections.includes(connection));

/** Reached by name: a `queries` grant (`*`, the name, an object entry) or a `collections` grant of its collection now. */
export function grantedByName(grants: Pick<KeyGrants, 'queries' | 'collections'>, target: Pick<GrantTarget, 'name' | 'collection'>): boolean {
  const named = grants.queries.some((entry) => entry === '*' || (typeof entry === 'string' ? entry : entry.name) === target.name);
  return named || (target.collection !== null && grants.collections.includes(target.collection));
}

/** May the key run ad-hoc SQL on (or browse) this connection: one of its workspace, granted by name or `*`. */
export const keyUsesConnection = (key: KeyScope, connection: { name: string; workspace: string }): boolean =>
  connection.workspace === key.workspace && connectionGranted(key.grants, connection.name);

/** May a key run this query on `target.connectionName`? Only a query of its workspace, on a connection of its workspace. */
export function keyReaches(key: KeyScope, target: GrantTarget): boolean {
  if (target.workspace !== key.workspace) return false;
  if (target.connectionWorkspace !== null && target.connectionWorkspace !== key.workspace) return false;
  return grantedByName(key.grants, target) || connectionGranted(key.grants, target.connectionName);
}
