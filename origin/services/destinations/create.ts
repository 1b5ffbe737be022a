import { eq } from 'drizzle-orm';
import type { Caller } from '../../access/caller.ts';
import { recordAudit } from '../../audit/record.ts';
import type { AppDeps } from '../../deps.ts';
import { SluiceError, badRequest } from '../../errors.ts';
import { secretKeyring } from '../../secrets/keyring.ts';
import { referenceOf, sealPassword } from '../../secrets/passwords.ts';
import { assertReferenceWrite } from '../../secrets/references.ts';
import { destinations } from '../../store/schema/index.ts';
import { isUniqueViolation } from '../connections/create.ts';
import { PASSWORD_MASK } from '../connections/fields.ts';
import { type CreateFields, assertDestinationRules, assertValidName, withDefaults } from './fields.ts';
import { type DestinationRead, auditSnapshot, destinationRead } from './view.ts';

export const destinationExists = (name: string) => new SluiceError('destination_exists', `A destination named "${name}" already exists`);

/**
 * Saves a new destination: the `create_destination` change. The url is
 * checked against this server's rules (a local folder inside
 * SLUICE_EXPORT_DIRS...); nothing is contacted (`/test` does that). The row
 * and its audit entry (a full snapshot, password `********`) commit
 * together. A literal password is stored encrypted when SLUICE_SECRET_KEY is
 * set.
 */
export async function createDestination(deps: AppDeps, actor: Caller, input: CreateFields, workspace = 'default'): Promise<DestinationRead> {
  assertValidName(input.name);
  if (input.password === PASSWORD_MASK) {
    throw badRequest(`password is the mask ${PASSWORD_MASK}: send the real secret key, a \${VAR} reference, or null`, { errors: { password: 'is the mask' } });
  }
  const fields = withDefaults(input);
  assertDestinationRules(fields, deps.env);
  assertReferenceWrite(actor, deps.env.SLUICE_SECRET_REFS, { reference: referenceOf(fields.password) });
  const { name } = input;
  try {
    const row = await deps.store.db.transaction(async (tx) => {
      const [taken] = await tx.select({ id: destinations.id }).from(destinations).where(eq(destinations.name, name));
      if (taken) throw destinationExists(name);
      const [inserted] = await tx
        .insert(destinations)
        .values({ name, workspace, ...fields, password: sealPassword(secretKeyring(deps.env), fields.password), createdBy: actor.name })
        .returning();
      await recordAudit(tx, { actor: actor.name, action: 'create_destination', target: name, workspace, changes: auditSnapshot(name, fields) });
      return inserted!;
    });
    return destinationRead(row);
  } catch (err) {
    // Two creates racing past the check: the unique index decides.
    if (isUniqueViolation(err)) throw destinationExists(name);
    throw err;
  }
}
