import { eq } from 'drizzle-orm';
import { applyGrants, completeGrants, grantsGiven } from '../../../shared/access/grants-input.ts';
import { invalidateAccess } from '../../access/directory.ts';
import { diffFields } from '../../audit/diff.ts';
import { recordAudit } from '../../audit/record.ts';
import { badRequest } from '../../errors.ts';
import type { AppDeps } from '../../deps.ts';
import type { Caller } from '../../access/caller.ts';
import { roles } from '../../store/schema/index.ts';
import { assertCollectionsExist } from '../keys/collections.ts';
import { assertGrantNamesIn } from '../keys/grant-names.ts';
import { assertIfMatch } from '../if-match.ts';
import type { UpdateRoleFields } from './fields.ts';
import { findRole, roleEtag } from './lookup.ts';
import { type RoleRead, roleRead, roleSettings } from './view.ts';

/**
 * Changes a role's grants: the `update_role` change, a diff of the changed
 * fields. Keys created from it keep the grants they were given. New
 * `connections` and `queries` names must be of the role's workspace and new
 * `collections` names must exist (names the role already holds stay
 * allowed). `If-Match` is checked against the locked row. A request that
 * changes nothing writes nothing.
 */
export async function updateRole(
  deps: AppDeps,
  actor: Caller,
  name: string,
  input: UpdateRoleFields,
  { workspace, ifMatch }: { workspace?: string; ifMatch?: string } = {},
): Promise<RoleRead> {
  return deps.store.db.transaction(async (tx) => {
    const current = await findRole(tx, name, { workspace, forUpdate: true });
    assertIfMatch(ifMatch, roleEtag(current), `Role "${name}"`);
    if (input.name !== undefined && input.name !== current.name) {
      throw badRequest('A role cannot be renamed: create one under the new name and delete this one', { errors: { name: 'cannot be changed' } });
    }
    const before = completeGrants(current.grants);
    const grants = applyGrants(before, grantsGiven(input));
    await assertGrantNamesIn(tx, current.workspace, grants, before);
    if (input.collections !== undefined) await assertCollectionsExist(tx, grants.collections, before.collections);
    const changes = diffFields(roleSettings(before), roleSettings(grants));
    if (Object.keys(changes).length === 0) return roleRead(tx, current);
    const [updated] = await tx
      .update(roles)
      .set({ grants, revision: current.revision + 1, updatedAt: new Date() })
      .where(eq(roles.id, current.id))
      .returning();
    await recordAudit(tx, { actor: actor.name, action: 'update_role', target: name, workspace: current.workspace, changes });
    await invalidateAccess(tx);
    return roleRead(tx, updated);
  });
}
