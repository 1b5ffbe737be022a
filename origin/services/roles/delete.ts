import { eq } from 'drizzle-orm';
import { invalidateAccess } from '../../access/directory.ts';
import { recordAudit } from '../../audit/record.ts';
import type { AppDeps } from '../../deps.ts';
import type { Caller } from '../../access/caller.ts';
import { roles } from '../../store/schema/index.ts';
import { assertIfMatch } from '../if-match.ts';
import { findRole, roleEtag } from './lookup.ts';
import { roleSettings } from './view.ts';
import { forgetManaged } from '../config/managed.ts';

/**
 * Deletes a role: the `delete_role` change (a full snapshot). Keys created
 * from it keep their grants and their `created_from_role`. Answers what was
 * removed.
 */
export async function deleteRole(
  deps: AppDeps,
  actor: Caller,
  name: string,
  { workspace, ifMatch }: { workspace?: string; ifMatch?: string } = {},
): Promise<Record<string, unknown>> {
  return deps.store.db.transaction(async (tx) => {
    const current = await findRole(tx, name, { workspace, forUpdate: true });
    assertIfMatch(ifMatch, roleEtag(current), `Role "${name}"`);
    await tx.delete(roles).where(eq(roles.id, current.id));
    await forgetManaged(tx, 'roles', [current.name]);
    const snapshot = { name, workspace: current.workspace, ...roleSettings(current.grants) };
    await recordAudit(tx, { actor: actor.name, action: 'delete_role', target: name, workspace: current.workspace, changes: snapshot });
    await invalidateAccess(tx);
    return snapshot;
  });
}
