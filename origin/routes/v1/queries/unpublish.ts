import type { Hono } from 'hono';
import { readBody } from '../../../http/body.ts';
import type { AppEnv } from '../../../http/context.ts';
import { unpublishFields } from '../../../services/queries/fields.ts';
import { unpublishQuery } from '../../../services/queries/unpublish.ts';
import { listedWorkspace } from '../acting-workspace.ts';

/** POST /api/v1/queries/{name}/unpublish, no body: nothing serves, every version is kept; `If-Match`. */
export function registerUnpublish(api: Hono<AppEnv>): void {
  api.post('/:name/unpublish', async (c) => {
    await readBody(c, unpublishFields, { optional: true });
    const { query, etag } = await unpublishQuery(c.get('deps'), c.get('caller'), c.req.param('name'), {
      workspace: listedWorkspace(c),
      ifMatch: c.req.header('if-match'),
    });
    c.header('ETag', etag);
    return c.json(query);
  });
}
