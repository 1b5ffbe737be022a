import { and, asc, count, eq } from 'drizzle-orm';
import type { AppDeps } from '../../deps.ts';
import { adminTokens, administrators, workspaceMembers } from '../../store/schema/index.ts';
import { adminNotFound, findAdministrator, tokenCount } from './lookup.ts';
import { type AdministratorRead, type AdministratorView, administratorRead, administratorView } from './view.ts';

/**
 * A workspace-scoped call (`workspace`) sees only the members of its
 * workspace: administrators are server-wide entries, and one who is no
 * member is none of the workspace's business.
 */
type Scope = { workspace?: string };

/** Every administrator by name, with their token counts. */
export async function listAdministrators(deps: AppDeps, { workspace }: Scope = {}): Promise<AdministratorView[]> {
  const select = deps.store.db.select({ administrator: administrators, tokens: count(adminTokens.id) }).from(administrators);
  const scoped =
    workspace === undefined
      ? select
      : select.innerJoin(workspaceMembers, and(eq(workspaceMembers.admin, administrators.name), eq(workspaceMembers.workspace, workspace)));
  const rows = await scoped
    .leftJoin(adminTokens, eq(adminTokens.administratorId, administrators.id))
    .groupBy(administrators.id)
    .orderBy(asc(administrators.name));
  return rows.map((r) => administratorView(r.administrator, Number(r.tokens)));
}

/** One administrator with its ETag, or 404 `admin_not_found` (also for one who is no member of `workspace`). */
export async function getAdministrator(deps: AppDeps, name: string, { workspace }: Scope = {}): Promise<AdministratorRead> {
  if (workspace !== undefined) {
    const [member] = await deps.store.db
      .select({ admin: workspaceMembers.admin })
      .from(workspaceMembers)
      .where(and(eq(workspaceMembers.admin, name), eq(workspaceMembers.workspace, workspace)));
    if (!member) throw adminNotFound(name);
  }
  const row = await findAdministrator(deps.store.db, name);
  return administratorRead(row, await tokenCount(deps.store.db, row.id));
}
