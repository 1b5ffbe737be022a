import type { Caller } from '../../access/caller.ts';
import type { AppDeps } from '../../deps.ts';
import { referenceOf } from '../../secrets/passwords.ts';
import { assertReferenceWrite } from '../../secrets/references.ts';
import { createRedactor } from '../../drivers/redact.ts';
import { badRequest } from '../../errors.ts';
import { openObjectStore } from '../../object-storage/index.ts';
import { storeFailed } from '../../object-storage/failure.ts';
import type { DestinationSettings } from '../../object-storage/types.ts';
import { PASSWORD_MASK } from '../connections/fields.ts';
import { type ProbeFields, assertDestinationRules, withDefaults } from './fields.ts';
import { findDestination, settingsOf, storeSettings } from './lookup.ts';

export interface TestResult {
  ok: true;
  duration_ms: number;
}

/**
 * Writes one small probe object under the prefix (or into the folder) and
 * removes it, for a saved destination (`{name}`) or unsaved fields. Nothing
 * is saved. A url this server does not allow is 400, and so is an endpoint
 * in SLUICE_ENDPOINT_DENY (`endpoint_denied`, before any connection); a store
 * that refuses the credential is 502 `connection_failed` with its S3 error,
 * secret redacted, in `detail`, and one that cannot be reached 502 with one
 * generic detail (object-storage/failure.ts).
 */
export async function testDestination(deps: AppDeps, actor: Caller, input: ProbeFields, { workspace }: { workspace?: string } = {}): Promise<TestResult> {
  const settings = await probeSettings(deps, actor, input, workspace);
  const started = performance.now();
  const store = openObjectStore(settings, deps.env);
  try {
    await store.probe();
  } catch (err) {
    throw storeFailed(err, 'writing the probe', createRedactor(settings.password));
  } finally {
    store.close();
  }
  return { ok: true, duration_ms: Math.round((performance.now() - started) * 100) / 100 };
}

/** `{name}` alone names a saved destination (`workspace`: of that workspace); otherwise the fields are an unsaved one. */
async function probeSettings(deps: AppDeps, actor: Caller, input: ProbeFields, workspace: string | undefined): Promise<DestinationSettings> {
  const { name, url, ...rest } = input;
  if (url === undefined) {
    const others = Object.entries(rest).filter(([, value]) => value !== undefined).map(([key]) => key);
    if (name === undefined || others.length > 0) {
      throw badRequest('Send either {"name": ...} of a saved destination, or unsaved fields including url', { errors: { url: 'required' } });
    }
    return settingsOf(deps, await findDestination(deps.store.db, name, { workspace }));
  }
  if (rest.password === PASSWORD_MASK) {
    throw badRequest(`password is the mask ${PASSWORD_MASK}: send the real secret key, or test the saved destination by {"name"}`, { errors: { password: 'is the mask' } });
  }
  const fields = withDefaults({ url, ...rest });
  assertDestinationRules(fields, deps.env);
  assertReferenceWrite(actor, deps.env.SLUICE_SECRET_REFS, { reference: referenceOf(fields.password) });
  return storeSettings(deps.env, null, fields);
}
