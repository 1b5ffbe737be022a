import { eq } from 'drizzle-orm';
import { invalidateAccess } from '../../access/directory.ts';
import { recordAudit } from '../../audit/record.ts';
import { SluiceError } from '../../errors.ts';
import type { AppDeps } from '../../deps.ts';
import type { Caller } from '../../access/caller.ts';
import { administrators, apiKeys } from '../../store/schema/index.ts';
import { isUniqueViolation } from '../connections/create.ts';
import { type CreateFields, assertValidName } from './fields.ts';
import { activeOwners, lastOwner, lockAdministrators } from './lookup.ts';
import { type IssuedToken, insertToken } from './token-store.ts';
import { type AdministratorRead, administratorRead, administratorSnapshot } from './view.ts';

export const adminExists = (name: string) => new SluiceError('admin_exists', `An administrator named "${name}" already exists`);
export const nameTaken = (name: string) => new SluiceError('name_taken', `"${name}" is the name of an API key; an administrator needs another name`);

/**
 * Creates an administrator: the `create_administrator` change. Names are
 * shared with API keys (`name_taken`), since both appear as the caller in
 * logs, history and audit. An administrator turns authentication on, so:
 * - with no active owner and no `SLUICE_API_KEY`, the new one must be an
 *   active owner (`last_owner`), or nobody could manage administrators;
 * - created from an open server, it comes with a first token (`token`, its
 *   secret shown once), since nobody could issue one afterwards.
 */
export async function createAdministrator(
  deps: AppDeps,
  actor: Caller,
  input: CreateFields,
): Promise<AdministratorRead & { token?: IssuedToken }> {
  assertValidName(input.name);
  const { name } = input;
  try {
    return await deps.store.db.transaction(async (tx) => {
      await lockAdministrators(tx);
      const [taken] = await tx.select({ id: administrators.id }).from(administrators).where(eq(administrators.name, name));
      if (taken) throw adminExists(name);
      const [key] = await tx.select({ id: apiKeys.id }).from(apiKeys).where(eq(apiKeys.name, name));
      if (key) throw nameTaken(name);
      if (!deps.env.SLUICE_API_KEY && input.role !== 'owner' && (await activeOwners(tx)) === 0) throw lastOwner();

      const [row] = await tx
        .insert(administrators)
        .values({ name, role: input.role, email: input.email ?? null, createdBy: actor.name })
        .returning();
      await recordAudit(tx, { actor: actor.name, action: 'create_administrator', target: name, workspace: null, changes: administratorSnapshot(row!) });
      const token = actor.via === 'open' ? await insertToken(tx, actor.name, row!, { label: 'first token', expiresAt: null }) : undefined;
      await invalidateAccess(tx);
      return { ...administratorRead(row!, token ? 1 : 0), ...(token ? { token } : {}) };
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw adminExists(name);
    throw err;
  }
}
