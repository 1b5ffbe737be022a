import { and, eq, inArray } from 'drizzle-orm';
import type { KeyGrants, QueryGrantEntry } from '../../../shared/access/grants.ts';
import { badRequest } from '../../errors.ts';
import type { StoreDb } from '../../store/open.ts';
import { connections, queries } from '../../store/schema/index.ts';

/**
 * `connections` and `queries` grants name objects of the key's or role's own
 * workspace (docs/reference/workspaces.md); `*` means every one of that
 * workspace and needs no check. Reachability holds the same line at run time,
 * for grants stored before this check existed or whose object left.
 */

type NamedGrants = Pick<KeyGrants, 'connections' | 'queries'>;

const WILDCARD = '*';

const queryName = (entry: string | QueryGrantEntry): string => (typeof entry === 'string' ? entry : entry.name);

/** The names among `names` saved as connections and as queries of `workspace`. */
async function savedIn(tx: StoreDb, workspace: string, names: { connections: string[]; queries: string[] }) {
  const [connectionRows, queryRows] = await Promise.all([
    names.connections.length === 0
      ? []
      : tx.select({ name: connections.name }).from(connections).where(and(eq(connections.workspace, workspace), inArray(connections.name, names.connections))),
    names.queries.length === 0
      ? []
      : tx.select({ name: queries.name }).from(queries).where(and(eq(queries.workspace, workspace), inArray(queries.name, names.queries))),
  ]);
  return { connections: new Set(connectionRows.map((row) => row.name)), queries: new Set(queryRows.map((row) => row.name)) };
}

const quoted = (names: string[]) => names.map((name) => JSON.stringify(name)).join(', ');

/**
 * 400 `invalid_request` when a `connections` or `queries` grant names
 * something that is not a connection (query) of `workspace`: unknown and
 * another workspace's alike, so the answer tells no one what other
 * workspaces hold. Names in `held` (what the key or role has now) stay
 * allowed, like collections, so a grant whose object was deleted can be
 * edited around.
 */
export async function assertGrantNamesIn(tx: StoreDb, workspace: string, grants: NamedGrants, held: NamedGrants = { connections: [], queries: [] }): Promise<void> {
  const heldQueries = held.queries.map(queryName);
  const fresh = {
    connections: grants.connections.filter((name) => name !== WILDCARD && !held.connections.includes(name)),
    queries: grants.queries.map(queryName).filter((name) => name !== WILDCARD && !heldQueries.includes(name)),
  };
  if (fresh.connections.length === 0 && fresh.queries.length === 0) return;
  const saved = await savedIn(tx, workspace, fresh);
  const missing = {
    connections: fresh.connections.filter((name) => !saved.connections.has(name)),
    queries: fresh.queries.filter((name) => !saved.queries.has(name)),
  };
  if (missing.connections.length === 0 && missing.queries.length === 0) return;
  const parts = [
    ...(missing.connections.length > 0 ? [`connection named ${quoted(missing.connections)}`] : []),
    ...(missing.queries.length > 0 ? [`query named ${quoted(missing.queries)}`] : []),
  ];
  const errors: Record<string, string> = {};
  for (const field of ['connections', 'queries'] as const) {
    if (missing[field].length > 0) errors[field] = `not in workspace ${JSON.stringify(workspace)}: ${missing[field].join(', ')}`;
  }
  throw badRequest(`No ${parts.join(' and no ')} in workspace ${JSON.stringify(workspace)}`, { errors });
}

/**
 * A role's grants as a key of `workspace` copies them: `connections` and
 * `queries` keep `*` and the names of that workspace only, dropping any
 * another workspace holds or nobody does (a role edited before this rule, or
 * whose object was deleted, or a role of another workspace copied by a
 * server-wide administrator on a plain `/api/v1` call).
 */
export async function grantsValidIn<G extends NamedGrants>(tx: StoreDb, workspace: string, grants: G): Promise<G> {
  const names = {
    connections: grants.connections.filter((name) => name !== WILDCARD),
    queries: grants.queries.map(queryName).filter((name) => name !== WILDCARD),
  };
  const saved = await savedIn(tx, workspace, names);
  return {
    ...grants,
    connections: grants.connections.filter((name) => name === WILDCARD || saved.connections.has(name)),
    queries: grants.queries.filter((entry) => queryName(entry) === WILDCARD || saved.queries.has(queryName(entry))),
  };
}
