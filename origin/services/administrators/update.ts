import { eq } from 'drizzle-orm';
import { invalidateAccess } from '../../access/directory.ts';
import { diffFields } from '../../audit/diff.ts';
import { recordAudit } from '../../audit/record.ts';
import type { AppDeps } from '../../deps.ts';
import type { Caller } from '../../access/caller.ts';
import { administrators } from '../../store/schema/index.ts';
import type { UpdateFields } from './fields.ts';
import { activeOwners, assertIfMatch, findAdministrator, lastOwner, lockAdministrators, tokenCount } from './lookup.ts';
import { type AdministratorRead, administratorRead, administratorSnapshot } from './view.ts';

/**
 * Changes an administrator's `role`, `email` or `active`: the
 * `update_administrator` change (a diff of what changed). `active: false`
 * stops all their tokens on the next request. Refused with `last_owner` when
 * it would leave no active owner and `SLUICE_API_KEY` is not set. A request
 * that changes nothing writes nothing.
 */
export async function updateAdministrator(
  deps: AppDeps,
  actor: Caller,
  name: string,
  input: UpdateFields,
  ifMatch?: string,
): Promise<AdministratorRead> {
  return deps.store.db.transaction(async (tx) => {
    await lockAdministrators(tx);
    const current = await findAdministrator(tx, name, { forUpdate: true });
    assertIfMatch(ifMatch, current);
    const after = {
      name: current.name,
      role: input.role === undefined ? current.role : input.role,
      email: input.email === undefined ? current.email : input.email,
      active: input.active ?? current.active,
    };
    const changes = diffFields(administratorSnapshot(current), after);
    if (Object.keys(changes).length === 0) return administratorRead(current, await tokenCount(tx, current.id));

    const wasOwner = current.role === 'owner' && current.active;
    const staysOwner = after.role === 'owner' && after.active;
    if (wasOwner && !staysOwner && !deps.env.SLUICE_API_KEY && (await activeOwners(tx, current.id)) === 0) throw lastOwner();

    const [updated] = await tx
      .update(administrators)
      .set({ role: after.role, email: after.email, active: after.active, revision: current.revision + 1, updatedAt: new Date() })
      .where(eq(administrators.id, current.id))
      .returning();
    await recordAudit(tx, { actor: actor.name, action: 'update_administrator', target: name, workspace: null, changes });
    await invalidateAccess(tx);
    return administratorRead(updated!, await tokenCount(tx, current.id));
  });
}
