import type { AppDeps } from '../../deps.ts';
import { keyRotationAlerts } from '../../secrets/alert.ts';
import { exportFailingAlerts } from '../exports/alert.ts';
import type { Alert } from '../../alerts/types.ts';
import { byName } from '../collections/lookup.ts';

type Source = (deps: AppDeps, workspace?: string) => Promise<Alert[]>;

/** Where alerts come from: a new kind joins with one line. */
const SOURCES: ReadonlyArray<Source> = [keyRotationAlerts, exportFailingAlerts];
/** What a workspace-scoped call sees: alerts about that workspace's objects, never a server-wide one. */
const WORKSPACE_SOURCES: ReadonlyArray<Source> = [exportFailingAlerts];

/** Every alert firing now, by name then subject, in code-unit order as every listing (localeCompare would load ICU's collation data for good). */
export async function listAlerts(deps: AppDeps, { workspace }: { workspace?: string } = {}): Promise<{ alerts: Alert[] }> {
  const sources = workspace === undefined ? SOURCES : WORKSPACE_SOURCES;
  const alerts = (await Promise.all(sources.map((source) => source(deps, workspace)))).flat();
  alerts.sort((a, b) => byName(a.name, b.name) || byName(a.subject ?? '', b.subject ?? ''));
  return { alerts };
}
