import { and, eq } from 'drizzle-orm';
import { SluiceError } from '../../errors.ts';
import type { StoreDb } from '../../store/open.ts';
import { type RoleRow, roles } from '../../store/schema/index.ts';

export const roleNotFound = (name: string) => new SluiceError('role_not_found', `Role "${name}" not found`);

export const roleExists = (name: string) => new SluiceError('role_exists', `A role named "${name}" already exists`);

/** Quoted, from id and revision: a role recreated under the same name never matches an old ETag. */
export const roleEtag = (row: Pick<RoleRow, 'id' | 'revision'>): string => `"r${row.id}.${row.revision}"`;

/**
 * The row of a role, or 404 `role_not_found`. `workspace` (a workspace-scoped
 * call) hides roles of other workspaces. With `forUpdate` the row stays
 * locked until the transaction ends.
 */
export async function findRole(db: StoreDb, name: string, { workspace, forUpdate = false }: { workspace?: string; forUpdate?: boolean } = {}): Promise<RoleRow> {
  const where = workspace === undefined ? eq(roles.name, name) : and(eq(roles.name, name), eq(roles.workspace, workspace));
  const query = db.select().from(roles).where(where);
  const [row] = forUpdate ? await query.for('update') : await query;
  if (!row) throw roleNotFound(name);
  return row;
}
