import { eq } from 'drizzle-orm';
import { diffFields } from '../../audit/diff.ts';
import { recordAudit } from '../../audit/record.ts';
import { badRequest } from '../../errors.ts';
import type { AppDeps } from '../../deps.ts';
import type { Caller } from '../../access/caller.ts';
import { secretKeyring } from '../../secrets/keyring.ts';
import { referenceOf, samePassword, sealPassword } from '../../secrets/passwords.ts';
import { assertReferenceWrite } from '../../secrets/references.ts';
import { connections } from '../../store/schema/index.ts';
import { assertConnectionFiles } from './files.ts';
import { type ConnectionFields, PASSWORD_MASK, type UpdateFields, assertTypeRules } from './fields.ts';
import { assertNoUrlPassword } from './jdbc-url.ts';
import { passwordField, uriPasswordSent, withUriPassword } from './mongo-uri.ts';
import { checkPrivilegesSoon } from './least-privilege.ts';
import { assertIfMatch, findConnection } from './lookup.ts';
import { type ConnectionRead, connectionRead, maskedDiff, rowFields } from './view.ts';
import { announceConnectionChange, connectionCache } from './cache.ts';

/**
 * Changes a connection: the `update_connection` change. Absent fields keep
 * their value, null removes an optional one, and the password mask keeps the
 * stored password. `If-Match` is checked against the row locked in the same
 * transaction that writes the change and its audit entry (a diff of the
 * changed fields; a password change is the literal `changed`). A request
 * that changes nothing writes nothing; a literal password sent always
 * changes it. A new literal password is stored
 * encrypted when SLUICE_SECRET_KEY is set; a kept one stays as stored.
 * `checkPrivileges` as for a create.
 */
export async function updateConnection(
  deps: AppDeps,
  actor: Caller,
  name: string,
  input: UpdateFields,
  { workspace, ifMatch, checkPrivileges = false }: { workspace?: string; ifMatch?: string; checkPrivileges?: boolean } = {},
): Promise<ConnectionRead> {
  const { row, changed } = await deps.store.db.transaction(async (tx) => {
    const current = await findConnection(tx, name, { workspace, forUpdate: true });
    assertIfMatch(ifMatch, current);
    if (input.name !== undefined && input.name !== current.name) {
      throw badRequest('A connection cannot be renamed: create one under the new name and delete this one', {
        errors: { name: 'cannot be changed' },
      });
    }
    const before = rowFields(current);
    const after = withUriPassword(merge(before, input), PASSWORD_MASK, input.password !== undefined && input.password !== null && input.password !== PASSWORD_MASK);
    assertTypeRules(after);
    // Only a URL this request writes: one stored before keeps working (masked wherever it is shown).
    if (input.options !== undefined) assertNoUrlPassword(after.options);
    await assertConnectionFiles(tx, deps.env, after, current.workspace, before);
    const keyring = secretKeyring(deps.env);
    const passwordChanged = literalSent(input, after.password) || !samePassword(keyring, before.password, after.password);
    const changes: Record<string, unknown> = maskedDiff(diffFields(withoutPassword(before), withoutPassword(after)));
    assertReferenceWrite(actor, deps.env.SLUICE_SECRET_REFS, {
      reference: passwordChanged ? referenceOf(after.password) : null,
      // Where a kept reference's secret goes: anything but switching the connection on or off.
      redirects: !passwordChanged && referenceOf(after.password) !== null && Object.keys(changes).some((field) => field !== 'active'),
      field: passwordField(input.password),
    });
    if (passwordChanged) changes.password = 'changed';
    if (Object.keys(changes).length === 0) return { row: current, changed: false };

    const [updated] = await tx
      .update(connections)
      .set({
        ...after,
        password: passwordChanged ? sealPassword(keyring, after.password) : current.password,
        revision: current.revision + 1,
        updatedAt: new Date(),
      })
      .where(eq(connections.id, current.id))
      .returning();
    await recordAudit(tx, { actor: actor.name, action: 'update_connection', target: name, workspace: current.workspace, changes });
    await announceConnectionChange(tx, name);
    return { row: updated, changed: true };
  });
  // The next use opens a driver with the new settings.
  if (changed) {
    connectionCache(deps.store).invalidate(name);
    await deps.drivers.drop(name);
    if (checkPrivileges) await checkPrivilegesSoon(deps, row);
  }
  return connectionRead(row, deps.usage, deps.privileges.view(row));
}

/**
 * A literal password the request sent (in `password` or a mongodb URI) is a
 * change even when it is the stored one: were it not, the ETag and the audit
 * log would tell whoever may edit the connection whether a guess was right.
 * A `${VAR}` reference is no secret: sent again, it changes nothing.
 */
function literalSent(input: UpdateFields, password: string | null): boolean {
  const sent = (input.password !== undefined && input.password !== null && input.password !== PASSWORD_MASK) || uriPasswordSent(input.options, PASSWORD_MASK);
  return sent && password !== null && referenceOf(password) === null;
}

function merge(before: ConnectionFields, input: UpdateFields): ConnectionFields {
  const keep = <T>(value: T | null | undefined, stored: T | null): T | null => (value === undefined ? stored : value);
  return {
    db: input.db ?? before.db,
    host: keep(input.host, before.host),
    port: keep(input.port, before.port),
    user: keep(input.user, before.user),
    password: input.password === PASSWORD_MASK ? before.password : keep(input.password, before.password),
    database: keep(input.database, before.database),
    active: input.active ?? before.active,
    options: input.options === undefined ? before.options : (input.options ?? {}),
  };
}

function withoutPassword(fields: ConnectionFields): Record<string, unknown> {
  const { password: _password, ...rest } = fields;
  return rest;
}
