import { eq } from 'drizzle-orm';
import { applyGrants, completeGrants, grantsGiven } from '../../../shared/access/grants-input.ts';
import { type KeyGrants, emptyGrants } from '../../../shared/access/grants.ts';
import { generateSecret, hashSecret } from '../../../shared/access/secret.ts';
import { DEFAULT_WORKSPACE } from '../../access/administration.ts';
import { invalidateAccess } from '../../access/directory.ts';
import { recordAudit } from '../../audit/record.ts';
import { SluiceError, badRequest } from '../../errors.ts';
import type { AppDeps } from '../../deps.ts';
import type { Caller } from '../../access/caller.ts';
import type { StoreDb } from '../../store/open.ts';
import { administrators, apiKeys } from '../../store/schema/index.ts';
import { lockAdministrators } from '../administrators/lookup.ts';
import { findRole } from '../roles/lookup.ts';
import { assertCollectionsExist } from './collections.ts';
import { assertGrantNamesIn, grantsValidIn } from './grant-names.ts';
import { type CreateKeyFields, assertAccessName } from './fields.ts';
import { assertSecretFree, isUniqueViolation, keyExists, secretTaken } from './lookup.ts';
import { type KeyRead, type KeyView, keyRead, keySnapshot } from './view.ts';

/** A key just made or rotated: the view, its ETag, and the secret, shown this once. */
export interface KeyWithSecret {
  key: KeyView & { secret: string };
  etag: string;
}

export const nameTaken = (name: string) =>
  new SluiceError('name_taken', `"${name}" is the name of an administrator: keys and administrators need different names`);

/**
 * 409 `name_taken` when an administrator has the name: keys and
 * administrators share one namespace of callers. Under the administrators'
 * lock, which their create takes too, so the two cannot race to one name.
 */
export async function assertNoAdministratorNamed(tx: StoreDb, name: string): Promise<void> {
  await lockAdministrators(tx);
  const [admin] = await tx.select({ id: administrators.id }).from(administrators).where(eq(administrators.name, name));
  if (admin) throw nameTaken(name);
}

/**
 * The grants of a new key in `home`: a role's copied once, keeping only the
 * connections and queries of `home` (404 `role_not_found`; no grant field may
 * come with it), or the explicit fields over a key with no grants, whose
 * connections and queries must be of `home` and whose collections must exist.
 * `workspace` (a workspace-scoped call) is where the role is looked up.
 */
async function initialGrants(
  tx: StoreDb,
  input: CreateKeyFields,
  workspace: string | undefined,
  home: string,
): Promise<{ grants: KeyGrants; role: string | null }> {
  const given = grantsGiven(input);
  if (input.role === undefined || input.role === null) {
    const grants = applyGrants(emptyGrants(), given);
    await assertGrantNamesIn(tx, home, grants);
    await assertCollectionsExist(tx, grants.collections);
    return { grants, role: null };
  }
  const explicit = Object.keys(given);
  if (explicit.length > 0) {
    throw badRequest(`A key created from a role takes the role's grants: send role or grant fields, not both (got ${explicit.join(', ')})`, {
      errors: Object.fromEntries(explicit.map((field) => [field, 'not allowed with role'])),
    });
  }
  const role = await findRole(tx, input.role, { workspace });
  return { grants: await grantsValidIn(tx, home, completeGrants(role.grants)), role: role.name };
}

/**
 * A first scoped key on an open server turns authentication on, and a scoped
 * key may never manage the server: nobody could manage it again short of a
 * restart with `SLUICE_API_KEY`. 409 until there is a way back in.
 */
export function assertNotOpen(actor: Caller): void {
  if (actor.via !== 'open') return;
  throw new SluiceError(
    'administrator_required',
    'The server is open (no SLUICE_API_KEY, no administrator): a first API key would turn authentication on and leave nobody ' +
      'able to manage it. Create an owner administrator first (POST /api/v1/administrators returns their token), ' +
      'or set SLUICE_API_KEY and restart.',
  );
}

/**
 * Creates a scoped API key: the `create_key` change (a full snapshot, never
 * the secret or its hash). The secret is generated here, returned once, and
 * stored only as its SHA-256. `workspace` is where the key lives; given by a
 * workspace-scoped call, a role is looked up there too.
 * 409 `key_exists`, or `name_taken` when an administrator has the name.
 */
export async function createKey(
  deps: AppDeps,
  actor: Caller,
  input: CreateKeyFields,
  { workspace }: { workspace?: string } = {},
): Promise<KeyWithSecret> {
  const secret = generateSecret();
  const { key, etag } = await createKeyWithHash(deps, actor, input, { workspace, secretHash: await hashSecret(secret) });
  return { key: { ...key, secret }, etag };
}

/**
 * The same change for a key whose secret the server never sees, only its
 * SHA-256 (a configuration file's `secret_sha256`). 409 `key_secret_taken`
 * when another key holds that secret, current or previous.
 */
export async function createKeyWithHash(
  deps: AppDeps,
  actor: Caller,
  input: CreateKeyFields,
  { workspace, secretHash }: { workspace?: string; secretHash: string },
): Promise<KeyRead> {
  const { name } = input;
  assertAccessName('API key', name);
  assertNotOpen(actor);

  let row;
  try {
    row = await deps.store.db.transaction(async (tx) => {
      const [taken] = await tx.select({ id: apiKeys.id }).from(apiKeys).where(eq(apiKeys.name, name));
      if (taken) throw keyExists(name);
      await assertNoAdministratorNamed(tx, name);
      await assertSecretFree(tx, secretHash, { serverKey: deps.env.SLUICE_API_KEY });
      const home = workspace ?? DEFAULT_WORKSPACE;
      const { grants, role } = await initialGrants(tx, input, workspace, home);
      const [inserted] = await tx
        .insert(apiKeys)
        .values({
          name,
          workspace: home,
          secretHash,
          grants,
          expiresAt: input.expires_at ?? null,
          active: input.active ?? true,
          createdFromRole: role,
          createdBy: actor.name,
        })
        .returning();
      await recordAudit(tx, { actor: actor.name, action: 'create_key', target: name, workspace: inserted.workspace, changes: keySnapshot(inserted) });
      await invalidateAccess(tx);
      return inserted;
    });
  } catch (err) {
    // Two creates racing past the check: the unique index decides.
    if (isUniqueViolation(err, 'api_keys_name_unique')) throw keyExists(name);
    if (isUniqueViolation(err, 'api_keys_secret_hash_unique')) throw secretTaken();
    throw err;
  }
  return keyRead(deps, row);
}
