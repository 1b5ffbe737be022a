import { eq } from 'drizzle-orm';
import { diffFields } from '../../audit/diff.ts';
import { recordAudit } from '../../audit/record.ts';
import { badRequest } from '../../errors.ts';
import type { AppDeps } from '../../deps.ts';
import type { Caller } from '../../access/caller.ts';
import { secretKeyring } from '../../secrets/keyring.ts';
import { samePassword, sealPassword } from '../../secrets/passwords.ts';
import { connections } from '../../store/schema/index.ts';
import { assertConnectionFiles } from './files.ts';
import { type ConnectionFields, PASSWORD_MASK, type UpdateFields, assertTypeRules } from './fields.ts';
import { withUriPassword } from './mongo-uri.ts';
import { assertIfMatch, findConnection } from './lookup.ts';
import { type ConnectionRead, connectionRead, rowFields } from './view.ts';
import { announceConnectionChange, connectionCache } from './cache.ts';

/**
 * Changes a connection: the `update_connection` change. Absent fields keep
 * their value, null removes an optional one, and the password mask keeps the
 * stored password. `If-Match` is checked against the row locked in the same
 * transaction that writes the change and its audit entry (a diff of the
 * changed fields; a password change is the literal `changed`). A request
 * that changes nothing writes nothing. A new literal password is stored
 * encrypted when SLUICE_SECRET_KEY is set; a kept one stays as stored.
 */
export async function updateConnection(
  deps: AppDeps,
  actor: Caller,
  name: string,
  input: UpdateFields,
  { workspace, ifMatch }: { workspace?: string; ifMatch?: string } = {},
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
    await assertConnectionFiles(tx, deps.env, after, current.workspace, before);
    const keyring = secretKeyring(deps.env);
    const passwordChanged = !samePassword(keyring, before.password, after.password);
    const changes: Record<string, unknown> = diffFields(withoutPassword(before), withoutPassword(after));
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
  }
  return connectionRead(row, deps.usage);
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
