import { eq } from 'drizzle-orm';
import type { Caller } from '../../access/caller.ts';
import { diffFields } from '../../audit/diff.ts';
import { recordAudit } from '../../audit/record.ts';
import type { AppDeps } from '../../deps.ts';
import { badRequest } from '../../errors.ts';
import { secretKeyring } from '../../secrets/keyring.ts';
import { referenceOf, samePassword, sealPassword } from '../../secrets/passwords.ts';
import { assertReferenceWrite } from '../../secrets/references.ts';
import { destinations } from '../../store/schema/index.ts';
import { PASSWORD_MASK } from '../connections/fields.ts';
import { type DestinationFields, type UpdateFields, assertDestinationRules } from './fields.ts';
import { assertIfMatch, findDestination } from './lookup.ts';
import { type DestinationRead, destinationRead, rowFields } from './view.ts';

/**
 * Changes a destination: the `update_destination` change. Absent fields keep
 * their value, null removes an optional one, and the password mask keeps the
 * stored password. `If-Match` is checked against the row locked in the same
 * transaction that writes the change and its audit entry (a diff of the
 * changed fields; a password change is the literal `changed`). The result
 * must pass the same rules as a new destination. A request that changes
 * nothing writes nothing; a literal secret sent always changes it.
 */
export async function updateDestination(
  deps: AppDeps,
  actor: Caller,
  name: string,
  input: UpdateFields,
  { workspace, ifMatch }: { workspace?: string; ifMatch?: string } = {},
): Promise<DestinationRead> {
  const row = await deps.store.db.transaction(async (tx) => {
    const current = await findDestination(tx, name, { workspace, forUpdate: true });
    assertIfMatch(ifMatch, current);
    if (input.name !== undefined && input.name !== current.name) {
      throw badRequest('A destination cannot be renamed: create one under the new name and delete this one', { errors: { name: 'cannot be changed' } });
    }
    const before = rowFields(current);
    const after = merge(before, input);
    assertDestinationRules(after, deps.env);
    const keyring = secretKeyring(deps.env);
    // A literal sent is a change even when it is the stored one: else the ETag would confirm a guess.
    const literalSent = input.password !== undefined && input.password !== null && input.password !== PASSWORD_MASK && referenceOf(input.password) === null;
    const passwordChanged = literalSent || !samePassword(keyring, before.password, after.password);
    const changes: Record<string, unknown> = diffFields(withoutPassword(before), withoutPassword(after));
    assertReferenceWrite(actor, deps.env.SLUICE_SECRET_REFS, {
      reference: passwordChanged ? referenceOf(after.password) : null,
      redirects: !passwordChanged && referenceOf(after.password) !== null && Object.keys(changes).length > 0,
    });
    if (passwordChanged) changes.password = 'changed';
    if (Object.keys(changes).length === 0) return current;

    const [updated] = await tx
      .update(destinations)
      .set({
        ...after,
        password: passwordChanged ? sealPassword(keyring, after.password) : current.password,
        revision: current.revision + 1,
        updatedAt: new Date(),
      })
      .where(eq(destinations.id, current.id))
      .returning();
    await recordAudit(tx, { actor: actor.name, action: 'update_destination', target: current.name, workspace: current.workspace, changes });
    return updated!;
  });
  return destinationRead(row);
}

function merge(before: DestinationFields, input: UpdateFields): DestinationFields {
  const keep = <T>(value: T | null | undefined, stored: T | null): T | null => (value === undefined ? stored : value);
  return {
    url: input.url ?? before.url,
    region: keep(input.region, before.region),
    endpoint: keep(input.endpoint, before.endpoint),
    user: keep(input.user, before.user),
    password: input.password === PASSWORD_MASK ? before.password : keep(input.password, before.password),
  };
}

function withoutPassword(fields: DestinationFields): Record<string, unknown> {
  const { password: _password, ...rest } = fields;
  return rest;
}
