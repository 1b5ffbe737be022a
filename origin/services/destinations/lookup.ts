import { and, eq } from 'drizzle-orm';
import type { AppDeps } from '../../deps.ts';
import type { Env } from '../../env.ts';
import { SluiceError } from '../../errors.ts';
import type { DestinationSettings } from '../../object-storage/types.ts';
import { secretKeyring } from '../../secrets/keyring.ts';
import { expandPassword, openPassword } from '../../secrets/passwords.ts';
import type { StoreDb } from '../../store/open.ts';
import { type DestinationRow, destinations } from '../../store/schema/index.ts';
import type { DestinationFields } from './fields.ts';
import { destinationEtag } from './view.ts';

export const destinationNotFound = (name: string) => new SluiceError('destination_not_found', `Destination "${name}" not found`);

/**
 * The row of a destination, or 404 `destination_not_found`. `workspace` (a
 * workspace-scoped call) hides destinations of other workspaces. With
 * `forUpdate`, the row stays locked until the transaction ends.
 */
export async function findDestination(db: StoreDb, name: string, { workspace, forUpdate = false }: { workspace?: string; forUpdate?: boolean } = {}): Promise<DestinationRow> {
  const where = workspace === undefined ? eq(destinations.name, name) : and(eq(destinations.name, name), eq(destinations.workspace, workspace));
  const query = db.select().from(destinations).where(where);
  const [row] = forUpdate ? await query.for('update') : await query;
  if (!row) throw destinationNotFound(name);
  return row;
}

/**
 * Settings with the secret as the store needs it: a `${VAR}` expanded now
 * (502 `connection_failed` naming an unset one). `name` null: unsaved fields.
 */
export function storeSettings(env: Pick<Env, 'SLUICE_SECRET_REFS'>, name: string | null, fields: DestinationFields): DestinationSettings {
  const password = expandPassword(name === null ? null : `destination "${name}"`, fields.password, env.SLUICE_SECRET_REFS);
  return { name: name ?? 'unsaved', url: fields.url, region: fields.region, endpoint: fields.endpoint, user: fields.user, password };
}

/** A saved destination's settings, its secret decrypted (500 `secret_undecryptable` when no key opens it) and expanded. */
export function settingsOf(deps: Pick<AppDeps, 'env'>, row: DestinationRow): DestinationSettings {
  const password = openPassword(secretKeyring(deps.env), row.password, `destination "${row.name}"`);
  return storeSettings(deps.env, row.name, { url: row.url, region: row.region, endpoint: row.endpoint, user: row.user, password });
}

/**
 * What an export run writes through (origin/object-storage's
 * `openObjectStore`): the destination saved as `name`, its secret opened;
 * 404 `destination_not_found` when there is none.
 */
export async function destinationForRun(deps: Pick<AppDeps, 'env' | 'store'>, name: string): Promise<DestinationSettings> {
  return settingsOf(deps, await findDestination(deps.store.db, name));
}

/**
 * `If-Match` on a change: absent passes; otherwise one of its ETags (or `*`)
 * must be the current one, else 412 `precondition_failed`. Checked against the
 * row locked in the change's own transaction.
 */
export function assertIfMatch(ifMatch: string | undefined, row: Pick<DestinationRow, 'id' | 'revision' | 'name'>): void {
  if (ifMatch === undefined || ifMatch.trim() === '') return;
  const current = destinationEtag(row);
  const presented = ifMatch.split(',').map((tag) => tag.trim().replace(/^W\//, ''));
  if (presented.includes('*') || presented.includes(current)) return;
  throw new SluiceError('precondition_failed', `Destination "${row.name}" has changed since it was read (current ETag ${current})`, { etag: current });
}
