import type { Caller } from '../../access/caller.ts';
import type { AppDeps } from '../../deps.ts';
import { SluiceError } from '../../errors.ts';
import type { ProbeFields } from './fields.ts';
import { privilegeWarnings } from './privileges.ts';
import { probeTarget, redactedFailure, withProbeDriver } from './probe.ts';

export interface TestResult {
  ok: true;
  duration_ms: number;
  /** Advice about the connected user's privileges (superuser, server files); empty when there is none. */
  warnings: string[];
}

/**
 * Opens a session and runs a trivial statement, on a saved connection
 * (`{name}`) or unsaved fields, then looks at what the user may do. Nothing
 * is saved. A host in SLUICE_ENDPOINT_DENY is 400 `endpoint_denied` before
 * any connection; any other failure is 502 `connection_failed` with the
 * database's message, password redacted, in `detail`.
 */
export async function testConnection(deps: AppDeps, actor: Caller, input: ProbeFields, { workspace }: { workspace?: string } = {}): Promise<TestResult> {
  const target = await probeTarget(deps, actor, input, workspace);
  const started = performance.now();
  let durationMs = 0;
  let warnings: string[] = [];
  try {
    await withProbeDriver(deps, target, async (driver) => {
      await driver.test();
      durationMs = performance.now() - started;
      warnings = await privilegeWarnings(driver);
    });
    if (target.row) deps.privileges.record(target.row, warnings);
  } catch (err) {
    const failure = redactedFailure(err, target.redact);
    if (failure.code === 'connection_failed' || failure.code === 'endpoint_denied') throw failure;
    throw new SluiceError('connection_failed', 'Could not connect to the database', { detail: String(failure.extras.detail ?? failure.message) });
  }
  return { ok: true, duration_ms: Math.round(durationMs * 100) / 100, warnings };
}
