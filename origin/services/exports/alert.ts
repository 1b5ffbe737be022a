import { and, desc, eq, ne } from 'drizzle-orm';
import type { Alert } from '../../alerts/types.ts';
import type { AppDeps } from '../../deps.ts';
import { exportRuns, exports } from '../../store/schema/index.ts';
import { formatDate } from '../../time.ts';

/** `export_failing`: one per export (of `workspace`, when given) whose newest finished run failed; gone once a run succeeds (or the export is deleted). */
export async function exportFailingAlerts(deps: Pick<AppDeps, 'store'>, workspace?: string): Promise<Alert[]> {
  const newest = await deps.store.db
    .selectDistinctOn([exportRuns.export], { export: exportRuns.export, id: exportRuns.id, status: exportRuns.status, error: exportRuns.error, finishedAt: exportRuns.finishedAt })
    .from(exportRuns)
    .innerJoin(exports, eq(exports.name, exportRuns.export))
    .where(and(ne(exportRuns.status, 'running'), workspace === undefined ? undefined : eq(exports.workspace, workspace)))
    .orderBy(exportRuns.export, desc(exportRuns.id));
  return newest
    .filter((run) => run.status === 'error')
    .map((run) => ({
      name: 'export_failing',
      severity: 'error',
      subject: run.export,
      message: `Export "${run.export}" failed on its last run: ${run.error ?? 'unknown error'}`,
      details: { run: run.id, error: run.error, finished_at: run.finishedAt === null ? null : formatDate(run.finishedAt) },
    }));
}
