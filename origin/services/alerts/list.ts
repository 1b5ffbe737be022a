import type { AppDeps } from '../../deps.ts';
import { keyRotationAlerts } from '../../secrets/alert.ts';
import { exportFailingAlerts } from '../exports/alert.ts';
import type { Alert } from '../../alerts/types.ts';
import { byName } from '../collections/lookup.ts';

/** Where alerts come from: a new kind joins with one line. */
const SOURCES: ReadonlyArray<(deps: AppDeps) => Promise<Alert[]>> = [keyRotationAlerts, exportFailingAlerts];

/** Every alert firing now, by name then subject, in code-unit order as every listing (localeCompare would load ICU's collation data for good). */
export async function listAlerts(deps: AppDeps): Promise<{ alerts: Alert[] }> {
  const alerts = (await Promise.all(SOURCES.map((source) => source(deps)))).flat();
  alerts.sort((a, b) => byName(a.name, b.name) || byName(a.subject ?? '', b.subject ?? ''));
  return { alerts };
}
