import { and, asc, eq } from 'drizzle-orm';
import { invalidateAccess } from '../../access/directory.ts';
import { recordAudit } from '../../audit/record.ts';
import { SluiceError } from '../../errors.ts';
import type { AppDeps } from '../../deps.ts';
import type { Caller } from '../../access/caller.ts';
import { workspaceMembers } from '../../store/schema/index.ts';
import { findAdministrator } from '../administrators/lookup.ts';
import type { MemberFields } from './fields.ts';
import { findWorkspace } from './lookup.ts';
import { type MemberView, memberView } from './view.ts';

export const memberNotFound = (workspace: string, admin: string) =>
  new SluiceError('member_not_found', `"${admin}" is not a member of workspace "${workspace}"`);

export async function listMembers(deps: AppDeps, caller: Caller, workspace: string): Promise<MemberView[]> {
  await findWorkspace(deps.store.db, caller, workspace);
  const rows = await deps.store.db
    .select()
    .from(workspaceMembers)
    .where(eq(workspaceMembers.workspace, workspace))
    .orderBy(asc(workspaceMembers.admin));
  return rows.map(memberView);
}

/**
 * Gives an administrator a role in a workspace: `add_member` for a new
 * member, `update_member` for a changed role (nothing is written when it is
 * the same). The role applies while their server-wide role is null.
 */
export async function putMember(
  deps: AppDeps,
  actor: Caller,
  workspace: string,
  admin: string,
  input: MemberFields,
): Promise<{ member: MemberView; created: boolean }> {
  return deps.store.db.transaction(async (tx) => {
    await findWorkspace(tx, actor, workspace, { forUpdate: true });
    await findAdministrator(tx, admin);
    const where = and(eq(workspaceMembers.workspace, workspace), eq(workspaceMembers.admin, admin));
    const [current] = await tx.select().from(workspaceMembers).where(where).for('update');
    if (current && current.role === input.role) return { member: memberView(current), created: false };
    const [row] = current
      ? await tx.update(workspaceMembers).set({ role: input.role }).where(where).returning()
      : await tx.insert(workspaceMembers).values({ workspace, admin, role: input.role, addedBy: actor.name }).returning();
    await recordAudit(tx, {
      actor: actor.name,
      action: current ? 'update_member' : 'add_member',
      target: workspace,
      workspace,
      changes: current ? { admin, role: { from: current.role, to: input.role } } : { admin, role: input.role },
    });
    await invalidateAccess(tx);
    return { member: memberView(row!), created: !current };
  });
}

/** Removes a membership (`remove_member`); 404 `member_not_found` when there is none. */
export async function deleteMember(deps: AppDeps, actor: Caller, workspace: string, admin: string): Promise<MemberView> {
  return deps.store.db.transaction(async (tx) => {
    await findWorkspace(tx, actor, workspace, { forUpdate: true });
    const [row] = await tx
      .delete(workspaceMembers)
      .where(and(eq(workspaceMembers.workspace, workspace), eq(workspaceMembers.admin, admin)))
      .returning();
    if (!row) throw memberNotFound(workspace, admin);
    await recordAudit(tx, { actor: actor.name, action: 'remove_member', target: workspace, workspace, changes: { admin, role: row.role } });
    await invalidateAccess(tx);
    return memberView(row);
  });
}
