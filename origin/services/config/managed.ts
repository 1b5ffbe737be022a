import { type AnyColumn, and, eq, inArray, sql } from 'drizzle-orm';
import type { AppDeps } from '../../deps.ts';
import { SluiceError } from '../../errors.ts';
import type { StoreDb } from '../../store/open.ts';
import { apiKeys, managedObjects, queries, roles } from '../../store/schema/index.ts';
import { byName } from '../collections/lookup.ts';
import { APPLIED_KINDS, type AppliedKind, KIND_NOUN, byKind } from './kinds.ts';
import type { KindChanges } from './plan.ts';
import { nextTurn } from './transaction.ts';

/**
 * Managed objects: what a configuration file applied or named. Prune
 * deletes only these; with SLUICE_CONFIG_LOCKED the Management API refuses
 * to change them.
 */

/** The managed names of each kind in `workspace` (every workspace when undefined). */
export async function managedNames(db: StoreDb, workspace?: string): Promise<Record<AppliedKind, string[]>> {
  const query = db.select({ kind: managedObjects.kind, name: managedObjects.name }).from(managedObjects);
  const rows = await (workspace === undefined ? query : query.where(eq(managedObjects.workspace, workspace)));
  const names = byKind((): string[] => []);
  for (const row of rows) if ((APPLIED_KINDS as readonly string[]).includes(row.kind)) names[row.kind as AppliedKind].push(row.name);
  for (const kind of APPLIED_KINDS) names[kind].sort(byName);
  return names;
}

/**
 * Rows per statement: a statement takes at most 65,535 parameters (a row
 * inserted here is five, a name deleted one), and a smaller one lets other
 * requests in between (nextTurn).
 */
const MANAGED_ROWS_PER_INSERT = 1_000;

/**
 * After an apply's changes: what it made, changed or named is managed, by
 * this file; what it deleted is not. `named` are the objects the file names
 * that were already managed and unchanged: left as they are.
 */
export async function recordManaged(tx: StoreDb, changes: Record<AppliedKind, KindChanges>, workspace: string, sha256: string): Promise<void> {
  const now = new Date();
  for (const kind of APPLIED_KINDS) {
    const { create, update, delete: deleted, manage } = changes[kind];
    const touched = [...create, ...update.map((u) => u.name), ...manage];
    for (let start = 0; start < touched.length; start += MANAGED_ROWS_PER_INSERT) {
      await tx
        .insert(managedObjects)
        .values(touched.slice(start, start + MANAGED_ROWS_PER_INSERT).map((name) => ({ kind, name, workspace, fileSha256: sha256, managedAt: now })))
        .onConflictDoUpdate({ target: [managedObjects.kind, managedObjects.name], set: { workspace, fileSha256: sha256, managedAt: now } });
      await nextTurn();
    }
    if (deleted.length > 0) await forgetManaged(tx, kind, deleted);
  }
}

/**
 * `names` of `kind` are managed no more: inside the transaction of their
 * delete (every delete verb calls this), so a namesake made later is not
 * taken for what the file applied (prune would delete it, the lock refuse it).
 */
export async function forgetManaged(tx: StoreDb, kind: AppliedKind, names: string[]): Promise<void> {
  for (let start = 0; start < names.length; start += MANAGED_ROWS_PER_INSERT) {
    await tx.delete(managedObjects).where(and(eq(managedObjects.kind, kind), inArray(managedObjects.name, names.slice(start, start + MANAGED_ROWS_PER_INSERT))));
  }
}

export const configManaged = (kind: AppliedKind, name: string) =>
  new SluiceError(
    'config_managed',
    `The ${KIND_NOUN[kind]} "${name}" is managed by a configuration file and the server is locked to it (SLUICE_CONFIG_LOCKED=1): change the file and apply it`,
    { kind, name },
  );

/** 409 `config_managed` when the server is locked to its configuration and `name` is a managed object of `kind`. */
export async function assertNotManaged(deps: Pick<AppDeps, 'env' | 'store'>, kind: AppliedKind, name: string): Promise<void> {
  if (!deps.env.SLUICE_CONFIG_LOCKED) return;
  const [row] = await deps.store.db
    .select({ name: managedObjects.name })
    .from(managedObjects)
    .where(and(eq(managedObjects.kind, kind), eq(managedObjects.name, name)));
  if (row) throw configManaged(kind, name);
}

/**
 * 409 `config_managed` when the server is locked to its configuration and
 * renaming collection `name` would change a managed object: a query filed
 * in it, a key or role granted it.
 */
export async function assertCollectionNotManaged(deps: Pick<AppDeps, 'env' | 'store'>, name: string): Promise<void> {
  if (!deps.env.SLUICE_CONFIG_LOCKED) return;
  const db = deps.store.db;
  const managedAs = (kind: AppliedKind, column: AnyColumn) => and(eq(managedObjects.kind, kind), eq(managedObjects.name, column));
  const granted = (column: AnyColumn) => sql`${column}->'collections' @> ${JSON.stringify([name])}::jsonb`;
  const [query] = await db.select({ name: queries.name }).from(queries).innerJoin(managedObjects, managedAs('queries', queries.name)).where(eq(queries.collection, name)).limit(1);
  if (query) throw configManaged('queries', query.name);
  const [key] = await db.select({ name: apiKeys.name }).from(apiKeys).innerJoin(managedObjects, managedAs('api_keys', apiKeys.name)).where(granted(apiKeys.grants)).limit(1);
  if (key) throw configManaged('api_keys', key.name);
  const [role] = await db.select({ name: roles.name }).from(roles).innerJoin(managedObjects, managedAs('roles', roles.name)).where(granted(roles.grants)).limit(1);
  if (role) throw configManaged('roles', role.name);
}
