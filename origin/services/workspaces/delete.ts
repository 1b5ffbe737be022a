import { count, eq } from 'drizzle-orm';
import { DEFAULT_WORKSPACE } from '../../access/administration.ts';
import { invalidateAccess } from '../../access/directory.ts';
import { recordAudit } from '../../audit/record.ts';
import { SluiceError } from '../../errors.ts';
import type { AppDeps } from '../../deps.ts';
import type { Caller } from '../../access/caller.ts';
import type { StoreDb } from '../../store/open.ts';
import { apiKeys, connections, destinations, queries, roles, workspaceMembers, workspaces } from '../../store/schema/index.ts';
import { assertIfMatch, findWorkspace, memberCount, workspaceProtected } from './lookup.ts';
import { type WorkspaceView, workspaceView } from './view.ts';

/** What a workspace holds, by kind. */
export async function workspaceContents(tx: StoreDb, name: string): Promise<Record<'connections' | 'destinations' | 'queries' | 'api_keys' | 'roles', number>> {
  const tally = async (table: typeof connections | typeof destinations | typeof queries | typeof apiKeys | typeof roles) => {
    const [row] = await tx.select({ n: count() }).from(table).where(eq(table.workspace, name));
    return Number(row?.n ?? 0);
  };
  return {
    connections: await tally(connections),
    destinations: await tally(destinations),
    queries: await tally(queries),
    api_keys: await tally(apiKeys),
    roles: await tally(roles),
  };
}

/**
 * Deletes an empty workspace and its memberships: the `delete_workspace`
 * change. `default` is never deleted (`workspace_protected`); a workspace
 * holding anything answers `workspace_not_empty` with its `contents`.
 */
export async function deleteWorkspace(deps: AppDeps, actor: Caller, name: string, ifMatch?: string): Promise<WorkspaceView> {
  return deps.store.db.transaction(async (tx) => {
    const current = await findWorkspace(tx, actor, name, { forUpdate: true });
    if (current.name === DEFAULT_WORKSPACE) throw workspaceProtected();
    assertIfMatch(ifMatch, current);
    const contents = await workspaceContents(tx, name);
    if (Object.values(contents).some((n) => n > 0)) {
      throw new SluiceError('workspace_not_empty', `Workspace "${name}" still holds objects: move or delete them first`, { contents });
    }
    const view = workspaceView(current, await memberCount(tx, name));
    await tx.delete(workspaceMembers).where(eq(workspaceMembers.workspace, name));
    await tx.delete(workspaces).where(eq(workspaces.id, current.id));
    await recordAudit(tx, { actor: actor.name, action: 'delete_workspace', target: name, workspace: name, changes: { name, description: current.description } });
    await invalidateAccess(tx);
    return view;
  });
}
