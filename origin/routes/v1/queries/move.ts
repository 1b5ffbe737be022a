import type { Hono } from 'hono';
import { readBody } from '../../../http/body.ts';
import type { AppEnv } from '../../../http/context.ts';
import { moveFields } from '../../../services/queries/fields.ts';
import { moveQuery } from '../../../services/queries/move.ts';
import { listedWorkspace } from '../acting-workspace.ts';

/** PATCH /api/v1/queries/{name} `{collection: <name or null>}`: not a new version; `If-Match`. */
export function registerMove(api: Hono<AppEnv>): void {
  api.patch('/:name', async (c) => {
    const { collection } = await readBody(c, moveFields);
    const { query, etag } = await moveQuery(c.get('deps'), c.get('caller'), c.req.param('name'), collection, {
      workspace: listedWorkspace(c),
      ifMatch: c.req.header('if-match'),
    });
    c.header('ETag', etag);
    return c.json(query);
  });
}
