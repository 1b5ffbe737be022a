import type { Hono } from 'hono';
import type { AppEnv } from '../../../http/context.ts';
import { badRequest } from '../../../errors.ts';
import { listExportRuns } from '../../../services/exports/list.ts';
import { runExport } from '../../../services/exports/run.ts';
import { listedWorkspace } from '../acting-workspace.ts';

/**
 * POST /api/v1/exports/{name}/runs runs it now: 201 `{id, object, rows,
 * bytes, watermark}`, 409 `export_running` with `retry_after` while another
 * run holds it. GET lists its runs, newest first (`limit`, 1-1000).
 */
export function registerRuns(api: Hono<AppEnv>): void {
  api.post('/:name/runs', async (c) => {
    const run = await runExport(c.get('deps'), c.get('caller'), c.req.param('name'), { workspace: listedWorkspace(c) });
    const { id, object, rows, bytes, watermark, status, started_at, finished_at } = run;
    return c.json({ id, object, rows, bytes, watermark, status, started_at, finished_at }, 201);
  });
  api.get('/:name/runs', async (c) => {
    const raw = c.req.query('limit');
    const limit = raw === undefined ? undefined : Number(raw);
    if (limit !== undefined && !(Number.isInteger(limit) && limit >= 1 && limit <= 1000)) throw badRequest('limit must be a whole number from 1 to 1000');
    return c.json({ runs: await listExportRuns(c.get('deps'), c.req.param('name'), { workspace: listedWorkspace(c), limit }) });
  });
}
