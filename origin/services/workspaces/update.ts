import { eq } from 'drizzle-orm';
import { diffFields } from '../../audit/diff.ts';
import { recordAudit } from '../../audit/record.ts';
import type { AppDeps } from '../../deps.ts';
import type { Caller } from '../../access/caller.ts';
import { workspaces } from '../../store/schema/index.ts';
import type { UpdateFields } from './fields.ts';
import { assertIfMatch, findWorkspace, memberCount } from './lookup.ts';
import { type WorkspaceRead, workspaceRead } from './view.ts';

/** Changes a workspace's description: the `update_workspace` change. A workspace is never renamed. */
export async function updateWorkspace(deps: AppDeps, actor: Caller, name: string, input: UpdateFields, ifMatch?: string): Promise<WorkspaceRead> {
  return deps.store.db.transaction(async (tx) => {
    const current = await findWorkspace(tx, actor, name, { forUpdate: true });
    assertIfMatch(ifMatch, current);
    const description = input.description === undefined ? current.description : input.description;
    const changes = diffFields({ description: current.description }, { description });
    if (Object.keys(changes).length === 0) return workspaceRead(current, await memberCount(tx, name));
    const [row] = await tx
      .update(workspaces)
      .set({ description, revision: current.revision + 1, updatedAt: new Date() })
      .where(eq(workspaces.id, current.id))
      .returning();
    await recordAudit(tx, { actor: actor.name, action: 'update_workspace', target: name, workspace: name, changes });
    return workspaceRead(row!, await memberCount(tx, name));
  });
}
