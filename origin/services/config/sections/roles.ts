import { eq } from 'drizzle-orm';
import { applyGrants, completeGrants, grantsGiven } from '../../../../shared/access/grants-input.ts';
import { emptyGrants } from '../../../../shared/access/grants.ts';
import { diffFields } from '../../../audit/diff.ts';
import { roles } from '../../../store/schema/index.ts';
import { createRole } from '../../roles/create.ts';
import { deleteRole } from '../../roles/delete.ts';
import { updateRole } from '../../roles/update.ts';
import { roleSettings } from '../../roles/view.ts';
import { type Section, assertInWorkspace, recordCreate, recordUpdate } from '../context.ts';
import type { RoleEntry } from '../file.ts';

/** `roles`: an entry is the role's whole grant template; a field left out is what a new role gets. */
export const rolesSection: Section<RoleEntry> = {
  kind: 'roles',

  async upsert(deps, ctx, entry) {
    const [current] = await deps.store.db.select().from(roles).where(eq(roles.name, entry.name));
    if (!current) {
      await createRole(deps, ctx.actor, entry, { workspace: ctx.workspace });
      return recordCreate(ctx, 'roles', entry.name);
    }
    assertInWorkspace(ctx, 'roles', entry.name, current.workspace);
    const after = applyGrants(emptyGrants(), grantsGiven(entry));
    const fields = diffFields(roleSettings(completeGrants(current.grants)), roleSettings(after));
    if (Object.keys(fields).length > 0) await updateRole(deps, ctx.actor, entry.name, after, { workspace: ctx.workspace });
    recordUpdate(ctx, 'roles', entry.name, fields);
  },

  async remove(deps, ctx, name) {
    const [current] = await deps.store.db.select({ id: roles.id }).from(roles).where(eq(roles.name, name));
    if (!current) return false;
    await deleteRole(deps, ctx.actor, name, { workspace: ctx.workspace });
    return true;
  },
};
