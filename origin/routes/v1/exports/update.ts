import type { Hono } from 'hono';
import { readBody } from '../../../http/body.ts';
import type { AppEnv } from '../../../http/context.ts';
import { updateFields } from '../../../services/exports/fields.ts';
import { updateExport } from '../../../services/exports/update.ts';
import { listedWorkspace } from '../acting-workspace.ts';

/** PATCH /api/v1/exports/{name}: `If-Match` optional (412 when stale); `{watermark}` rewinds or resets. */
export function registerUpdate(api: Hono<AppEnv>): void {
  api.patch('/:name', async (c) => {
    const input = await readBody(c, updateFields);
    const { export: updated, etag } = await updateExport(c.get('deps'), c.get('caller'), c.req.param('name'), input, {
      workspace: listedWorkspace(c),
      ifMatch: c.req.header('if-match'),
    });
    c.header('ETag', etag);
    return c.json(updated);
  });
}
