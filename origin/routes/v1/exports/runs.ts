import { badRequest } from '../../../errors.ts';
import { queryParam } from '../../../services/discovery/operations.ts';
import { listExportRuns } from '../../../services/exports/list.ts';
import { runExport } from '../../../services/exports/run.ts';
import { requestSpanOf } from '../../../http/request-scope.ts';
import { listedWorkspace } from '../acting-workspace.ts';
import { CREATED, defineRoute } from '../contract.ts';

/**
 * POST /api/v1/exports/{name}/runs runs it now: 201 `{id, object, rows,
 * bytes, watermark}`, 409 `export_running` with `retry_after` while another
 * run holds it. It needs `exports.run`, and changes no definition, so a
 * managed export runs under the configuration lock.
 */
export const run = defineRoute({
  method: 'post',
  path: '/:name/runs',
  id: 'runExport',
  summary: 'Run an export now: 201 {id, object, rows, bytes, watermark}; 409 export_running with retry_after',
  access: 'exports.run',
  locked: false,
  responses: CREATED,
  handler: async (c) => {
    const run = await runExport(c.get('deps'), c.get('caller'), c.req.param('name'), { workspace: listedWorkspace(c), parent: requestSpanOf(c) });
    const { id, object, rows, bytes, watermark, status, started_at, finished_at } = run;
    return c.json({ id, object, rows, bytes, watermark, status, started_at, finished_at }, 201);
  },
});

/** GET /api/v1/exports/{name}/runs: its runs, newest first (`limit`, 1-1000). */
export const listRuns = defineRoute({
  method: 'get',
  path: '/:name/runs',
  id: 'listExportRuns',
  summary: 'Runs of the export, newest first',
  parameters: [queryParam('limit', { type: 'integer', minimum: 1, maximum: 1000 })],
  handler: async (c) => {
    const raw = c.req.query('limit');
    const limit = raw === undefined ? undefined : Number(raw);
    if (limit !== undefined && !(Number.isInteger(limit) && limit >= 1 && limit <= 1000)) throw badRequest('limit must be a whole number from 1 to 1000');
    return c.json({ runs: await listExportRuns(c.get('deps'), c.req.param('name'), { workspace: listedWorkspace(c), limit }) });
  },
});
