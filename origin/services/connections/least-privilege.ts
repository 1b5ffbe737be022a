import { eq } from 'drizzle-orm';
import type { AppDeps } from '../../deps.ts';
import type { AnyDriver } from '../../drivers/types.ts';
import { SluiceError } from '../../errors.ts';
import { type ConnectionRow, connections } from '../../store/schema/index.ts';
import { connectionForRun, settingsOf } from './lookup.ts';

/** How long a create or update waits for the check before answering; it goes on and is kept either way. */
const ANSWER_WITHIN_MS = 5000;

const driverOf = (deps: AppDeps, row: ConnectionRow) => () => deps.drivers.get(row.name, settingsOf(deps, row));

/**
 * On create and update (an active connection): asks what the database user
 * may do, so that the answer shows `warnings`. A database that cannot be
 * reached, or a slow one, answers without them (`privileges_checked`
 * false); the next use asks again.
 */
export async function checkPrivilegesSoon(deps: AppDeps, row: ConnectionRow): Promise<void> {
  if (!row.active) return;
  const checked = deps.privileges.check(row, driverOf(deps, row)).catch(() => {});
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([checked, new Promise((resolve) => (timer = setTimeout(resolve, ANSWER_WITHIN_MS)))]);
  clearTimeout(timer);
}

/**
 * Before a statement runs on a connection: its first use asks what the user
 * may do (in the background, unless the answer decides the run). With
 * SLUICE_REQUIRE_LEAST_PRIVILEGE, a connection with warnings is refused,
 * 403 `connection_over_privileged`, to every caller but the server key; a
 * database that cannot be asked fails the run as it would fail the
 * statement.
 */
export async function assertLeastPrivilege(deps: AppDeps, row: ConnectionRow, driver: AnyDriver, serverKey: boolean): Promise<void> {
  if (!deps.env.SLUICE_REQUIRE_LEAST_PRIVILEGE || serverKey) {
    askPrivilegesOnFirstUse(deps, row, driver);
    return;
  }
  const warnings = await deps.privileges.check(row, () => driver);
  if (warnings.length === 0) return;
  throw new SluiceError(
    'connection_over_privileged',
    `Connection "${row.name}" connects as a database user that may do more than read, and this server requires least privilege (SLUICE_REQUIRE_LEAST_PRIVILEGE): only the server key may use it. An administrator sees why in the connection's warnings (GET /api/v1/connections/${row.name}) and connects it as a least-privileged user.`,
  );
}

/** A statement about to run: the connection's first use asks what its user may do, in the background. */
export function askPrivilegesOnFirstUse(deps: AppDeps, row: ConnectionRow, driver: AnyDriver): void {
  deps.privileges.check(row, () => driver).catch(() => {});
}

/**
 * A run's connection, checked before the response cache is asked:
 * a cached answer is refused as its run would be. Nothing to ask without
 * SLUICE_REQUIRE_LEAST_PRIVILEGE or for the server key.
 */
export async function assertLeastPrivilegeOf(deps: AppDeps, connection: string, serverKey: boolean): Promise<void> {
  if (!deps.env.SLUICE_REQUIRE_LEAST_PRIVILEGE || serverKey) return;
  const { row, settings } = await connectionForRun(deps, connection);
  await assertLeastPrivilege(deps, row, deps.drivers.get(row.name, settings), serverKey);
}

/**
 * At startup, in the background: every active saved connection is asked
 * once, one after the other, so that each with warnings has its line in the
 * log. One that cannot be reached is asked again on its first use.
 */
export async function checkSavedConnections(deps: AppDeps): Promise<void> {
  const rows = await deps.store.db.select().from(connections).where(eq(connections.active, true));
  for (const row of rows) {
    try {
      await deps.privileges.check(row, driverOf(deps, row));
    } catch {
      // Unreachable, or its settings fail (an unset ${VAR}): its use reports that.
    }
  }
}
