import type { Caller } from '../../access/caller.ts';
import type { AppDeps } from '../../deps.ts';
import type { ProbeFields } from './fields.ts';
import { probeTarget, redactedFailure, withProbeDriver } from './probe.ts';

/** Databases on the server of a saved connection (`{name}`) or of unsaved fields. Nothing is saved. */
export async function listDatabases(deps: AppDeps, actor: Caller, input: ProbeFields, { workspace }: { workspace?: string } = {}): Promise<{ databases: string[] }> {
  const target = await probeTarget(deps, actor, input, workspace);
  if (target.saved === null) return { databases: await withProbeDriver(deps, target, (driver) => driver.databases()) };
  // A saved connection's pooled driver serves it (dropped whenever the connection changes).
  try {
    return { databases: await deps.drivers.get(target.saved, target.settings).databases() };
  } catch (err) {
    throw redactedFailure(err, target.redact);
  }
}
