import { eq } from 'drizzle-orm';
import { invalidateAccess } from '../../access/directory.ts';
import { recordAudit } from '../../audit/record.ts';
import { SluiceError } from '../../errors.ts';
import type { AppDeps } from '../../deps.ts';
import type { Caller } from '../../access/caller.ts';
import { workspaces } from '../../store/schema/index.ts';
import { isUniqueViolation } from '../connections/create.ts';
import { type CreateFields, assertValidName } from './fields.ts';
import { type WorkspaceRead, workspaceRead } from './view.ts';

export const workspaceExists = (name: string) => new SluiceError('workspace_exists', `A workspace named "${name}" already exists`);

/** Creates a workspace: the `create_workspace` change. It starts with no members and no objects. */
export async function createWorkspace(deps: AppDeps, actor: Caller, input: CreateFields): Promise<WorkspaceRead> {
  assertValidName(input.name);
  const { name } = input;
  try {
    return await deps.store.db.transaction(async (tx) => {
      const [taken] = await tx.select({ id: workspaces.id }).from(workspaces).where(eq(workspaces.name, name));
      if (taken) throw workspaceExists(name);
      const [row] = await tx
        .insert(workspaces)
        .values({ name, description: input.description ?? null, createdBy: actor.name })
        .returning();
      await recordAudit(tx, { actor: actor.name, action: 'create_workspace', target: name, workspace: name, changes: { name, description: row!.description } });
      await invalidateAccess(tx);
      return workspaceRead(row!, 0);
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw workspaceExists(name);
    throw err;
  }
}
