import { eq } from 'drizzle-orm';
import { recordAudit } from '../../audit/record.ts';
import type { Caller } from '../../access/caller.ts';
import type { AppDeps } from '../../deps.ts';
import { exportRuns, exports } from '../../store/schema/index.ts';
import { exportRunning } from './lease.ts';
import { assertIfMatch, findExport } from './lookup.ts';
import { type ExportView, exportView, rowFields } from './view.ts';
import { forgetManaged } from '../config/managed.ts';

/**
 * Deletes an export: the `delete_export` change, audited with its settings.
 * Refused with 409 `export_running` while a run holds its lease. Its run
 * list goes with it (a namesake created later starts afresh); the runs stay
 * in the run history (`transport: export`).
 */
export async function deleteExport(deps: AppDeps, actor: Caller, name: string, { workspace, ifMatch }: { workspace?: string; ifMatch?: string } = {}): Promise<ExportView> {
  return deps.store.db.transaction(async (tx) => {
    const current = await findExport(tx, name, { workspace, forUpdate: true });
    assertIfMatch(ifMatch, current);
    const view = exportView(current);
    if (view.running) throw exportRunning(name, Math.max(1, Math.ceil((current.leaseExpires!.getTime() - Date.now()) / 1000)));
    await tx.delete(exports).where(eq(exports.id, current.id));
    await forgetManaged(tx, 'exports', [current.name]);
    await tx.delete(exportRuns).where(eq(exportRuns.export, name));
    await recordAudit(tx, { actor: actor.name, action: 'delete_export', target: name, workspace: current.workspace, changes: { name, ...rowFields(current), watermark: view.watermark } });
    return view;
  });
}
