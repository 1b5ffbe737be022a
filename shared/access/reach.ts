import type { KeyGrants } from './grants.ts';

/**
 * Whether a scoped key's grants reach a saved query (spec, Authentication 5):
 * the pure part of origin/access/reachability.ts, shared so the edge decides
 * exactly as the origin before it serves a cached response.
 */

/** A query as grants see it: its name, its collection now, and the connection it runs on (null: none). */
export interface GrantTarget {
  name: string;
  collection: string | null;
  connectionName: string | null;
}

/** A `connections` grant of this connection (`*`: every connection). */
export const connectionGranted = (grants: Pick<KeyGrants, 'connections'>, connection: string | null): boolean =>
  grants.connections.includes('*') || (connection !== null && grants.connections.includes(connection));

/** Reached by name: a `queries` grant (`*`, the name, an object entry) or a `collections` grant of its collection now. */
export function grantedByName(grants: Pick<KeyGrants, 'queries' | 'collections'>, target: GrantTarget): boolean {
  const named = grants.queries.some((entry) => entry === '*' || (typeof entry === 'string' ? entry : entry.name) === target.name);
  return named || (target.collection !== null && grants.collections.includes(target.collection));
}

/** May a key with these grants run this query on `target.connectionName`? */
export const keyReaches = (grants: Pick<KeyGrants, 'connections' | 'queries' | 'collections'>, target: GrantTarget): boolean =>
  grantedByName(grants, target) || connectionGranted(grants, target.connectionName);
