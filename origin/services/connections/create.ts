import { eq } from 'drizzle-orm';
import { recordAudit } from '../../audit/record.ts';
import { SluiceError, badRequest } from '../../errors.ts';
import type { AppDeps } from '../../deps.ts';
import type { Caller } from '../../access/caller.ts';
import { secretKeyring } from '../../secrets/keyring.ts';
import { referenceOf, sealPassword } from '../../secrets/passwords.ts';
import { assertReferenceWrite } from '../../secrets/references.ts';
import { connections } from '../../store/schema/index.ts';
import { assertConnectionFiles } from './files.ts';
import { PASSWORD_MASK, type CreateFields, assertTypeRules, assertValidName, withDefaults } from './fields.ts';
import { type ConnectionRead, auditSnapshot, connectionRead } from './view.ts';
import { announceConnectionChange, connectionCache } from './cache.ts';
import { assertNoUrlPassword } from './jdbc-url.ts';
import { passwordField, withUriPassword } from './mongo-uri.ts';
import { checkPrivilegesSoon } from './least-privilege.ts';

export const connectionExists = (name: string) =>
  new SluiceError('connection_exists', `A connection named "${name}" already exists`);

/** True for a Postgres unique violation, however the driver wraps it. */
export function isUniqueViolation(error: unknown): boolean {
  for (let e = error as { code?: unknown; cause?: unknown } | undefined, depth = 0; e && depth < 5; e = e.cause as typeof e, depth++) {
    if (e.code === '23505') return true;
  }
  return false;
}

/**
 * Saves a new connection: the `create_connection` change. The row and its
 * audit entry (a full snapshot, password `********`) commit together. A
 * literal password is stored encrypted when SLUICE_SECRET_KEY is set.
 * `checkPrivileges` (the API, not a configuration apply) asks the database
 * what its user may do before answering (least-privilege.ts).
 */
export async function createConnection(
  deps: AppDeps,
  actor: Caller,
  input: CreateFields,
  workspace = 'default',
  { checkPrivileges = false }: { checkPrivileges?: boolean } = {},
): Promise<ConnectionRead> {
  assertValidName(input.name);
  if (input.password === PASSWORD_MASK) {
    throw badRequest(`password is the mask ${PASSWORD_MASK}: send the real password, a \${VAR} reference, or null`, {
      errors: { password: 'is the mask' },
    });
  }
  const fields = withUriPassword(withDefaults(input), PASSWORD_MASK, input.password !== undefined && input.password !== null);
  assertTypeRules(fields);
  assertNoUrlPassword(fields.options);
  assertReferenceWrite(actor, deps.env.SLUICE_SECRET_REFS, { reference: referenceOf(fields.password), field: passwordField(input.password) });
  const { name } = input;

  let row;
  try {
    row = await deps.store.db.transaction(async (tx) => {
      const [taken] = await tx.select({ id: connections.id }).from(connections).where(eq(connections.name, name));
      if (taken) throw connectionExists(name);
      await assertConnectionFiles(tx, deps.env, fields, workspace);
      const [inserted] = await tx
        .insert(connections)
        .values({ name, workspace, ...fields, password: sealPassword(secretKeyring(deps.env), fields.password), createdBy: actor.name })
        .returning();
      await recordAudit(tx, { actor: actor.name, action: 'create_connection', target: name, workspace, changes: auditSnapshot(name, fields) });
      await announceConnectionChange(tx, name);
      return inserted;
    });
  } catch (err) {
    // Two creates racing past the check: the unique index decides.
    if (isUniqueViolation(err)) throw connectionExists(name);
    throw err;
  }
  // A namesake deleted earlier may still have a cached driver.
  connectionCache(deps.store).invalidate(name);
  await deps.drivers.drop(name);
  deps.privileges.forget(name);
  if (checkPrivileges) await checkPrivilegesSoon(deps, row);
  return connectionRead(row, deps.usage, deps.privileges.view(row));
}
