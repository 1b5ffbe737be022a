import { and, eq } from 'drizzle-orm';
import type { ConnectionSettings } from '../../drivers/types.ts';
import { SluiceError } from '../../errors.ts';
import type { AppDeps } from '../../deps.ts';
import type { StoreDb } from '../../store/open.ts';
import { secretKeyring } from '../../secrets/keyring.ts';
import { openPassword } from '../../secrets/passwords.ts';
import { type ConnectionRow, connections } from '../../store/schema/index.ts';
import { connectionCache } from './cache.ts';
import { driverSettings } from './settings.ts';
import { connectionEtag, rowFields } from './view.ts';
import { assertIfMatch as assertCurrent } from '../if-match.ts';

export const connectionNotFound = (name: string) =>
  new SluiceError('connection_not_found', `Connection "${name}" not found`);

export const connectionInactive = (name: string) =>
  new SluiceError('connection_inactive', `Connection "${name}" is inactive`);

/**
 * The row of a connection, or 404 `connection_not_found`. `workspace` (a
 * workspace-scoped call) hides connections of other workspaces. With
 * `forUpdate`, the row stays locked until the transaction ends.
 */
export async function findConnection(db: StoreDb, name: string, { workspace, forUpdate = false }: { workspace?: string; forUpdate?: boolean } = {}): Promise<ConnectionRow> {
  const where = workspace === undefined ? eq(connections.name, name) : and(eq(connections.name, name), eq(connections.workspace, workspace));
  const query = db.select().from(connections).where(where);
  const [row] = forUpdate ? await query.for('update') : await query;
  if (!row) throw connectionNotFound(name);
  return row;
}

/** A saved connection's driver settings, the password decrypted and expanded now (500 `secret_undecryptable` when no key opens it). */
export function settingsOf(deps: Pick<AppDeps, 'env'>, row: ConnectionRow): ConnectionSettings {
  const password = openPassword(secretKeyring(deps.env), row.password, `connection "${row.name}"`);
  return driverSettings(row.name, { ...rowFields(row), password }, deps.env);
}

/**
 * A connection about to be used (a query, a schema listing), from the
 * connection cache when it holds it (cache.ts): unknown gives
 * 404 `connection_not_found`, inactive 403 `connection_inactive`; a `${VAR}`
 * password whose variable is unset gives 502 `connection_failed` naming it.
 */
export async function connectionForRun(deps: AppDeps, name: string): Promise<{ name: string; row: ConnectionRow; settings: ConnectionSettings }> {
  const cache = connectionCache(deps.store);
  let entry = cache.get(name);
  if (!entry) {
    const mark = cache.mark();
    const row = await findConnection(deps.store.db, name);
    if (!row.active) {
      throw connectionInactive(name);
    }
    entry = { row, settings: settingsOf(deps, row) };
    cache.put(name, entry, mark);
  }
  return { name: entry.row.name, row: entry.row, settings: entry.settings };
}

/**
 * The workspace of the connection saved as `name`, or null when there is
 * none: what reachability needs to keep a query on connections of its own
 * workspace. Read through the connection cache when it holds the name.
 */
export async function workspaceOfConnection(deps: Pick<AppDeps, 'store'>, name: string): Promise<string | null> {
  const cached = connectionCache(deps.store).get(name);
  if (cached) return cached.row.workspace;
  const [row] = await deps.store.db.select({ workspace: connections.workspace }).from(connections).where(eq(connections.name, name));
  return row?.workspace ?? null;
}

/** `If-Match` against the connection's current ETag (services/if-match.ts). */
export const assertIfMatch = (ifMatch: string | undefined, row: Pick<ConnectionRow, 'id' | 'revision' | 'name'>): void =>
  assertCurrent(ifMatch, connectionEtag(row), `Connection "${row.name}"`);
