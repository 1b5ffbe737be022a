import { eq } from 'drizzle-orm';
import { invalidateAccess } from '../../access/directory.ts';
import { recordAudit } from '../../audit/record.ts';
import type { AppDeps } from '../../deps.ts';
import type { Caller } from '../../access/caller.ts';
import { administrators, workspaceMembers } from '../../store/schema/index.ts';
import { activeOwners, assertIfMatch, findAdministrator, lastOwner, lockAdministrators, tokenCount } from './lookup.ts';
import { type AdministratorView, administratorSnapshot, administratorView } from './view.ts';

/**
 * Deletes an administrator with their tokens and workspace memberships: the
 * `delete_administrator` change (a snapshot). Their tokens fail on the next
 * request. Refused with `last_owner` like a demotion.
 */
export async function deleteAdministrator(deps: AppDeps, actor: Caller, name: string, ifMatch?: string): Promise<AdministratorView> {
  return deps.store.db.transaction(async (tx) => {
    await lockAdministrators(tx);
    const current = await findAdministrator(tx, name, { forUpdate: true });
    assertIfMatch(ifMatch, current);
    if (current.role === 'owner' && current.active && !deps.env.SLUICE_API_KEY && (await activeOwners(tx, current.id)) === 0) throw lastOwner();
    const view = administratorView(current, await tokenCount(tx, current.id));
    await tx.delete(workspaceMembers).where(eq(workspaceMembers.admin, current.name));
    await tx.delete(administrators).where(eq(administrators.id, current.id));
    await recordAudit(tx, { actor: actor.name, action: 'delete_administrator', target: name, workspace: null, changes: administratorSnapshot(current) });
    await invalidateAccess(tx);
    return view;
  });
}
