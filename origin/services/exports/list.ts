import { asc, desc, eq } from 'drizzle-orm';
import type { AppDeps } from '../../deps.ts';
import { exportRuns, exports } from '../../store/schema/index.ts';
import { findExport } from './lookup.ts';
import { type ExportRead, type ExportRunView, type ExportView, exportRead, exportRunView, exportView } from './view.ts';

/** Every export (a workspace-scoped call: that workspace's), by name. */
export async function listExports(deps: AppDeps, workspace?: string): Promise<ExportView[]> {
  const query = deps.store.db.select().from(exports);
  const rows = await (workspace === undefined ? query : query.where(eq(exports.workspace, workspace))).orderBy(asc(exports.name));
  const now = new Date();
  return rows.map((row) => exportView(row, now));
}

export async function getExport(deps: AppDeps, name: string, { workspace }: { workspace?: string } = {}): Promise<ExportRead> {
  return exportRead(await findExport(deps.store.db, name, { workspace }));
}

const MAX_RUNS = 1000;

/** An export's runs, newest first (`limit`, default 50). */
export async function listExportRuns(deps: AppDeps, name: string, { workspace, limit = 50 }: { workspace?: string; limit?: number } = {}): Promise<ExportRunView[]> {
  const row = await findExport(deps.store.db, name, { workspace });
  const runs = await deps.store.db
    .select()
    .from(exportRuns)
    .where(eq(exportRuns.export, name))
    .orderBy(desc(exportRuns.id))
    .limit(Math.min(limit, MAX_RUNS));
  return runs.map((run) => exportRunView(run, row.incremental !== null));
}
