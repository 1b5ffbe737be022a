import { asc, count, eq } from 'drizzle-orm';
import type { AppDeps } from '../../deps.ts';
import { adminTokens, administrators } from '../../store/schema/index.ts';
import { findAdministrator, tokenCount } from './lookup.ts';
import { type AdministratorRead, type AdministratorView, administratorRead, administratorView } from './view.ts';

/** Every administrator by name, with their token counts. */
export async function listAdministrators(deps: AppDeps): Promise<AdministratorView[]> {
  const rows = await deps.store.db
    .select({ administrator: administrators, tokens: count(adminTokens.id) })
    .from(administrators)
    .leftJoin(adminTokens, eq(adminTokens.administratorId, administrators.id))
    .groupBy(administrators.id)
    .orderBy(asc(administrators.name));
  return rows.map((r) => administratorView(r.administrator, Number(r.tokens)));
}

/** One administrator with its ETag, or 404 `admin_not_found`. */
export async function getAdministrator(deps: AppDeps, name: string): Promise<AdministratorRead> {
  const row = await findAdministrator(deps.store.db, name);
  return administratorRead(row, await tokenCount(deps.store.db, row.id));
}
