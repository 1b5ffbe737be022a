import { eq } from 'drizzle-orm';
import { applyGrants, completeGrants, grantsGiven } from '../../../shared/access/grants-input.ts';
import { invalidateAccess } from '../../access/directory.ts';
import { diffFields } from '../../audit/diff.ts';
import { recordAudit } from '../../audit/record.ts';
import { badRequest } from '../../errors.ts';
import type { AppDeps } from '../../deps.ts';
import type { Caller } from '../../access/caller.ts';
import { apiKeys } from '../../store/schema/index.ts';
import { assertCollectionsExist } from './collections.ts';
import { assertGrantNamesIn } from './grant-names.ts';
import type { UpdateKeyFields } from './fields.ts';
import { assertIfMatch } from '../if-match.ts';
import { findKey, keyEtag } from './lookup.ts';
import { type KeyRead, keyRead, keySettings } from './view.ts';

/**
 * Changes a key: the `update_key` change, a diff of the changed fields.
 * Absent fields keep their value; null resets a grant field (and clears
 * `expires_at`). New `connections` and `queries` names must be of the key's
 * workspace and new `collections` names must exist; names the key already
 * holds stay allowed. `active: false` revokes it at once (the access
 * directory is invalidated in the same transaction). `If-Match` is checked
 * against the row locked in that transaction. A request that changes nothing
 * writes nothing.
 */
export async function updateKey(
  deps: AppDeps,
  actor: Caller,
  name: string,
  input: UpdateKeyFields,
  { workspace, ifMatch }: { workspace?: string; ifMatch?: string } = {},
): Promise<KeyRead> {
  const row = await deps.store.db.transaction(async (tx) => {
    const current = await findKey(tx, name, { workspace, forUpdate: true });
    assertIfMatch(ifMatch, keyEtag(current), `API key "${name}"`);
    if (input.name !== undefined && input.name !== current.name) {
      throw badRequest('An API key cannot be renamed: create one under the new name and delete this one', { errors: { name: 'cannot be changed' } });
    }
    const before = completeGrants(current.grants);
    const grants = applyGrants(before, grantsGiven(input));
    await assertGrantNamesIn(tx, current.workspace, grants, before);
    if (input.collections !== undefined) await assertCollectionsExist(tx, grants.collections, before.collections);
    const next = {
      grants,
      expiresAt: input.expires_at === undefined ? current.expiresAt : input.expires_at,
      active: input.active ?? current.active,
    };
    const changes = diffFields(keySettings(current), keySettings(next));
    if (Object.keys(changes).length === 0) return current;

    const [updated] = await tx
      .update(apiKeys)
      .set({ ...next, revision: current.revision + 1, updatedAt: new Date() })
      .where(eq(apiKeys.id, current.id))
      .returning();
    await recordAudit(tx, { actor: actor.name, action: 'update_key', target: name, workspace: current.workspace, changes });
    await invalidateAccess(tx);
    return updated;
  });
  return keyRead(deps, row);
}
