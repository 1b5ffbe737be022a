import type { Hono } from 'hono';
import type { AppEnv } from '../../../http/context.ts';
import { deleteQuery } from '../../../services/queries/delete-query.ts';

/** DELETE /api/v1/queries/{name}: every version goes (run history stays); `If-Match`. */
export function registerDelete(api: Hono<AppEnv>): void {
  api.delete('/:name', async (c) => {
    return c.json(await deleteQuery(c.get('deps'), c.get('caller'), c.req.param('name'), c.req.header('if-match')));
  });
}
