import { eq } from 'drizzle-orm';
import { applyGrants, completeGrants, grantsGiven } from '../../../../shared/access/grants-input.ts';
import { type KeyGrants, emptyGrants } from '../../../../shared/access/grants.ts';
import { diffFields } from '../../../audit/diff.ts';
import { badRequest } from '../../../errors.ts';
import type { StoreDb } from '../../../store/open.ts';
import { apiKeys } from '../../../store/schema/index.ts';
import { createKeyWithHash } from '../../keys/create.ts';
import { deleteKey } from '../../keys/delete.ts';
import { DEFAULT_GRACE_MINUTES } from '../../keys/fields.ts';
import { grantsValidIn } from '../../keys/grant-names.ts';
import { rotateKeyToHash } from '../../keys/rotate.ts';
import { updateKey } from '../../keys/update.ts';
import { keySettings } from '../../keys/view.ts';
import { findRole } from '../../roles/lookup.ts';
import { type ApplyContext, type Section, assertInWorkspace, recordCreate, recordUpdate } from '../context.ts';
import type { KeyEntry } from '../file.ts';
import type { FieldChange } from '../plan.ts';

/**
 * The grants a key of the file holds: its role's as they are now (copied as
 * a key of `workspace` copies them), or its own fields. A key's `role` in a
 * file stays live: every apply gives the key the role's current grants.
 */
async function grantsOf(db: StoreDb, ctx: ApplyContext, entry: KeyEntry, workspace: string): Promise<KeyGrants> {
  const given = grantsGiven(entry);
  if (entry.role === undefined || entry.role === null) return applyGrants(emptyGrants(), given);
  const explicit = Object.keys(given);
  if (explicit.length > 0) {
    throw badRequest(`A key with a role takes the role's grants: give role or grant fields, not both (got ${explicit.join(', ')})`, {
      errors: Object.fromEntries(explicit.map((field) => [field, 'not allowed with role'])),
    });
  }
  const role = await findRole(db, entry.role, { workspace: ctx.workspace });
  return grantsValidIn(db, workspace, completeGrants(role.grants));
}

/**
 * `api_keys`: an entry is the key's grants (or its `role`), `expires_at`,
 * `active` and `secret_sha256`, required for a new key. A new
 * `secret_sha256` on an existing key rotates it: the old secret keeps
 * working for 60 minutes.
 */
export const apiKeysSection: Section<KeyEntry> = {
  kind: 'api_keys',

  async upsert(deps, ctx, entry) {
    const { secret_sha256: secretHash, ...fields } = entry;
    const [current] = await deps.store.db.select().from(apiKeys).where(eq(apiKeys.name, entry.name));
    if (!current) {
      if (!secretHash) {
        throw badRequest('a new key needs secret_sha256', { errors: { secret_sha256: 'is required for a new key: the SHA-256 of its secret (sluice config new-key makes one)' } });
      }
      await createKeyWithHash(deps, ctx.actor, fields, { workspace: ctx.workspace, secretHash });
      return recordCreate(ctx, 'api_keys', entry.name);
    }
    assertInWorkspace(ctx, 'api_keys', entry.name, current.workspace);
    const grants = await grantsOf(deps.store.db, ctx, entry, current.workspace);
    const next = { grants, expiresAt: entry.expires_at ?? null, active: entry.active ?? true };
    const changes: Record<string, FieldChange> = diffFields(keySettings(current), keySettings(next));
    if (Object.keys(changes).length > 0) {
      await updateKey(deps, ctx.actor, entry.name, { ...grants, expires_at: next.expiresAt, active: next.active }, { workspace: ctx.workspace });
    }
    if (secretHash && secretHash !== current.secretHash) {
      await rotateKeyToHash(deps, ctx.actor, entry.name, { grace_minutes: DEFAULT_GRACE_MINUTES }, { workspace: ctx.workspace, secretHash });
      changes.secret_sha256 = 'changed';
    }
    recordUpdate(ctx, 'api_keys', entry.name, changes);
  },

  async remove(deps, ctx, name) {
    const [current] = await deps.store.db.select({ id: apiKeys.id }).from(apiKeys).where(eq(apiKeys.name, name));
    if (!current) return false;
    await deleteKey(deps, ctx.actor, name, { workspace: ctx.workspace });
    return true;
  },
};
