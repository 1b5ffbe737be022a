import type { AppDeps } from '../../http/context.ts';
import { SluiceError } from '../../errors.ts';
import type { ProbeFields } from './fields.ts';
import { probeTarget, redactedFailure, withProbeDriver } from './probe.ts';

export interface TestResult {
  ok: true;
  duration_ms: number;
}

/**
 * Opens a session and runs a trivial statement, on a saved connection
 * (`{name}`) or unsaved fields. Nothing is saved. Any failure is 502
 * `connection_failed` with the database's message, password redacted, in `detail`.
 */
export async function testConnection(deps: AppDeps, input: ProbeFields, { workspace }: { workspace?: string } = {}): Promise<TestResult> {
  const target = await probeTarget(deps, input, workspace);
  const started = performance.now();
  try {
    await withProbeDriver(deps, target, (driver) => driver.test());
  } catch (err) {
    const failure = redactedFailure(err, target.redact);
    if (failure.code === 'connection_failed') throw failure;
    throw new SluiceError('connection_failed', 'Could not connect to the database', { detail: String(failure.extras.detail ?? failure.message) });
  }
  return { ok: true, duration_ms: Math.round((performance.now() - started) * 100) / 100 };
}
