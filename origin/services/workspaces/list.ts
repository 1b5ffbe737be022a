import { asc, count, eq } from 'drizzle-orm';
import { maySee } from '../../access/administration.ts';
import type { AppDeps } from '../../deps.ts';
import type { Caller } from '../../access/caller.ts';
import { workspaceMembers, workspaces } from '../../store/schema/index.ts';
import { findWorkspace, memberCount } from './lookup.ts';
import { type WorkspaceRead, type WorkspaceView, workspaceRead, workspaceView } from './view.ts';

/** The workspaces the caller may see, by name: all for server-wide owners, admins and auditors; their own otherwise. */
export async function listWorkspaces(deps: AppDeps, caller: Caller): Promise<WorkspaceView[]> {
  const rows = await deps.store.db
    .select({ workspace: workspaces, members: count(workspaceMembers.admin) })
    .from(workspaces)
    .leftJoin(workspaceMembers, eq(workspaceMembers.workspace, workspaces.name))
    .groupBy(workspaces.id)
    .orderBy(asc(workspaces.name));
  return rows.filter((r) => maySee(caller, r.workspace.name)).map((r) => workspaceView(r.workspace, Number(r.members)));
}

export async function getWorkspace(deps: AppDeps, caller: Caller, name: string): Promise<WorkspaceRead> {
  const row = await findWorkspace(deps.store.db, caller, name);
  return workspaceRead(row, await memberCount(deps.store.db, name));
}
