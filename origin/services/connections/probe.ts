import { randomUUID } from 'node:crypto';
import { createRedactor, type Redactor } from '../../drivers/redact.ts';
import type { AnyDriver, ConnectionSettings } from '../../drivers/types.ts';
import { SluiceError, badRequest } from '../../errors.ts';
import type { Caller } from '../../access/caller.ts';
import type { AppDeps } from '../../deps.ts';
import { referenceOf } from '../../secrets/passwords.ts';
import { assertReferenceWrite } from '../../secrets/references.ts';
import { DEFAULT_WORKSPACE } from '../../access/administration.ts';
import { assertConnectionFiles } from './files.ts';
import { PASSWORD_MASK, type ProbeFields, assertTypeRules, withDefaults } from './fields.ts';
import { assertNoUrlPassword } from './jdbc-url.ts';
import { passwordField, withUriPassword } from './mongo-uri.ts';
import { findConnection, settingsOf } from './lookup.ts';
import { driverSettings } from './settings.ts';
import type { ConnectionRow } from '../../store/schema/index.ts';
import { assertProbeHostsAllowed } from './host-deny.ts';

/**
 * What `/test` and `/databases` talk to: a saved connection named in `{name}`,
 * or unsaved fields (nothing is saved). Inactive saved connections may be
 * probed: an administrator checks one before switching it on.
 */
export interface ProbeTarget {
  /** The saved connection's name; null for unsaved fields. */
  saved: string | null;
  /** The saved connection's row: a test's answer about its privileges is kept for its version. */
  row?: ConnectionRow;
  settings: ConnectionSettings;
  /** Strips the password (as sent and as expanded) from anything shown to the client. */
  redact: Redactor;
}

/** `workspace` (a workspace-scoped call): a saved connection of another workspace is unknown. */
export async function probeTarget(deps: AppDeps, actor: Caller, input: ProbeFields, workspace?: string): Promise<ProbeTarget> {
  const { name, db, ...rest } = input;
  if (db === undefined) {
    const others = Object.entries(rest).filter(([, value]) => value !== undefined).map(([key]) => key);
    if (name === undefined || others.length > 0) {
      throw badRequest('Send either {"name": ...} of a saved connection, or unsaved fields including db', { errors: { db: 'required' } });
    }
    const row = await findConnection(deps.store.db, name, { workspace });
    const settings = settingsOf(deps, row);
    return { saved: row.name, row, settings, redact: createRedactor(settings.password) };
  }
  if (rest.password === PASSWORD_MASK) {
    throw badRequest(`password is the mask ${PASSWORD_MASK}: send the real password, or test the saved connection by {"name"}`, {
      errors: { password: 'is the mask' },
    });
  }
  const fields = withUriPassword(withDefaults({ db, ...rest }), PASSWORD_MASK, rest.password !== undefined && rest.password !== null);
  assertTypeRules(fields);
  assertNoUrlPassword(fields.options);
  // Sent to a host the caller names: who may, and which variables (secrets/references.ts).
  assertReferenceWrite(actor, deps.env.SLUICE_SECRET_REFS, { reference: referenceOf(fields.password), field: passwordField(rest.password) });
  await assertConnectionFiles(deps.store.db, deps.env, fields, workspace ?? DEFAULT_WORKSPACE);
  // An unset `${VAR}` fails here, naming the variable (a reference is no secret).
  const settings = driverSettings(name ?? null, fields, deps.env);
  return { saved: null, settings, redact: createRedactor(settings.password) };
}

/**
 * Runs `use` on a driver of its own, dropped afterwards, so a probe never
 * touches the pooled driver of a saved connection nor leaves one behind. Its
 * hosts are checked against SLUICE_ENDPOINT_DENY first.
 */
export async function withProbeDriver<T>(deps: AppDeps, target: ProbeTarget, use: (driver: AnyDriver) => Promise<T>): Promise<T> {
  // Before any driver exists: a probe is no way to reach a denied address.
  await assertProbeHostsAllowed(target.settings, deps.env.SLUICE_ENDPOINT_DENY);
  const key = `probe:${randomUUID()}`;
  try {
    return await use(deps.drivers.get(key, target.settings));
  } catch (err) {
    throw redactedFailure(err, target.redact);
  } finally {
    await deps.drivers.drop(key);
  }
}

/**
 * A probe failure as the client sees it: its `SluiceError` with the message
 * and `detail` redacted once more, or `connection_failed` for anything else.
 */
export function redactedFailure(err: unknown, redact: Redactor): SluiceError {
  if (err instanceof SluiceError) {
    const extras = { ...err.extras };
    if (typeof extras.detail === 'string') extras.detail = redact(extras.detail);
    return new SluiceError(err.code, redact(err.message), extras);
  }
  const message = err instanceof Error ? err.message || err.name : String(err);
  return new SluiceError('connection_failed', 'Could not connect to the database', { detail: redact(message) });
}
