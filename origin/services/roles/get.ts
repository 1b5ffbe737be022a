import { eq } from 'drizzle-orm';
import type { AppDeps } from '../../deps.ts';
import { roles } from '../../store/schema/index.ts';
import { byName } from '../collections/lookup.ts';
import { findRole } from './lookup.ts';
import { type RoleRead, type RoleView, keysCreatedFrom, roleRead, roleView } from './view.ts';

/** One role with its ETag; 404 `role_not_found` (also for a role of another workspace on a workspace-scoped call). */
export async function getRole(deps: AppDeps, name: string, { workspace }: { workspace?: string } = {}): Promise<RoleRead> {
  return roleRead(deps.store.db, await findRole(deps.store.db, name, { workspace }));
}

/** Every role by name with `keys_created`, or only those of `workspace` on a workspace-scoped call. */
export async function listRoles(deps: AppDeps, { workspace }: { workspace?: string } = {}): Promise<RoleView[]> {
  const query = deps.store.db.select().from(roles);
  const rows = await (workspace === undefined ? query : query.where(eq(roles.workspace, workspace)));
  rows.sort((a, b) => byName(a.name, b.name));
  const created = await keysCreatedFrom(deps.store.db, rows.map((row) => row.name));
  return rows.map((row) => roleView(row, created.get(row.name) ?? 0));
}
