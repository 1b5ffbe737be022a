import { eq } from 'drizzle-orm';
import { applyGrants, grantsGiven } from '../../../shared/access/grants-input.ts';
import { emptyGrants } from '../../../shared/access/grants.ts';
import { DEFAULT_WORKSPACE } from '../../access/administration.ts';
import { invalidateAccess } from '../../access/directory.ts';
import { recordAudit } from '../../audit/record.ts';
import type { AppDeps } from '../../deps.ts';
import type { Caller } from '../../access/caller.ts';
import { roles } from '../../store/schema/index.ts';
import { assertCollectionsExist } from '../keys/collections.ts';
import { assertGrantNamesIn } from '../keys/grant-names.ts';
import { assertAccessName } from '../keys/fields.ts';
import { isUniqueViolation } from '../keys/lookup.ts';
import type { CreateRoleFields } from './fields.ts';
import { roleExists } from './lookup.ts';
import { type RoleRead, roleRead, roleSettings } from './view.ts';

/**
 * Creates a role, a template of key grants: the `create_role` change (a full
 * snapshot). Its connections and queries must be of its workspace, its
 * collections must exist. 409 `role_exists`. `workspace` is where it lives
 * (a workspace-scoped call), else `default`.
 */
export async function createRole(deps: AppDeps, actor: Caller, input: CreateRoleFields, { workspace }: { workspace?: string } = {}): Promise<RoleRead> {
  const { name } = input;
  assertAccessName('Role', name);
  try {
    return await deps.store.db.transaction(async (tx) => {
      const [taken] = await tx.select({ id: roles.id }).from(roles).where(eq(roles.name, name));
      if (taken) throw roleExists(name);
      const home = workspace ?? DEFAULT_WORKSPACE;
      const grants = applyGrants(emptyGrants(), grantsGiven(input));
      await assertGrantNamesIn(tx, home, grants);
      await assertCollectionsExist(tx, grants.collections);
      const [row] = await tx
        .insert(roles)
        .values({ name, workspace: home, grants, createdBy: actor.name })
        .returning();
      await recordAudit(tx, { actor: actor.name, action: 'create_role', target: name, workspace: row.workspace, changes: { name, workspace: row.workspace, ...roleSettings(grants) } });
      await invalidateAccess(tx);
      return roleRead(tx, row);
    });
  } catch (err) {
    if (isUniqueViolation(err, 'roles_name_unique')) throw roleExists(name);
    throw err;
  }
}
