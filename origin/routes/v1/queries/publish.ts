import type { Hono } from 'hono';
import { readBody } from '../../../http/body.ts';
import type { AppEnv } from '../../../http/context.ts';
import { publishFields } from '../../../services/queries/fields.ts';
import { publishVersion } from '../../../services/queries/publish.ts';
import { listedWorkspace } from '../acting-workspace.ts';

/** POST /api/v1/queries/{name}/publish `{version: n}`: a draft or a previous version (a rollback); `If-Match`. */
export function registerPublish(api: Hono<AppEnv>): void {
  api.post('/:name/publish', async (c) => {
    const { version } = await readBody(c, publishFields);
    const { query, etag } = await publishVersion(c.get('deps'), c.get('caller'), c.req.param('name'), version, {
      workspace: listedWorkspace(c),
      ifMatch: c.req.header('if-match'),
    });
    c.header('ETag', etag);
    return c.json(query);
  });
}
